// Package sqlstore implements upstream.API on SQL: an embedded SQLite file
// by default, or a PostgreSQL database shared by several processes
// (postgres.go); the SQL that differs between them goes through a small
// dialect seam (dialect.go). Each resource is a JSON document plus the keys
// that lists and dataloaders filter by in indexed columns; every query is
// scoped to the caller's account, and every write that changes derived
// figures recomputes them in the same transaction.
package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pressly/goose/v3"
	"modernc.org/sqlite"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/infra/observe"
	"github.com/okrgate/okrgate/upstream/query"
)

//go:embed migrations/sqlite/*.sql migrations/postgres/*.sql
var migrations embed.FS

// Store is the SQL implementation of upstream.API. It is safe for concurrent
// use. Writes go through a single connection in IMMEDIATE transactions, so
// they never fail on a lock upgrade; reads use a pool of read-only
// connections that WAL lets run beside the writer. On PostgreSQL one pool
// serves both, and each write first locks its account's row (lockAccount).
//
// A Store value is a view of its database: the Store Open returns, a view
// whose writes carry a request's options (Writing), or one whose writes
// join a Bulk batch. Views share everything but those two fields.
type Store struct {
	*core
	// opts are the options the writes of this view apply (Writing):
	// If-Match (etag.go) and Idempotency-Key (idempotency.go).
	opts upstream.WriteOptions
	// bulk is the Bulk batch this view's writes join, or nil (bulk.go).
	bulk *bulkTx
}

// core is what every view of one database shares.
type core struct {
	path    string // the database file
	w, r    *sql.DB
	ids     *upstream.IDSource
	now     func() time.Time
	queries atomic.Int64
	// roundTrips counts the waits for the database: each statement run
	// alone, each batch (pipeline.go), each commit.
	roundTrips atomic.Int64
	// trace, when set (by the package's own tests, before any use), sees
	// every statement the store runs through its queriers, reads and
	// writes, with its arguments.
	trace  func(stmt string, args []any)
	tokens upstream.TokenPolicy // lifetimes of new tokens (tokens.go)
	stmts  stmtCache            // statements prepared on w
	d      dialect              // the SQL that differs between databases
	pg     *pgStore             // PostgreSQL's pool and settings; nil on SQLite
	// changed wakes event readers after a commit that appended events.
	changed signal
	// webhookPolicy checks webhook target URLs (webhooks.go).
	webhookPolicy upstream.WebhookTargetPolicy
	// deadlines bound the waits for PostgreSQL (deadlines.go).
	deadlines Deadlines
	// groups queues each account's concurrent writes for group commit
	// (groupcommit.go).
	groups groups
}

var _ upstream.API = (*Store)(nil)

// Option configures a Store.
type Option func(*Store)

// WithClock makes the store read the time from now (tests pin it).
func WithClock(now func() time.Time) Option { return func(s *Store) { s.now = now } }

// WithStatementObserver makes the store call fn with the text (as the
// database runs it, PostgreSQL's spelling on PostgreSQL) and arguments of
// every statement it runs through its queriers, reads and writes alike,
// before running it. It
// is for tests and diagnostics (the account-scope check of
// sqlstoretest.ScopeChecker); fn must be safe for concurrent use and must
// not keep args.
func WithStatementObserver(fn func(stmt string, args []any)) Option {
	return func(s *Store) { s.trace = fn }
}

// Open opens the database named by path and migrates it to the current
// schema: PostgreSQL when path is a postgres:// or postgresql:// URL
// (postgres.go), else the SQLite file at path, created if needed.
func Open(ctx context.Context, path string, opts ...Option) (*Store, error) {
	if IsPostgres(path) {
		return openPostgres(ctx, path, opts)
	}
	registerFunctions()
	if path == "" {
		return nil, errors.New("sqlstore: empty database path")
	}
	if strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("sqlstore: database path %q must not contain ? or #", path)
	}
	base := path
	common := "_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)"
	w, err := sql.Open("sqlite", base+"?"+common+"&_pragma=journal_mode(WAL)&_txlock=immediate")
	if err != nil {
		return nil, fmt.Errorf("sqlstore: open %s: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxIdleTime(0)
	s := &Store{core: &core{path: path, w: w, ids: upstream.NewIDSource(), now: time.Now, tokens: upstream.DefaultTokenPolicy(), d: sqliteDialect{}}}
	for _, o := range opts {
		o(s)
	}
	if err := s.migrate(ctx); err != nil {
		w.Close()
		return nil, err
	}
	if err := s.plannerStats(ctx); err != nil {
		w.Close()
		return nil, err
	}
	if err := s.prepareWritePath(ctx); err != nil {
		w.Close()
		return nil, err
	}
	r, err := sql.Open("sqlite", base+"?"+common+"&_pragma=query_only(1)&_pragma=cache_size(-"+strconv.Itoa(readerCacheKiB)+")")
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("sqlstore: open %s for reading: %w", path, err)
	}
	r.SetMaxOpenConns(8)
	r.SetMaxIdleConns(8)
	if err := r.PingContext(ctx); err != nil {
		w.Close()
		r.Close()
		return nil, fmt.Errorf("sqlstore: ping %s: %w", path, err)
	}
	s.r = r
	if err := s.prepareReadPath(ctx); err != nil {
		w.Close()
		r.Close()
		return nil, err
	}
	return s, nil
}

// readerCacheKiB is the page cache of each reader connection, in KiB
// (cache_size(-N)): 512 KiB instead of SQLite's default 2 MiB. In WAL mode a reader discards its whole cache
// when the database changed since its last read, so on a server that writes
// the cache rarely outlives a request; within one it holds the indexes'
// inner pages, while a large level's rows pass through it once. Eight
// readers at 2 MiB each held up to 16 MiB: eight concurrent
// 10,000-objective trees peaked 12% lower with it (docs/decisions/tree-memory.md, "A
// reader's page cache of 512 KiB").
const readerCacheKiB = 512

// migrate brings the database to the current schema with the dialect's own
// migrations (migrations/sqlite, migrations/postgres).
func (s *Store) migrate(ctx context.Context) error {
	sub, err := fs.Sub(migrations, "migrations/"+s.d.name())
	if err != nil {
		return fmt.Errorf("sqlstore: migrations: %w", err)
	}
	gd, opts := goose.DialectSQLite3, []goose.ProviderOption(nil)
	if s.pg != nil {
		if gd, opts, err = s.pg.migrationOptions(ctx, s.w); err != nil {
			return err
		}
	}
	p, err := goose.NewProvider(gd, s.w, sub, opts...)
	if err != nil {
		return fmt.Errorf("sqlstore: migrations: %w", err)
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("sqlstore: migrate: %w", err)
	}
	return nil
}

// Close closes the database.
func (s *Store) Close() error {
	if s.pg != nil {
		return s.pg.close(s)
	}
	return errors.Join(s.r.Close(), s.w.Close())
}

// Ping reports whether the database answers; /healthz uses it.
func (s *Store) Ping(ctx context.Context) error {
	return s.r.PingContext(ctx)
}

// Backup writes a consistent copy of the database to path (which must not
// exist) while the store keeps serving: a copy of the file itself is not
// safe while a WAL database is in use. The copy is compacted and needs no
// -wal file.
func (s *Store) Backup(ctx context.Context, path string) error {
	if s.pg != nil {
		return ErrBackupPostgres
	}
	if _, err := os.Stat(path); err == nil {
		return fmt.Errorf("sqlstore: backup: %s already exists", path)
	}
	// A connection of its own: the readers are query-only, and the writer
	// must stay free for writes while the copy is made.
	db, err := sql.Open("sqlite", s.path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return fmt.Errorf("sqlstore: backup: %w", err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "VACUUM INTO ?", path); err != nil {
		os.Remove(path) // what a failed copy left behind; path did not exist before
		return fmt.Errorf("sqlstore: backup to %s: %w", path, err)
	}
	return nil
}

// QueryCount returns the number of SQL statements the store has run, so
// batching can be checked from outside (tests, /metrics).
func (s *Store) QueryCount() int64 { return s.queries.Load() }

// RoundTripCount returns the number of round trips the store has made to
// its database: every statement run on its own, every batch of statements
// sent together (PostgreSQL's write path, pipeline.go) and every commit.
func (s *Store) RoundTripCount() int64 { return s.roundTrips.Load() }

// querier is what both *sql.DB and *sql.Tx offer.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// counted wraps a querier and counts its statements.
type counted struct {
	q     querier
	d     dialect // rewrites each statement for the database
	n     *atomic.Int64
	rt    *atomic.Int64                 // Store.roundTrips
	tx    bool                          // q is a write transaction
	ev    *eventBuf                     // the events of the write transaction
	trace func(stmt string, args []any) // Store.trace
	pipe  *pipeline                     // the write transaction on PostgreSQL (pipeline.go)
	facts *txFacts                      // what the write transaction derived once
	share *groupShare                   // what a check-in shares with its group (groupcommit.go), or nil
}

func (c counted) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	c.flush(ctx)
	c.count(q, args)
	ctx, span := statement(ctx, q)
	res, err := c.q.ExecContext(ctx, c.d.rebind(q), args...)
	endStatement(span, err)
	return res, err
}

func (c counted) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	c.flush(ctx)
	c.count(q, args)
	ctx, span := statement(ctx, q)
	rows, err := c.q.QueryContext(ctx, c.d.rebind(q), args...)
	endStatement(span, err)
	return rows, err
}

func (c counted) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	c.flush(ctx)
	c.count(q, args)
	ctx, span := statement(ctx, q)
	row := c.q.QueryRowContext(ctx, c.d.rebind(q), args...)
	endStatement(span, row.Err())
	return row
}

func (c counted) count(q string, args []any) {
	c.n.Add(1)
	if c.rt != nil {
		c.rt.Add(1)
	}
	if c.trace != nil {
		c.trace(c.d.rebind(q), args) // the text the database runs
	}
}

// read returns the querier for reads.
func (s *Store) read() querier {
	return counted{q: s.r, d: s.d, n: &s.queries, rt: &s.roundTrips, trace: s.trace}
}

// tx runs fn in one write transaction, committing when fn returns nil and
// rolling back otherwise, so a failed write leaves nothing behind.
func (s *Store) tx(ctx context.Context, fn func(q querier) error) error {
	return s.txAs(ctx, nil, fn)
}

// checkInTx is tx for a check-in, whose facts prefetch loads: in a group
// transaction on PostgreSQL they may be loaded ahead of its turn, with
// those of the check-ins beside it, and it leaves the recomputation of its
// path to the group (groupshare.go).
func (s *Store) checkInTx(ctx context.Context, prefetch func(q querier) []stmt, fn func(q querier) error) error {
	return s.txAs(ctx, prefetch, fn)
}

// txAs is tx, with a check-in's prefetch (or nil).
func (s *Store) txAs(ctx context.Context, prefetch func(q querier) []stmt, fn func(q querier) error) error {
	if err := upstream.CheckWrite(ctx); err != nil {
		return err // a read-only token never opens a write transaction
	}
	fn = movesVersion(ctx, fn) // events.go
	if ok, err := s.inBulk(ctx, fn); ok {
		return err
	}
	ctx, cancel := s.writeDeadline(ctx) // deadlines.go
	defer cancel()
	if account, ok := s.groupAccount(ctx); ok {
		return s.groups.submit(ctx, s, account, prefetch, fn) // groupcommit.go
	}
	if s.pg != nil {
		return s.pg.retry(ctx, func() error { return s.txOnce(ctx, fn) }) // postgres.go
	}
	return s.txOnce(ctx, fn)
}

// txOnce is one attempt at tx.
func (s *Store) txOnce(ctx context.Context, fn func(q querier) error) error {
	q, end, err := s.begin(ctx)
	if err != nil {
		return err
	}
	if err = end(s.write(ctx, q, fn)); err != nil {
		return err
	}
	s.afterCommit(ctx, q)
	return nil
}

// write runs fn as one write of the transaction q, with what every write
// does around it: its preconditions and idempotency key, and its events.
func (s *Store) write(ctx context.Context, q counted, fn func(q querier) error) error {
	before, err := s.beforeWrite(ctx, q) // If-Match and Idempotency-Key: etag.go
	if err == nil {
		err = fn(q)
	}
	if err == nil && !q.share.keepEvents(q.ev) { // a run of check-ins appends them together (groupshare.go)
		err = s.appendEvents(ctx, q, q.ev) // the outbox: events.go
	}
	if err == nil {
		err = s.afterWrite(ctx, q, before)
	}
	if p := q.pipe; err != nil && p != nil && p.err != nil && abortedTx(err) {
		// A statement sent after the pipeline's failed batch (its flush
		// keeps the error for the transaction's end) was refused for
		// the transaction the batch aborted: the batch's error is the
		// write's, a deadlock say, which a retry may pass.
		err = p.err
	}
	return err
}

// afterCommit is what follows the commit of a write made through q.
func (s *Store) afterCommit(ctx context.Context, q counted) {
	s.committed()
	if len(q.ev.events) > 0 {
		s.changed.notify()
	}
	if m := upstream.MemoFrom(ctx); m != nil {
		m.Clear() // the write may have changed what the memo holds
	}
}

// begin opens a write transaction. end commits it when given nil and rolls
// it back otherwise, returning the error that ended it. On PostgreSQL BEGIN
// and the account's lock (lockAccount) wait for the write's first round
// trip, and COMMIT goes with its last (pipeline.go).
func (s *Store) begin(ctx context.Context) (counted, func(error) error, error) {
	rec := observe.FromContext(ctx)
	q := counted{d: s.d, n: &s.queries, rt: &s.roundTrips, tx: true, ev: &eventBuf{}, trace: s.trace, facts: &txFacts{}}
	if s.pg == nil {
		t, err := s.w.BeginTx(ctx, nil)
		if err != nil {
			return q, nil, fmt.Errorf("sqlstore: begin: %w", err)
		}
		s.queries.Add(1) // BEGIN
		s.roundTrips.Add(1)
		rec.AddSQLStatement()
		rec.AddSQLRoundTrip()
		q.q = t
		return q, func(err error) error {
			if err != nil {
				_ = t.Rollback()
				return err
			}
			s.roundTrips.Add(1)
			rec.AddSQLRoundTrip()
			if err := t.Commit(); err != nil {
				return fmt.Errorf("sqlstore: commit: %w", err)
			}
			return nil
		}, nil
	}
	conn, err := s.w.Conn(ctx)
	if err != nil {
		return q, nil, fmt.Errorf("sqlstore: begin: %w", err)
	}
	p := &pipeline{s: s, conn: conn, pending: s.pg.prologue(ctx)}
	q.q, q.pipe = conn, p
	return q, func(err error) error {
		defer conn.Close()
		if err == nil {
			if err = p.send(ctx, []stmt{{sql: "COMMIT", commit: true}}); err != nil {
				err = commitFailed(err) // deadlines.go: the outcome may be unknown
			}
		}
		if err != nil {
			p.rollback()
		}
		return err
	}, nil
}

func (s *Store) timestamp() string { return upstream.FormatTime(s.now()) }

var registerOnce sync.Once

// registerFunctions adds regexp(pattern, value) to the SQLite driver for the
// filter language's $regex, with the query package's semantics (Go RE2).
// Registration is process-wide in the driver, hence the Once.
func registerFunctions() {
	registerOnce.Do(func() {
		var re query.RegexpFunc
		sqlite.MustRegisterDeterministicScalarFunction("regexp", 2, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
			return re.Call(args)
		})
	})
}
