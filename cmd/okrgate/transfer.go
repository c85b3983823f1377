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
	"github.com/okrgate/okrgate/upstream/sqlstore"
)

// exportCmd writes one account to a portable file (package accountfile),
// from any store; importCmd reads it into any store (docs/operations.md,
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
	fs := newFlags("import", "okrgate import --db FILE|URL --in FILE [--create] [--replace]", `
Reads an account file written by okrgate export (--in, - for stdin) into the
database, ids kept, in one transaction: the account is there whole or not at
all. Every objective's figures are recomputed from its key results and
checked equal to the file's. Refuses an account the database already has
(unless --replace), a file of a newer version, and a file cut short, edited
or naming another account's rows, with the line where it broke.`)
	db := fs.String("db", "okrgate.db", "SQLite database `file` or postgres:// URL")
	create := fs.Bool("create", false, "create the SQLite database file if it does not exist")
	replace := fs.Bool("replace", false, "replace the account if the database has it (its tokens too)")
	from := fs.String("in", "-", "the account `file` to read, or - for stdin")
	if err := fs.parse(args, getenv, stdout, stderr); err != nil {
		return err
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
	undo, err := allowNew(*db, *create)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			undo() // a failed command leaves no new database behind
		}
	}()
	r, err := accountfile.NewReader(in)
	if err != nil {
		return err
	}
	st, err := sqlstore.Open(ctx, *db)
	if err != nil {
		return err
	}
	defer st.Close()
	start := time.Now()
	rep, err := st.ImportAccount(ctx, r, sqlstore.ImportOptions{
		Replace: *replace,
		Progress: func(rows int) {
			fmt.Fprintf(stderr, "read %d rows (%s)\n", rows, time.Since(start).Round(time.Millisecond))
		},
	})
	if err != nil {
		return fmt.Errorf("%w; nothing was imported", err)
	}
	fmt.Fprintf(stdout, "imported account %s: %s; %d objectives' figures recomputed and equal, in %s\n",
		r.Header().Account, summary(rep.Rows), rep.Recomputed, time.Since(start).Round(time.Millisecond))
	for _, o := range rep.Omitted {
		fmt.Fprintf(stdout, "not in the file: %s\n", o)
	}
	return nil
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
