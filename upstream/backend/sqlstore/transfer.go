package sqlstore

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/okrgate/okrgate/upstream/accountfile"
)

// Moving an account (okrgate export and import, docs/moving-accounts.md "Moving an
// account") copies its rows table by table, every column as stored, ids
// kept. The tables come from the database's own catalog (catalog.go): every
// table with an account_id column, and the account's row in accounts, so a
// table a migration adds moves without a list to update. What is not the
// account's data but the server's bookkeeping of it stays behind.

// transient are the account-scoped tables that do not move: the event log
// (a moved account starts a log of its own in its new store), replayed
// idempotency keys, and webhook deliveries in flight.
var transient = []string{"events", "idempotency_keys", "webhook_deliveries"}

// secretTables are tables that move only when asked (ExportOptions.Tokens):
// API tokens' hashes let whoever holds the file's tokens act in the account
// wherever it is imported.
var secretTables = []string{"tokens", "token_accounts"}

// ExportOptions says what an export includes beyond the account's data.
type ExportOptions struct {
	// Tokens includes API tokens' hashes, so that the moved account's
	// clients keep working.
	Tokens bool
	// Secrets includes webhook signing secrets; without it they are
	// written empty and the webhooks arrive inactive.
	Secrets bool
	// Progress, if set, is called now and then with the rows written.
	Progress func(rows int)
}

// ErrNoAccount is the error for an export of an account the store does not
// have.
var ErrNoAccount = errors.New("no such account")

// movable returns the tables of ts that hold account's rows and move with it.
func movable(ts []dbTable, tokens bool) []dbTable {
	var out []dbTable
	for _, t := range ts {
		switch {
		case t.name == "accounts":
		case !t.has("account_id"), slices.Contains(transient, t.name):
			continue
		case slices.Contains(secretTables, t.name) && !tokens:
			continue
		}
		out = append(out, t)
	}
	return out
}

// ExportAccount writes account to w as an account file (package
// accountfile), from one consistent snapshot of the database, streaming:
// memory does not grow with the account.
func (s *Store) ExportAccount(ctx context.Context, account string, opts ExportOptions, w io.Writer) (map[string]int, error) {
	opt := &sql.TxOptions{ReadOnly: true}
	if s.pg != nil {
		opt.Isolation = sql.LevelRepeatableRead // one snapshot for every table
	}
	tx, err := s.r.BeginTx(ctx, opt) // SQLite: a read transaction keeps its snapshot (WAL)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: export: begin: %w", err)
	}
	defer tx.Rollback()
	q := counted{q: tx, d: s.d, n: &s.queries, rt: &s.roundTrips, trace: s.trace}
	var n int
	if err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM accounts WHERE id = ?`, account).Scan(&n); err != nil {
		return nil, fmt.Errorf("sqlstore: export: %w", err)
	}
	if n == 0 {
		return nil, fmt.Errorf("sqlstore: export %s: %w", account, ErrNoAccount)
	}
	all, err := s.catalog(ctx, q)
	if err != nil {
		return nil, err
	}
	ts := movable(all, opts.Tokens)
	h := accountfile.Header{Account: account, Exported: s.timestamp(), Source: s.d.name(), Tables: map[string][]string{}}
	for _, t := range ts {
		for _, c := range t.cols {
			h.Tables[t.name] = append(h.Tables[t.name], c.name)
		}
	}
	if !opts.Tokens {
		h.Omitted = append(h.Omitted, "API tokens (export with --include-tokens to keep the account's clients working)")
	}
	if !opts.Secrets {
		h.Omitted = append(h.Omitted, "webhook signing secrets (export with --include-secrets; without them webhooks arrive inactive)")
	}
	fw, err := accountfile.NewWriter(w, h)
	if err != nil {
		return nil, err
	}
	rows := 0
	for _, t := range ts {
		if err := s.exportTable(ctx, q, t, account, opts, fw, &rows); err != nil {
			return nil, err
		}
	}
	if err := fw.Close(); err != nil {
		return nil, fmt.Errorf("sqlstore: export: %w", err)
	}
	return fw.Counts(), nil
}

func (s *Store) exportTable(ctx context.Context, q querier, t dbTable, account string, opts ExportOptions, fw *accountfile.Writer, rows *int) error {
	sel := make([]string, len(t.cols))
	for i, c := range t.cols {
		sel[i] = quoteIdent(c.name)
		if c.kind == "json" && s.pg != nil {
			sel[i] += "::text" // the document as stored, not pgx's decoding of it
		}
	}
	where := "account_id = ?"
	if t.name == "accounts" {
		where = "id = ?"
	}
	stmt := "SELECT " + strings.Join(sel, ", ") + " FROM " + quoteIdent(t.name) + " WHERE " + where
	if len(t.pk) > 0 {
		stmt += " ORDER BY " + strings.Join(mapQuote(t.pk), ", ")
	}
	rs, err := q.QueryContext(ctx, stmt, account)
	if err != nil {
		return fmt.Errorf("sqlstore: export %s: %w", t.name, err)
	}
	defer rs.Close()
	vals := make([]any, len(t.cols))
	dest := make([]any, len(t.cols))
	for i := range dest {
		dest[i] = &vals[i]
	}
	secret := -1
	if t.name == "webhooks" && !opts.Secrets {
		secret = slices.IndexFunc(t.cols, func(c column) bool { return c.name == "secret" })
	}
	for rs.Next() {
		if err := rs.Scan(dest...); err != nil {
			return fmt.Errorf("sqlstore: export %s: %w", t.name, err)
		}
		out := make([]any, len(vals))
		for i, v := range vals {
			out[i] = fileValue(v)
		}
		if secret >= 0 {
			out[secret] = ""
		}
		if err := fw.Write(t.name, out); err != nil {
			return fmt.Errorf("sqlstore: export %s: %w", t.name, err)
		}
		*rows++
		if opts.Progress != nil && *rows%10000 == 0 {
			opts.Progress(*rows)
		}
	}
	if err := rs.Err(); err != nil {
		return fmt.Errorf("sqlstore: export %s: %w", t.name, err)
	}
	return nil
}

// fileValue is a scanned value in the form the account file writes.
func fileValue(v any) any {
	switch v := v.(type) {
	case int32:
		return int64(v)
	case int:
		return int64(v)
	case float32:
		return float64(v)
	case []byte:
		return slices.Clone(v)
	}
	return v
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func mapQuote(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = quoteIdent(s)
	}
	return out
}

// canonicalDoc is a hash of a JSON document that does not depend on how a
// database spells it (key order, number format), to compare a goal's
// figures as exported with those recomputed after an import.
func canonicalDoc(doc string) ([32]byte, error) {
	var v any
	if err := json.Unmarshal([]byte(doc), &v); err != nil {
		return [32]byte{}, err
	}
	b, err := json.Marshal(v) // maps marshal with sorted keys
	if err != nil {
		return [32]byte{}, err
	}
	return sha256.Sum256(b), nil
}
