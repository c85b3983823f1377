package sqlstore

import (
	"context"
	"database/sql"
	"io/fs"
	"testing"

	"github.com/pressly/goose/v3"

	"github.com/okrgate/okrgate/upstream/backend/sqlstore/internal/testdb"
)

// postgresBeforeTokenAccounts is the PostgreSQL schema version before
// token_accounts (migrations/postgres/00005_token_accounts.sql).
const postgresBeforeTokenAccounts = 4

// TestCitusUpgradeKeepsTokens: a database already distributed on Citus at
// the schema before token_accounts, holding an account with a token,
// upgrades in place when a store opens it: the token still authenticates,
// and token_accounts, filled by the migration from the distributed tokens,
// is a reference table with the token's row.
func TestCitusUpgradeKeepsTokens(t *testing.T) {
	if !testdb.Citus() {
		t.Skip("Citus only: set OKRGATE_TEST_CITUS to a coordinator's URL")
	}
	ctx := context.Background()
	dsn, drop, err := testdb.NewSchema(testdb.AdminURL(t)) // a new schema: not one the pool has migrated
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := drop(); err != nil {
			t.Error(err)
		}
	})
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sub, err := fs.Sub(migrations, "migrations/postgres")
	if err != nil {
		t.Fatal(err)
	}
	p, err := goose.NewProvider(goose.DialectPostgres, db, sub)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(ctx, postgresBeforeTokenAccounts); err != nil {
		t.Fatal(err)
	}
	lockID, err := migrationLockID(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if err := (&pgStore{}).distribute(ctx, db, lockID); err != nil {
		t.Fatalf("distribute the old schema: %v", err)
	}
	const acct, user, secret = "aaaaaaaaaaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbbbbbbbbbb", "okr_issued-before-token-accounts"
	for _, stmt := range []struct {
		q    string
		args []any
	}{
		{"INSERT INTO accounts (id, doc) VALUES ($1, $2)", []any{acct, `{"id":"` + acct + `","isActive":true}`}},
		{"INSERT INTO users (id, account_id, email, doc) VALUES ($1, $2, $3, $4)", []any{user, acct, "old@x.test",
			`{"id":"` + user + `","accountId":"` + acct + `","email":"old@x.test","isActive":true,"roles":[{"name":"admin"}]}`}},
		{"INSERT INTO tokens (hash, account_id, user_id, created, id, expires) VALUES ($1, $2, $3, $4, $5, $6)",
			[]any{hashToken(secret), acct, user, "2025-01-01T00:00:00.000Z", "cccccccccccccccccccccccc", "2999-01-01T00:00:00.000Z"}},
	} {
		if _, err := db.ExecContext(ctx, stmt.q, stmt.args...); err != nil {
			t.Fatal(err)
		}
	}

	st, err := Open(ctx, dsn)
	if err != nil {
		t.Fatalf("upgrade: %v", err)
	}
	defer st.Close()
	c, err := st.Authenticate(ctx, secret)
	if err != nil || c.AccountID != acct || c.UserID != user {
		t.Errorf("the token after the upgrade: %+v, %v", c, err)
	}
	var method, account string
	if err := db.QueryRowContext(ctx, `SELECT p.partmethod::text, k.account_id FROM pg_dist_partition p, token_accounts k
		WHERE p.logicalrelid = 'token_accounts'::regclass AND k.hash = $1`, hashToken(secret)).Scan(&method, &account); err != nil {
		t.Fatal(err)
	}
	if method != "n" || account != acct {
		t.Errorf("token_accounts: partition method %q (want n: a reference table), the token's account %q", method, account)
	}
}
