package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/okrgate/okrgate/upstream"
)

// tokenCmd mints an API token for a user straight in the database, without
// a caller: the way back in when every token of an account is lost (the
// demo's is printed once). It works while a server runs on the file.
func tokenCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := newFlags("token", "okrgate token create --db FILE (--user ID | --account ID) [--name N] [--expires-in D] [--read-only] [--json]", `
create: mints a new API token for an active user of the database and prints
it, shown once (only its hash is stored). --account ID mints for the
account's owner, its first admin: the way back in when the token printed by
bootstrap or serve --demo is lost. Works while a server runs on the database.`)
	verb, args := subcommand(args, "create")
	if verb == "" && !isHelp(args) {
		fs.hint(stderr)
		return errUsage
	}
	db := fs.String("db", "okrgate.db", "SQLite database `file` (must exist) or postgres:// URL")
	user := fs.String("user", "", "`id` of the user the token acts as")
	account := fs.String("account", "", "account `id`: the token acts as its owner (instead of --user)")
	name := fs.String("name", "cli", "the token's `name`, shown in its listings")
	var expiresIn int64
	fs.Func("expires-in", "the token's `lifetime`: 30d, 12h, ... (default 90d, at most 366d)", func(s string) error {
		d, err := parseLifetime(s)
		expiresIn = int64(d.Seconds())
		return err
	})
	readOnly := fs.Bool("read-only", false, "a read-only token (scope read); read-write by default")
	asJSON := fs.Bool("json", false, `print the token as JSON: {"accountId","id","name","userId","createdAt","expiresAt","scopes","token",...}`)
	if err := fs.parse(args, getenv, stdout, stderr); err != nil {
		return err
	}
	if (*user == "") == (*account == "") {
		fmt.Fprintln(stderr, "give exactly one of --user and --account")
		fs.hint(stderr)
		return errUsage
	}
	in := upstream.TokenInput{Name: *name}
	if expiresIn > 0 {
		in.ExpiresIn = &expiresIn
	}
	if *readOnly {
		in.Scopes = []upstream.Scope{upstream.ScopeRead}
	}
	st, err := openExisting(ctx, *db)
	if err != nil {
		return err
	}
	defer st.Close()
	if *account != "" {
		if *user, err = st.AccountOwner(ctx, *account); err != nil {
			return err
		}
	}
	acc, t, err := st.MintToken(ctx, *user, in)
	if err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(struct {
			AccountID string `json:"accountId"`
			upstream.NewToken
		}{acc, t})
	}
	fmt.Fprintf(stdout, "account %s\nuser    %s\nexpires %s\nscopes  %v\ntoken   %s  (shown once: keep it)\n",
		acc, t.UserID, t.ExpiresAt, t.Scopes, t.Secret)
	return nil
}
