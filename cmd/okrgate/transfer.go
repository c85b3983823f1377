package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"time"

	"github.com/okrgate/okrgate/upstream/accountfile"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
)

// exportCmd writes one account to a portable file (package accountfile),
// from any store; importCmd reads it into any store (docs/moving-accounts.md,
// "Moving an account").
func exportCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) (err error) {
	fs := newFlags("export", "okrgate export --db FILE|URL --account ID [--out FILE] [--include-tokens] [--include-secrets]", `
Writes one account — its users, teams, roles, sessions, objectives, key
results with their whole check-in history, tasks and every other resource,
ids kept — to a portable file (JSON Lines, format version 1) that okrgate
import reads into any store: SQLite, PostgreSQL or Citus. Reads one
consistent snapshot; works while a server runs on the database. API tokens
and webhook secrets are left out unless asked for. Progress goes to stderr.`)
	db := fs.String("db", "okrgate.db", "SQLite database `file` (must exist) or postgres:// URL")
	account := fs.String("account", "", "the account's `id` (required)")
	out := fs.String("out", "-", "the file to write (must not exist), or - for stdout")
	tokens := fs.Bool("include-tokens", false, "include API tokens' hashes, so the moved account's clients keep working")
	secrets := fs.Bool("include-secrets", false, "include webhook signing secrets (else webhooks arrive inactive)")
	if err := fs.parse(args, getenv, stdout, stderr); err != nil {
		return err
	}
	if err := required(stderr, fs, "account"); err != nil {
		return err
	}
	st, err := openExisting(ctx, *db)
	if err != nil {
		return err
	}
	defer st.Close()
	w := stdout
	if *out != "-" {
		f, err := os.OpenFile(*out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return err
		}
		defer func() {
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				os.Remove(*out) // no half a file left behind
			}
		}()
		w = f
	}
	start := time.Now()
	counts, err := st.ExportAccount(ctx, *account, sqlstore.ExportOptions{
		Tokens: *tokens, Secrets: *secrets,
		Progress: func(rows int) {
			fmt.Fprintf(stderr, "exported %d rows (%s)\n", rows, time.Since(start).Round(time.Millisecond))
		},
	}, w)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "exported account %s: %s in %s\n", *account, summary(counts), time.Since(start).Round(time.Millisecond))
	return nil
}

func importCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) (err error) {
	fs := newFlags("import", "okrgate import --db FILE|URL (--in FILE | --from URL --token TOKEN --account ID) [--create] [--replace]", `
Reads an account file written by okrgate export (--in, - for stdin) into the
database, ids kept, in one transaction: the account is there whole or not at
all. Every objective's figures are recomputed from its key results and
checked equal to the file's. Refuses an account the database already has
(unless --replace), a file of a newer version, and a file cut short, edited
or naming another account's rows, with the line where it broke.

With --from, reads the account through the REST API of a server instead
(another okrgate, or the real platform's v1/v2 endpoints), as the user of
--token, waiting as the server's Retry-After asks; the pages read go to a
spool directory, so an interrupted pull resumes where it stopped when run
again. Figures are recomputed here; those that differ from the source's are
counted. What the source could not provide is listed.`)
	db := fs.String("db", "okrgate.db", "SQLite database `file` or postgres:// URL")
	create := fs.Bool("create", false, "create the SQLite database file if it does not exist")
	replace := fs.Bool("replace", false, "replace the account if the database has it (its tokens too)")
	from := fs.String("in", "-", "the account `file` to read, or - for stdin")
	var pf pullFlags
	pf.register(fs)
	if err := fs.parse(args, getenv, stdout, stderr); err != nil {
		return err
	}
	if pf.url != "" {
		if err := required(stderr, fs, "token", "account"); err != nil {
			return err
		}
		return pullCmd(ctx, pf, *db, *create, *replace, stdout, stderr)
	}
	var in io.Reader = os.Stdin
	if *from != "-" {
		f, err := os.Open(*from)
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	}
	_, err = importFile(ctx, in, *db, *create, sqlstore.ImportOptions{Replace: *replace}, stdout, stderr)
	return err
}

// importFile imports the account file in r into db; a failed import leaves
// no new database behind.
func importFile(ctx context.Context, in io.Reader, db string, create bool, opts sqlstore.ImportOptions, stdout, stderr io.Writer) (rep sqlstore.ImportReport, err error) {
	undo, err := allowNew(db, create)
	if err != nil {
		return rep, err
	}
	defer func() {
		if err != nil {
			undo() // a failed command leaves no new database behind
		}
	}()
	r, err := accountfile.NewReader(in)
	if err != nil {
		return rep, err
	}
	st, err := sqlstore.Open(ctx, db)
	if err != nil {
		return rep, err
	}
	defer st.Close()
	start := time.Now()
	opts.Progress = func(rows int) {
		fmt.Fprintf(stderr, "read %d rows (%s)\n", rows, time.Since(start).Round(time.Millisecond))
	}
	rep, err = st.ImportAccount(ctx, r, opts)
	if err != nil {
		return rep, fmt.Errorf("%w; nothing was imported", err)
	}
	fmt.Fprintf(stdout, "imported account %s: %s; %d objectives' figures recomputed and equal, in %s\n",
		r.Header().Account, summary(rep.Rows), rep.Recomputed, time.Since(start).Round(time.Millisecond))
	if rep.Differed > 0 {
		fmt.Fprintf(stdout, "%d objectives' figures differed from the source's and were recomputed here\n", rep.Differed)
	}
	for _, o := range rep.Omitted {
		fmt.Fprintf(stdout, "not in the file: %s\n", o)
	}
	return rep, nil
}

// summary is counts as "N rows (goals 5, metrics 7, ...)".
func summary(counts map[string]int) string {
	total, s := 0, ""
	for _, t := range slices.Sorted(maps.Keys(counts)) {
		total += counts[t]
		if s != "" {
			s += ", "
		}
		s += fmt.Sprintf("%s %d", t, counts[t])
	}
	return fmt.Sprintf("%d rows (%s)", total, s)
}
