package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
	"github.com/okrgate/okrgate/upstream/seed"
)

// openExisting opens the database file path, which must exist: only serve
// and bootstrap --create make a new database, so that a mistyped --db is an
// error rather than a fresh empty file. sqlstore.Open creates missing files,
// so existence is checked first.
func openExisting(ctx context.Context, path string) (*sqlstore.Store, error) {
	if err := mustExist(path); err != nil {
		return nil, err
	}
	return sqlstore.Open(ctx, path)
}

// mustExist reports a missing database file.
func mustExist(path string) error {
	ok, err := exists(path)
	if err == nil && !ok {
		err = fmt.Errorf("database %s does not exist (okrgate bootstrap --create --db %s makes a new one)", path, path)
	}
	return err
}

// exists says whether the database file path exists.
func exists(path string) (bool, error) {
	if isServerDB(path) {
		return true, nil // database.go
	}
	_, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("database %s: %w", path, err)
	}
	return true, nil
}

// allowNew checks that the database db exists, or that it may be made
// (create: bootstrap --create, import --create). When it does not exist yet,
// undo removes what opening it will make (the file and its -wal and -shm
// files), for a command that failed; otherwise undo does nothing.
func allowNew(db string, create bool) (undo func(), err error) {
	found, err := exists(db)
	switch {
	case err != nil:
		return nil, err
	case found:
		return func() {}, nil
	case !create:
		return nil, mustExist(db)
	}
	return func() {
		for _, suffix := range []string{"", "-wal", "-shm"} {
			os.Remove(db + suffix)
		}
	}, nil
}

// required reports the first of the named flags left empty.
func required(stderr io.Writer, fs *cmdFlags, names ...string) error {
	for _, n := range names {
		if fs.Lookup(n).Value.String() == "" {
			fmt.Fprintf(stderr, "--%s is required (or %s)\n", n, envName(n))
			fs.hint(stderr)
			return errUsage
		}
	}
	return nil
}

func bootstrap(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) (err error) {
	fs := newFlags("bootstrap", "okrgate bootstrap --db FILE [--create] --account NAME --email EMAIL [--json]", `
Creates an account and its first admin user in the database and prints the
admin's API token, shown once (only its hash is stored). The database must
exist unless --create is given; several accounts can share one database.`)
	db := fs.String("db", "okrgate.db", "SQLite database `file` or postgres:// URL")
	create := fs.Bool("create", false, "create the database file if it does not exist")
	account := fs.String("account", "", "account `name` (required)")
	email := fs.String("email", "", "`email` of the admin user (required)")
	asJSON := fs.Bool("json", false, `print exactly {"accountId","userId","token"} as JSON`)
	if err := fs.parse(args, getenv, stdout, stderr); err != nil {
		return err
	}
	if err := required(stderr, fs, "account", "email"); err != nil {
		return err
	}
	undo, err := allowNew(*db, *create)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			undo() // a failed command leaves no new database behind
		}
	}()
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

func seedCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := newFlags("seed", "okrgate seed --db FILE --account ID [--goals N] [--seed S] | --upstream URL --token T", `
Fills an existing account with synthetic sessions, objectives, key results
and check-ins for load tests, and prints a JSON summary. The same seed gives
the same dataset. Progress goes to stderr every two seconds. With --upstream,
fills the account of --token on a remote server of the REST API instead.`)
	upstreamURL := fs.String("upstream", "", "fill a remote server of the REST API at `URL` instead of --db")
	token := fs.String("token", "", "with --upstream: the bearer `token` of an admin of the account to fill")
	db := fs.String("db", "okrgate.db", "SQLite database `file` (must exist) or postgres:// URL")
	account := fs.String("account", "", "account `id` to fill (required)")
	goals := fs.Int("goals", 100, "number of objectives")
	s := fs.Uint64("seed", 1, "random seed: the same seed gives the same dataset")
	if err := fs.parse(args, getenv, stdout, stderr); err != nil {
		return err
	}
	if *upstreamURL != "" {
		if err := required(stderr, fs, "token"); err != nil {
			return err
		}
		start := time.Now()
		p := progress{w: stderr, total: *goals, start: start, last: start}
		sum, err := seedUpstream(ctx, *upstreamURL, *token, seed.Options{Goals: *goals, Seed: *s, Progress: p.report})
		if err != nil {
			return err
		}
		return json.NewEncoder(stdout).Encode(sum)
	}
	if err := required(stderr, fs, "account"); err != nil {
		return err
	}
	st, err := openExisting(ctx, *db)
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

// accountCmd lists the accounts of the database, or suspends or resumes
// one: every call made with a suspended account's tokens answers 402
// account_suspended until it is resumed. It works on the database directly,
// so also while a server runs on the same file.
func accountCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := newFlags("account", "okrgate account list|suspend|resume --db FILE [--id ACCOUNT_ID] [--json]", `
list: every account of the database, oldest first: id, name, created, state
(the way to find the id a lost token belonged to; then okrgate token create
--account ID). suspend --id ID: every call made with the account's tokens
answers 402 account_suspended until it is resumed. resume --id ID: the
tokens work again. Works while a server runs on the same database.`)
	verb, args := subcommand(args, "list", "suspend", "resume")
	if verb == "" && !isHelp(args) {
		fs.hint(stderr)
		return errUsage
	}
	db := fs.String("db", "okrgate.db", "SQLite database `file` (must exist) or postgres:// URL")
	id := fs.String("id", "", "account `id` (required by suspend and resume)")
	asJSON := fs.Bool("json", false, `list: print a JSON array of {"id","name","dateCreated","isActive","ownerId"}`)
	if err := fs.parse(args, getenv, stdout, stderr); err != nil {
		return err
	}
	if verb != "list" {
		if err := required(stderr, fs, "id"); err != nil {
			return err
		}
	}
	st, err := openExisting(ctx, *db)
	if err != nil {
		return err
	}
	defer st.Close()
	if verb == "list" {
		return listAccounts(ctx, st, *asJSON, stdout)
	}
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

// accountSummary is a line of okrgate account list.
type accountSummary struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	DateCreated string `json:"dateCreated"`
	IsActive    bool   `json:"isActive"`
	OwnerID     string `json:"ownerId"`
}

// listAccounts prints the database's accounts, as a table or as JSON.
func listAccounts(ctx context.Context, st *sqlstore.Store, asJSON bool, stdout io.Writer) error {
	accounts, err := st.Accounts(ctx)
	if err != nil {
		return err
	}
	list := make([]accountSummary, 0, len(accounts))
	for _, a := range accounts {
		list = append(list, accountSummary{ID: a.ID, Name: a.Name, DateCreated: a.DateCreated, IsActive: a.IsActive, OwnerID: a.OwnerID})
	}
	if asJSON {
		return json.NewEncoder(stdout).Encode(list)
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tCREATED\tSTATE")
	for _, a := range list {
		state := "active"
		if !a.IsActive {
			state = "suspended"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", a.ID, a.Name, a.DateCreated, state)
	}
	return tw.Flush()
}

// subcommand splits a verb off args when it is one of verbs; otherwise it
// returns "" and args unchanged.
func subcommand(args []string, verbs ...string) (string, []string) {
	if len(args) > 0 && slices.Contains(verbs, args[0]) {
		return args[0], args[1:]
	}
	return "", args
}

// isHelp says whether args ask for help (-h, --help) first.
func isHelp(args []string) bool {
	return len(args) > 0 && slices.Contains([]string{"-h", "-help", "--help"}, args[0])
}

// backupCmd writes a consistent copy of the database, also while a server
// runs on it.
func backupCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := newFlags("backup", "okrgate backup --db FILE --to COPY", `
Writes a consistent copy of the database (VACUUM INTO), also while a server
runs on it. The copy must not exist yet; serve it with --db COPY to restore.`)
	db := fs.String("db", "okrgate.db", "SQLite database `file` (must exist) or postgres:// URL")
	to := fs.String("to", "", "the copy's `file` (required; must not exist)")
	if err := fs.parse(args, getenv, stdout, stderr); err != nil {
		return err
	}
	if err := required(stderr, fs, "to"); err != nil {
		return err
	}
	if isServerDB(*db) {
		return errBackupPostgres
	}
	st, err := openExisting(ctx, *db)
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
