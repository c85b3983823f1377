package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/fnv"
	mathrand "math/rand/v2"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	"github.com/okrgate/okrgate/upstream"
)

// PostgreSQL: the store shared by several okrgate replicas. The statements
// are the SQLite ones through the dialect seam (dialect_postgres.go); what
// differs beyond SQL is here: one pgxpool serving reads and writes, session
// settings that bound statements, and the lock that makes concurrent
// writers safe (lockAccount).

// Pool and session defaults, each overridable in the URL (pgxpool's
// pool_max_conns, pool_min_conns, ...; PostgreSQL's statement_timeout,
// lock_timeout, idle_in_transaction_session_timeout, jit as query
// parameters).
const (
	// defaultMaxConns is a replica's pool size: enough to keep a
	// PostgreSQL server busy from one replica, small enough that ten
	// replicas stay within the server's default max_connections (100).
	defaultMaxConns = 8
	// defaultStatementTimeout ends a statement that runs away (a filter
	// that scans a huge account) instead of holding a connection.
	defaultStatementTimeout = "30s"
	// defaultIdleInTx ends a transaction its client forgot, releasing
	// its locks.
	defaultIdleInTx = "60s"
	// defaultJIT turns PostgreSQL's JIT compilation off. It pays off for
	// long analytical scans; okrgate's statements take milliseconds, and
	// compiling one whose estimated cost crosses jit_above_cost (a long
	// $in list, a large account's tree) can take longer than running it
	// — seconds on a busy server, each time the plan is made.
	defaultJIT = "off"
)

// ErrBackupPostgres is Backup's answer on PostgreSQL: the database server
// has its own tool for consistent copies.
var ErrBackupPostgres = errors.New("sqlstore: backup copies a SQLite file; for PostgreSQL use pg_dump " +
	"(pg_dump --format=custom --file=okrgate.dump \"$DATABASE_URL\"; restore with pg_restore --dbname=...)")

// IsPostgres reports whether dsn names a PostgreSQL database (a
// postgres:// or postgresql:// URL) rather than a SQLite file.
func IsPostgres(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// pgStore is what a Store on PostgreSQL holds beyond the *sql.DB.
type pgStore struct {
	pool *pgxpool.Pool
	// serializable selects the other way to make concurrent writers
	// safe, kept to measure it against lockAccount (docs/decisions/storage.md):
	// SERIALIZABLE transactions, retried on serialization failures.
	serializable bool
	retries      atomic.Int64 // attempts retried after a serialization failure or deadlock
	reconnects   atomic.Int64 // writes run again after their connection was lost
	listen       pgListener   // LISTEN for other replicas' events (listen_postgres.go)
	// noGroups turns group commit (groupcommit.go) off, to measure it.
	noGroups bool
	// bulkWrites counts the writes of Bulk batches committed, and
	// analyzedAt their number at the last ANALYZE (analyzeAfterBulk).
	bulkWrites, analyzedAt atomic.Int64
	// acquireTimeouts counts the waits for a connection that ran past
	// Deadlines.Acquire (deadlines.go).
	acquireTimeouts atomic.Int64
	// citus is set when the database runs Citus (tables distributed by
	// account), at Open.
	citus bool
	// ready is the connection of the readiness checks (ready.go).
	ready readyConn
}

// maxAttempts bounds the attempts of a serializable write.
const maxAttempts = 100

// txOptions are the options of a transaction of its own (idempotency
// keys): nil (READ COMMITTED, made safe by lock) unless serializable. A nil
// p is SQLite.
func (p *pgStore) txOptions() *sql.TxOptions {
	if p == nil || !p.serializable {
		return nil
	}
	return &sql.TxOptions{Isolation: sql.LevelSerializable}
}

// lock takes the write transaction's lock (lockAccount), unless
// serializable.
func (p *pgStore) lock(ctx context.Context, q querier) error {
	if p.serializable {
		return nil
	}
	return lockAccount(ctx, q)
}

// prologue returns the first statements of a write transaction, sent with
// its first round trip: BEGIN and, unless serializable, the lock of the
// caller's account (lockAccount).
func (p *pgStore) prologue(ctx context.Context) []stmt {
	if p.serializable {
		return []stmt{{sql: "BEGIN ISOLATION LEVEL SERIALIZABLE"}}
	}
	out := []stmt{{sql: "BEGIN"}}
	if c, ok := upstream.CallerFrom(ctx); ok && c.AccountID != "" {
		out = append(out, stmt{sql: lockAccountSQL, args: []any{c.AccountID}})
	}
	return out
}

// retry runs attempt, a write transaction, and runs it again when it
// failed in a way that left nothing committed and may pass on another try:
//
//   - a serialization failure or deadlock (SQLSTATE 40001, 40P01), after a
//     random pause that grows with each attempt: up to maxAttempts times
//     with serializable, maxContention under lockAccount (where only a
//     deadlock across accounts can cause one);
//   - the loss of its connection before its COMMIT was sent
//     (connectionLost: a pooled connection the database had closed, as a
//     restart or pg_terminate_backend leaves them): once, at once, on
//     another connection.
//
// A COMMIT whose answer was lost is never retried: it is outcome_unknown
// (commitFailed).
func (p *pgStore) retry(ctx context.Context, attempt func() error) error {
	reconnected := false
	for n := 1; ; n++ {
		err := attempt()
		switch {
		case err == nil:
			return nil
		case retryable(err) && n < p.maxContention():
			p.retries.Add(1)
			pause := time.Duration(mathrand.Int64N(int64(time.Millisecond) << min(n, 6)))
			select {
			case <-ctx.Done():
				return err
			case <-time.After(pause):
			}
		case !reconnected && connectionLost(ctx, err):
			reconnected = true
			p.reconnects.Add(1)
		default:
			return err
		}
	}
}

// maxContention is the most attempts of a write that serialization
// failures or deadlocks abort.
func (p *pgStore) maxContention() int {
	if p.serializable {
		return maxAttempts
	}
	return maxDeadlockAttempts
}

// maxDeadlockAttempts bounds the attempts of a write under lockAccount
// that deadlocks abort.
const maxDeadlockAttempts = 5

// retryable reports whether err is a serialization failure or a deadlock,
// after which the transaction may succeed when run again.
func retryable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40001" || pe.Code == "40P01")
}

// abortedTx reports whether err is PostgreSQL's refusal of a statement in
// a transaction an earlier statement aborted (25P02).
func abortedTx(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "25P02"
}

// connectionLost reports whether err, the failure of a write transaction
// whose context is still live, is the loss of an open connection before
// the transaction's COMMIT was sent: the server then rolled it back, and
// running it again on another connection applies it once. Not a failure
// to connect (the database is down: another try fails alike), not an
// *upstream.Error (outcome_unknown: the COMMIT went out; an acquire
// timeout; a rule's decision), not a statement's error on a live session,
// and not a connection the kernel ended because the database stopped
// acknowledging what was sent (unreachable: Deadlines.TCP ran out, a
// partition), after which another try would wait as long again.
func connectionLost(ctx context.Context, err error) bool {
	if err == nil || ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return false
	}
	if unreachable(err) {
		return false
	}
	if _, ok := errors.AsType[*upstream.Error](err); ok {
		return false
	}
	if _, ok := errors.AsType[*pgconn.ConnectError](err); ok {
		return false
	}
	if pe, ok := errors.AsType[*pgconn.PgError](err); ok {
		// The server ended the session (admin_shutdown and the like):
		// its transaction is gone with it.
		return pe.Severity == "FATAL" || pe.Severity == "PANIC"
	}
	e := upstream.Classify(err)
	return e != nil && e.Code == upstream.CodeDatabaseUnavailable
}

// unreachable reports whether err says the database cannot be reached
// now, rather than that a connection was closed: a connection the kernel
// ended for want of acknowledgements (ETIMEDOUT: TCP_USER_TIMEOUT or the
// keepalive probes, deadlines.go), a connect that failed, no connection
// free within the acquire deadline. A write behind one that failed so
// would wait as long for the same answer.
func unreachable(err error) bool {
	if errors.Is(err, syscall.ETIMEDOUT) {
		return true
	}
	if _, ok := errors.AsType[*pgconn.ConnectError](err); ok {
		return true
	}
	e, ok := errors.AsType[*upstream.Error](err)
	return ok && e.Code == upstream.CodeDatabaseUnavailable && errors.Is(e, errAcquireTimeout)
}

func (p *pgStore) close(s *Store) error {
	p.listen.stop()
	p.ready.close()
	err := s.w.Close()
	p.pool.Close()
	return err
}

// openPostgres opens the store on the PostgreSQL database of dsn and
// migrates it.
func openPostgres(ctx context.Context, dsn string, opts []Option) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: postgres URL: %w", err)
	}
	if !strings.Contains(dsn, "pool_max_conns=") {
		cfg.MaxConns = defaultMaxConns
	}
	deadlines := deadlinesOf(opts) // deadlines.go
	if !strings.Contains(dsn, "connect_timeout=") {
		cfg.ConnConfig.ConnectTimeout = deadlines.Connect
	}
	cfg.ConnConfig.DialFunc = deadlines.dialer()
	params := cfg.ConnConfig.RuntimeParams
	for k, v := range map[string]string{
		"statement_timeout":                   defaultStatementTimeout,
		"idle_in_transaction_session_timeout": defaultIdleInTx,
		"jit":                                 defaultJIT,
	} {
		if _, ok := params[k]; !ok {
			params[k] = v
		}
	}
	if _, ok := params["application_name"]; !ok {
		params["application_name"] = "okrgate"
	}
	// A statement whose context ends is cancelled on the server (a
	// cancel request), so that a read deadline stops the work. pgx's
	// default only sets a deadline on the socket: the call returns, the
	// connection is dropped, and the server runs the statement on until
	// statement_timeout. The socket deadline stays as the fallback a
	// second later, for a server that does not answer the cancel.
	cfg.ConnConfig.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: c, DeadlineDelay: time.Second}
	}
	cfg.ShouldPing = shouldPing // liveness.go
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: postgres: %w", err)
	}
	pg := &pgStore{pool: pool}
	// database/sql keeps no idle connections of its own: the pgxpool
	// does (stdlib.OpenDBFromPool).
	db := sql.OpenDB(acquireConnector{Connector: stdlib.GetPoolConnector(pool), timeout: deadlines.Acquire, timeouts: &pg.acquireTimeouts})
	db.SetMaxIdleConns(0)
	s := &Store{core: &core{path: dsn, w: db, r: db, ids: upstream.NewIDSource(), now: time.Now,
		tokens: upstream.DefaultTokenPolicy(), d: postgresDialect{}, pg: pg, deadlines: deadlines}}
	for _, o := range opts {
		o(s)
	}
	fail := func(err error) (*Store, error) {
		db.Close()
		pool.Close()
		return nil, err
	}
	if err := db.PingContext(ctx); err != nil {
		return fail(fmt.Errorf("sqlstore: postgres: %w", redactDSN(err, dsn)))
	}
	if err := s.migrate(ctx); err != nil {
		return fail(err)
	}
	id, err := migrationLockID(ctx, db)
	if err != nil {
		return fail(err)
	}
	if err := s.pg.distribute(ctx, db, id); err != nil {
		return fail(err)
	}
	return s, nil
}

// migrationOptions makes goose migrate PostgreSQL under an advisory lock,
// so that replicas starting at once on a new database do not run the same
// migration twice: one migrates, the others wait and find nothing to do.
// The lock is per schema (tests run schemas side by side in one database).
func (p *pgStore) migrationOptions(ctx context.Context, db *sql.DB) (goose.Dialect, []goose.ProviderOption, error) {
	id, err := migrationLockID(ctx, db)
	if err != nil {
		return "", nil, err
	}
	locker, err := lock.NewPostgresSessionLocker(lock.WithLockID(id), lock.WithLockTimeout(1, 300))
	if err != nil {
		return "", nil, fmt.Errorf("sqlstore: migrations: %w", err)
	}
	return goose.DialectPostgres, []goose.ProviderOption{goose.WithSessionLocker(locker)}, nil
}

// migrationLockID returns the id of the advisory lock that migrations of
// the current schema take (tests run schemas side by side in one database).
func migrationLockID(ctx context.Context, db *sql.DB) (int64, error) {
	var schema string
	if err := db.QueryRowContext(ctx, "SELECT current_schema()").Scan(&schema); err != nil {
		return 0, fmt.Errorf("sqlstore: migrations: %w", err)
	}
	h := fnv.New64a()
	h.Write([]byte("okrgate migrations " + schema))
	return int64(h.Sum64() >> 1), nil
}

// redactDSN keeps a password in dsn out of an error message.
func redactDSN(err error, dsn string) error {
	cfg, perr := pgxpool.ParseConfig(dsn)
	if perr != nil || cfg.ConnConfig.Password == "" || !strings.Contains(err.Error(), cfg.ConnConfig.Password) {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), cfg.ConnConfig.Password, "xxxxx"))
}

// lockAccount serialises the writes of one account across connections and
// replicas: the first statement of every write transaction on PostgreSQL
// locks the account's row (SELECT … FOR UPDATE). A write then reads the
// goal tree as the previous write of the account left it, so recomputing a
// path (tree.go) never works from stale children, and the checks that read
// before they write (an email is free, a limit not reached) hold until
// commit. Writes of different accounts do not wait for each other. One lock
// per transaction needs no ordering to be free of deadlocks.
// docs/decisions/storage.md ("Concurrent writers on PostgreSQL") has the
// measurement against SERIALIZABLE with retries.
func lockAccount(ctx context.Context, q querier) error {
	c, ok := upstream.CallerFrom(ctx)
	if !ok || c.AccountID == "" {
		return nil // bootstrap: a new account, nobody else writes it yet
	}
	var id string
	err := q.QueryRowContext(ctx, lockAccountSQL, c.AccountID).Scan(&id)
	if err != nil && !isNoRows(err) {
		return fmt.Errorf("sqlstore: lock account: %w", err)
	}
	return nil
}

// lockAccountSQL locks an account's row (parameter: the account).
const lockAccountSQL = "SELECT id FROM accounts WHERE id = ? FOR UPDATE"
