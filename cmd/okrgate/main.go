// Command okrgate is the OKR server in one binary over an embedded SQLite
// file, and the tool that administers that file.
//
// okrgate serve answers, on one address:
//
//   - /api/: the REST facade of the OKR API (docs/rest.md);
//   - /graphql: the GraphQL API over the same data (docs/graphql.md);
//   - /: the GraphiQL playground; /reference: the REST API's reference;
//   - /metrics: Prometheus metrics; /healthz and /readyz: the probes.
//
// The other subcommands work on the database file, also while a server
// runs on it: bootstrap (a new account and its first admin), seed
// (synthetic data), token create (a new API token for a user, so a lost one
// can be replaced), account list|suspend|resume, backup, and version; schema and
// documents (which lists and validates trusted documents) need no database.
// Only serve and bootstrap --create make a new database; the others refuse a
// --db file that does not exist.
//
// Every flag of every subcommand can also come from the environment
// variable OKRGATE_ and its name upper-cased, dashes as underscores
// (--db: OKRGATE_DB, --max-inflight-reads: OKRGATE_MAX_INFLIGHT_READS); a
// flag wins over the environment. "okrgate help" lists the subcommands and
// "okrgate COMMAND -h" prints the flags of one.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, invokedAs(os.Args[0]), os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
}

// invokedAs is how a person runs this binary again, given how it was
// started (arg0): "go run ./cmd/okrgate" for a binary that go run built in
// its cache, else arg0 itself ("okrgate", "./okrgate", a path), quoted for
// a shell when it must be. Commands print it in the commands they suggest.
func invokedAs(arg0 string) string {
	if strings.Contains(filepath.ToSlash(arg0), "/go-build") {
		return "go run ./cmd/okrgate"
	}
	if arg0 == "" {
		return "okrgate"
	}
	return shellQuote(arg0)
}

// shellQuote quotes s for a POSIX shell when it holds anything but plain
// characters of names, paths and URLs.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:@%+=,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// command is a subcommand of okrgate.
type command struct {
	name, summary string
	run           func(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error
}

// commands lists the subcommands in the order usage shows them; prog is
// how the binary was invoked (invokedAs), for the commands serve suggests.
func commands(prog string) []command {
	return []command{
		{"serve", "serve the REST and GraphQL APIs, the playground and metrics (creates the database if missing)", serveAs(prog)},
		{"bootstrap", "create an account and its first admin; print the admin's API token", bootstrap},
		{"seed", "fill an account with synthetic objectives for load tests", seedCmd},
		{"token", "token create: mint a new API token for a user (replaces a lost one)", tokenCmd},
		{"account", "account list|suspend|resume: list the accounts; stop or restore one's access", accountCmd},
		{"backup", "write a consistent copy of the database, also while a server runs", backupCmd},
		{"export", "write one account to a portable file (any store; docs/operations.md)", exportCmd},
		{"import", "read an account file into this database (SQLite, PostgreSQL, Citus)", importCmd},
		{"schema", "print the GraphQL schema the server serves (SDL, with descriptions)", schemaCmd},
		{"documents", "list and validate trusted GraphQL documents (serve --trusted-documents)", documentsCmd},
		{"version", "print the version and the commit the binary was built from", versionCmd},
		{"help", "print this help; help COMMAND: the flags of COMMAND", nil},
	}
}

// usage writes the list of subcommands.
func usage(w io.Writer) {
	fmt.Fprint(w, `okrgate serves the OKR REST and GraphQL APIs from one binary over an
embedded SQLite database, and administers that database.

Usage:
  okrgate COMMAND [flags]

Commands:
`)
	for _, c := range commands("okrgate") {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `
Run "okrgate COMMAND -h" for the flags of a command. Every flag can also be
set in the environment: --db as OKRGATE_DB, --max-inflight-reads as
OKRGATE_MAX_INFLIGHT_READS; a flag wins. "okrgate --version" prints the version.
`)
}

// run is main with its dependencies passed in, so tests can drive it: prog
// is how the binary was invoked (invokedAs), args the arguments after it.
// It returns the exit code: 0 on success and for help, 1 when the command
// failed, 2 for a usage error.
func run(ctx context.Context, prog string, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stdout)
		return 0
	}
	name := args[0]
	switch name {
	case "help":
		if len(args) == 2 { // okrgate help COMMAND: its -h
			name, args = args[1], []string{args[1], "-h"}
			break
		}
		usage(stdout)
		return 0
	case "-h", "-help", "--help":
		usage(stdout)
		return 0
	case "-version", "--version":
		name = "version"
	}
	var cmd *command
	for _, c := range commands(prog) {
		if c.name == name && c.run != nil {
			cmd = &c
			break
		}
	}
	if cmd == nil {
		if strings.HasPrefix(name, "-") {
			fmt.Fprintf(stderr, "okrgate: unknown flag %s: flags follow a command\n", name)
		} else {
			fmt.Fprintf(stderr, "okrgate: unknown command %q\n", name)
		}
		fmt.Fprintln(stderr, `Run "okrgate help" for the list of commands.`)
		return 2
	}
	err := cmd.run(ctx, args[1:], getenv, stdout, stderr)
	switch {
	case err == nil, errors.Is(err, errHelp):
		return 0
	case errors.Is(err, errUsage):
		return 2
	default:
		fmt.Fprintf(stderr, "okrgate %s: %v\n", name, err)
		return 1
	}
}

func versionCmd(_ context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := newFlags("version", "okrgate version", "Prints the module version, the commit the binary was built from, the Go\nversion and the platform.")
	if err := fs.parse(args, getenv, stdout, stderr); err != nil {
		return err
	}
	version(stdout)
	return nil
}
