package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/seed"
	"github.com/okrgate/okrgate/upstream/sqlstore"
)

// errUsage reports bad flags; the flag package has already said why.
var errUsage = errors.New("usage")

func parseFlags(fs *flag.FlagSet, args []string, stderr io.Writer) error {
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "unexpected arguments: %v\n", fs.Args())
		return errUsage
	}
	return nil
}

func bootstrap(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bootstrap", flag.ContinueOnError)
	db := fs.String("db", "okrgate.db", "SQLite database `file`")
	account := fs.String("account", "", "account `name` (required)")
	email := fs.String("email", "", "email of the admin user (required)")
	asJSON := fs.Bool("json", false, `print exactly {"accountId","userId","token"} as JSON`)
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	st, err := sqlstore.Open(ctx, *db)
	if err != nil {
		return err
	}
	defer st.Close()
	res, err := st.Bootstrap(ctx, sqlstore.BootstrapInput{AccountName: *account, Email: *email})
	if err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(res)
	}
	fmt.Fprintf(stdout, "account %s\nuser    %s\ntoken   %s  (shown once: keep it)\n", res.AccountID, res.UserID, res.Token)
	return nil
}

func seedCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("seed", flag.ContinueOnError)
	db := fs.String("db", "okrgate.db", "SQLite database `file`")
	account := fs.String("account", "", "account `id` to fill (required)")
	goals := fs.Int("goals", 100, "number of objectives")
	s := fs.Uint64("seed", 1, "random seed: the same seed gives the same dataset")
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	st, err := sqlstore.Open(ctx, *db)
	if err != nil {
		return err
	}
	defer st.Close()
	owner, err := st.AccountOwner(ctx, *account)
	if err != nil {
		return err
	}
	sctx := upstream.NewContext(ctx, upstream.Caller{AccountID: *account, UserID: owner, Roles: []string{"admin"}})
	start := time.Now()
	p := progress{w: stderr, total: *goals, start: start, last: start}
	sum, err := seed.Synthetic(sctx, st, seed.Options{Goals: *goals, Seed: *s, Progress: p.report})
	if err != nil {
		return err
	}
	if p.printed {
		fmt.Fprintf(stderr, "seeded %d objectives in %v\n", sum.Goals, time.Since(start).Round(time.Millisecond))
	}
	return json.NewEncoder(stdout).Encode(sum)
}

// progress reports a long seeding on stderr, at most every two seconds, so
// stdout keeps only the result.
type progress struct {
	w           io.Writer
	total       int
	start, last time.Time
	printed     bool
}

func (p *progress) report(done int) {
	now := time.Now()
	if now.Sub(p.last) < 2*time.Second || done == p.total {
		return
	}
	p.last, p.printed = now, true
	rate := float64(done) / now.Sub(p.start).Seconds()
	fmt.Fprintf(p.w, "seeded %d/%d objectives (%.0f/s)\n", done, p.total, rate)
}

// accountCmd suspends or resumes an account: every call made with a
// suspended account's tokens answers 402 account_suspended until it is
// resumed. It writes to the database directly, so it works while a server
// runs on the same file.
func accountCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || (args[0] != "suspend" && args[0] != "resume") {
		fmt.Fprintln(stderr, "usage: okrgate account suspend|resume --db FILE --id ACCOUNT_ID")
		return errUsage
	}
	verb := args[0]
	fs := flag.NewFlagSet("account "+verb, flag.ContinueOnError)
	db := fs.String("db", "okrgate.db", "SQLite database `file`")
	id := fs.String("id", "", "account `id` (required)")
	if err := parseFlags(fs, args[1:], stderr); err != nil {
		return err
	}
	if *id == "" {
		fmt.Fprintln(stderr, "--id is required")
		return errUsage
	}
	st, err := sqlstore.Open(ctx, *db)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := st.SetAccountActive(ctx, *id, verb == "resume"); err != nil {
		return fmt.Errorf("%s %s: %w", verb, *id, err)
	}
	state := "active"
	if verb == "suspend" {
		state = "suspended"
	}
	fmt.Fprintf(stdout, "account %s %s\n", *id, state)
	return nil
}

// backupCmd writes a consistent copy of the database, also while a server
// runs on it.
func backupCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("backup", flag.ContinueOnError)
	db := fs.String("db", "okrgate.db", "SQLite database `file`")
	to := fs.String("to", "", "the copy's `file` (required; must not exist)")
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	if *to == "" {
		fmt.Fprintln(stderr, "--to is required")
		return errUsage
	}
	st, err := sqlstore.Open(ctx, *db)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := st.Backup(ctx, *to); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "backed up %s to %s\n", *db, *to)
	return nil
}
