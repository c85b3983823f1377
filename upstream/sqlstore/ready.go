package sqlstore

import (
	"context"
	"fmt"
)

// Ready reports whether the database answers a query (SELECT 1 on a read
// connection); /readyz uses it with a short deadline. Unlike Ping it runs a
// statement, so a database that accepts connections but cannot read fails.
// On PostgreSQL it goes through the pool like any request: a replica that
// cannot get a connection to the server within the deadline (server down,
// or every connection busy) is not ready.
func (s *Store) Ready(ctx context.Context) error {
	var one int
	if err := s.r.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
		return fmt.Errorf("sqlstore: ready: %w", err)
	}
	return nil
}
