package sqlstore

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// Ready reports whether the database answers a query (SELECT 1); /readyz
// uses it with a short deadline. Unlike Ping it runs a statement, so a
// database that accepts connections but cannot read fails. On SQLite it
// runs on a read connection. On PostgreSQL it runs on a connection of its
// own, outside the pool (readyConn): a pool whose connections are all busy
// — writes waiting on a slow database — serves, slowly, and a replica
// that says it is not ready then is taken out of its load balancer for
// being slow; pool exhaustion has its own metric and alert
// (okrgate_db_pool_acquire_timeouts_total). What the check tells is
// whether the server can be reached and answers now.
func (s *Store) Ready(ctx context.Context) error {
	if s.pg != nil {
		return s.pg.ready.check(ctx, s.pg.pool.Config().ConnConfig)
	}
	var one int
	if err := s.r.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
		return fmt.Errorf("sqlstore: ready: %w", err)
	}
	return nil
}

// readyConn is the connection the readiness checks run on, opened at the
// first check and again after a failed one (which closes it: it may be
// the connection, not the server, that broke).
type readyConn struct {
	mu   sync.Mutex // one check at a time
	conn *pgx.Conn
}

// check runs SELECT 1 on the connection, opened with cfg when there is
// none.
func (r *readyConn) check(ctx context.Context, cfg *pgx.ConnConfig) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.conn == nil {
		conn, err := pgx.ConnectConfig(ctx, cfg)
		if err != nil {
			return fmt.Errorf("sqlstore: ready: %w", err)
		}
		r.conn = conn
	}
	var one int
	if err := r.conn.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil {
		r.closeLocked()
		return fmt.Errorf("sqlstore: ready: %w", err)
	}
	return nil
}

// close closes the connection, if open.
func (r *readyConn) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closeLocked()
}

func (r *readyConn) closeLocked() {
	if r.conn != nil {
		// Bounded by the connection's own deadlines: a close sends a
		// Terminate message, which a partition does not let through.
		ctx, cancel := context.WithTimeout(context.Background(), readyCloseWait)
		defer cancel()
		_ = r.conn.Close(ctx)
		r.conn = nil
	}
}

// readyCloseWait bounds closing the readiness connection.
const readyCloseWait = time.Second
