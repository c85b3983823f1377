package sqlstore

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/okrgate/okrgate/upstream/backend/sqlstore/internal/testdb"
)

// TestReadStopsAtDeadline: a statement of the store's read pool that would
// never end on its own (a recursive CTE counting without bound) ends with
// the context's error once its deadline passes — SQLite is interrupted,
// PostgreSQL cancels the statement — so that a read deadline stops the
// work, not only the wait for it. The same holds for the regexp function a
// filter's $regex runs per row on SQLite.
func TestReadStopsAtDeadline(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, testdb.DSN(t, "interrupt.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const marker = "okrgate-interrupt-test"
	stmts := map[string]string{
		"unbounded count": `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) /* ` + marker + ` */ FROM c`,
	}
	if !testdb.Postgres() {
		stmts["regexp per row"] = `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c)
			SELECT count(*) FROM c WHERE regexp('^(a|b)*c$', 'abababababab' || x)`
	}
	for name, stmt := range stmts {
		t.Run(name, func(t *testing.T) {
			dctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
			defer cancel()
			done := make(chan error, 1)
			go func() {
				var n int64
				done <- s.read().QueryRowContext(dctx, stmt).Scan(&n)
			}()
			select {
			case err := <-done:
				// PostgreSQL answers the cancel request with query_canceled.
				var pgErr *pgconn.PgError
				if !errors.Is(err, context.DeadlineExceeded) && !(testdb.Postgres() && errors.As(err, &pgErr) && pgErr.Code == "57014") {
					t.Fatalf("an unbounded statement past its deadline ended with %v, want context.DeadlineExceeded", err)
				}
			case <-time.After(60 * time.Second): // bounds a failure; asserts no timing
				t.Fatal("an unbounded statement was not stopped at its deadline")
			}
			if testdb.Postgres() {
				// The server stopped too: the statement is no longer active
				// (without a cancel request it would run on to
				// statement_timeout, 30 s, on a dropped connection).
				stop := time.Now().Add(15 * time.Second) // bounds a failure; asserts no timing
				for {
					var n int
					err := s.read().QueryRowContext(ctx, `SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query LIKE ? AND query NOT LIKE '%pg_stat_activity%'`,
						"%"+marker+"%").Scan(&n)
					if err != nil {
						t.Fatal(err)
					}
					if n == 0 {
						break
					}
					if time.Now().After(stop) {
						t.Fatalf("the statement still runs on the server after its deadline")
					}
					time.Sleep(20 * time.Millisecond)
				}
			}
		})
	}
}
