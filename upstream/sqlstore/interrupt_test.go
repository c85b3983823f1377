package sqlstore

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/okrgate/okrgate/upstream/sqlstore/internal/testdb"
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
	stmts := map[string]string{
		"unbounded count": `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c`,
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
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Fatalf("an unbounded statement past its deadline ended with %v, want context.DeadlineExceeded", err)
				}
			case <-time.After(60 * time.Second): // bounds a failure; asserts no timing
				t.Fatal("an unbounded statement was not stopped at its deadline")
			}
		})
	}
}
