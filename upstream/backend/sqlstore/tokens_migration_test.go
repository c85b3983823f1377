package sqlstore

import (
	"context"
	"database/sql"
	"io/fs"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/okrgate/okrgate/upstream/backend/sqlstore/internal/testdb"

	"github.com/pressly/goose/v3"

	"github.com/okrgate/okrgate/upstream"
)

// TestTokenMigrationKeepsTokens: a token issued before migration 00007
// still authenticates after it, read-write, listed with an id and an expiry
// 90 days after the migration ran.
func TestTokenMigrationKeepsTokens(t *testing.T) {
	if testdb.Postgres() {
		t.Skip("a SQLite migration")
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	sub, err := fs.Sub(migrations, "migrations/sqlite")
	if err != nil {
		t.Fatal(err)
	}
	p, err := goose.NewProvider(goose.DialectSQLite3, db, sub)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(ctx, 4); err != nil {
		t.Fatal(err)
	}
	const acct, user, secret = "aaaaaaaaaaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbbbbbbbbbb", "okr_issued-before-the-migration"
	for _, stmt := range []struct {
		q    string
		args []any
	}{
		{"INSERT INTO accounts (id, doc) VALUES (?, ?)", []any{acct, `{"id":"` + acct + `","isActive":true}`}},
		{"INSERT INTO users (id, account_id, email, doc) VALUES (?, ?, ?, ?)", []any{user, acct, "old@x.test",
			`{"id":"` + user + `","accountId":"` + acct + `","email":"old@x.test","isActive":true,"roles":[{"name":"admin"}]}`}},
		{"INSERT INTO tokens (hash, account_id, user_id, created) VALUES (?, ?, ?, ?)", []any{hashToken(secret), acct, user, "2025-01-01T00:00:00.000Z"}},
	} {
		if _, err := db.ExecContext(ctx, stmt.q, stmt.args...); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	before := time.Now()
	st, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	c, err := st.Authenticate(ctx, secret)
	if err != nil {
		t.Fatalf("old token after the migration: %v", err)
	}
	if c.UserID != user || c.ReadOnly() || !regexp.MustCompile(`^[0-9a-f]{24}$`).MatchString(c.TokenID) {
		t.Errorf("caller %+v", c)
	}
	ts, err := st.ListTokens(upstream.NewContext(ctx, c))
	if err != nil || len(ts) != 1 {
		t.Fatalf("list: %v %v", ts, err)
	}
	exp, err := time.Parse(upstream.TimeLayout, ts[0].ExpiresAt)
	if err != nil || exp.Before(before.Add(upstream.DefaultTokenTTL-time.Hour)) || exp.After(time.Now().Add(upstream.DefaultTokenTTL+time.Hour)) {
		t.Errorf("expiresAt %q (%v), want 90 days after the migration", ts[0].ExpiresAt, err)
	}
	if ts[0].ID != c.TokenID || ts[0].CreatedAt != "2025-01-01T00:00:00.000Z" || len(ts[0].Scopes) != 2 || ts[0].LastUsedAt == nil {
		t.Errorf("listed as %+v", ts[0])
	}
}
