// Command okrgate serves the OKR REST API (and, in later releases, GraphQL)
// from one binary over an embedded SQLite file, and administers that file.
//
// Usage:
//
//	okrgate serve     [--addr 127.0.0.1:8080] [--db okrgate.db] [--demo]
//	okrgate bootstrap --db FILE --account NAME --email EMAIL [--json]
//	okrgate seed      --db FILE --account ID --goals N [--seed S]
//
// Flags of serve may also be given as environment variables OKRGATE_ADDR and
// OKRGATE_DB; a flag wins over the environment.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
}

const usage = `okrgate serves the OKR REST API from one binary.

Usage:
  okrgate serve     [--addr 127.0.0.1:8080] [--db okrgate.db] [--demo]
  okrgate bootstrap --db FILE --account NAME --email EMAIL [--json]
  okrgate seed      --db FILE --account ID --goals N [--seed S]
  okrgate account   suspend|resume --db FILE --id ACCOUNT_ID
  okrgate backup    --db FILE --to COPY

Run "okrgate COMMAND -h" for the flags of a command.
`

// run is main with its dependencies passed in, so tests can drive it.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "serve":
		err = serve(ctx, args[1:], getenv, stdout, stderr)
	case "bootstrap":
		err = bootstrap(ctx, args[1:], stdout, stderr)
	case "seed":
		err = seedCmd(ctx, args[1:], stdout, stderr)
	case "account":
		err = accountCmd(ctx, args[1:], stdout, stderr)
	case "backup":
		err = backupCmd(ctx, args[1:], stdout, stderr)
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "okrgate: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
	if err == errUsage {
		return 2
	}
	if err != nil {
		fmt.Fprintf(stderr, "okrgate %s: %v\n", args[0], err)
		return 1
	}
	return 0
}
