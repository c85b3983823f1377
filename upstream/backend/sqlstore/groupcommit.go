package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/okrgate/okrgate/upstream"
)

// Group commit on PostgreSQL. The writes of one account are serialised by
// the account's row lock (lockAccount), and each transaction's critical
// section ends with its commit's WAL flush, which PostgreSQL performs
// before it releases the lock: one account's writes could not commit
// faster than one flush after another. So the writes of an account that
// arrive while one of its transactions is in flight in this process wait,
// and are then applied together in the next transaction, each under a
// savepoint of its own: each is authorized and checked on what it reads
// (which includes the writes before it in the group, as it would have
// after their commits), each gets its own result, a failing one is rolled
// back to its savepoint without failing the others, and one COMMIT — one
// WAL flush — serves all of them. Nothing is acknowledged before that
// COMMIT returns. docs/decisions/writes.md ("Group commit per account").
// On SQLite the same queues feed a simpler transaction (grouplocal.go).

// maxGroup bounds the writes one transaction takes, so that a long queue
// is committed in steps rather than holding the lock for all of it.
const maxGroup = 64

// groupSavepoint is the savepoint every write of a group runs under: the
// writes of a group run one after another, so one name serves all.
const groupSavepoint = "group_write"

// runSavepoint is the savepoint of a run of check-ins applied on facts
// loaded ahead (groupShare), to which the run falls back.
const runSavepoint = "group_run"

// groups queues the writes of each account of one store.
type groups struct {
	mu       sync.Mutex
	accounts map[string]*accountQueue
	// txs and writes count the transactions drained and the writes they
	// took (writes ÷ txs is the mean group).
	txs, writes atomic.Int64
}

// accountQueue holds the writes of one account waiting for a transaction.
// While running, one goroutine (drain) takes them group by group.
type accountQueue struct {
	waiting []*groupWrite
	running bool
}

// groupWrite is one write waiting in a queue: its context and function,
// and where its result goes.
type groupWrite struct {
	ctx  context.Context
	s    *Store // the view it was written through: its options apply
	fn   func(q querier) error
	done chan error // buffered: the drain never blocks on it
	// prefetch, for a check-in, returns the statements that load its
	// facts ahead of its turn, and marks it one that leaves its path to
	// the group (groupShare); nil for other writes.
	prefetch func(q querier) []stmt
}

// submit runs fn as a write of account, in a group with the writes of the
// account queued beside it, and returns its own result. A write whose
// context ends while it waits leaves the queue with the context's error;
// one already taken into a transaction waits for that transaction's end,
// so that it never answers before its fate is known.
func (g *groups) submit(ctx context.Context, s *Store, account string, prefetch func(q querier) []stmt, fn func(q querier) error) error {
	w := &groupWrite{ctx: ctx, s: s, fn: fn, done: make(chan error, 1), prefetch: prefetch}
	g.mu.Lock()
	if g.accounts == nil {
		g.accounts = map[string]*accountQueue{}
	}
	a := g.accounts[account]
	if a == nil {
		a = &accountQueue{}
		g.accounts[account] = a
	}
	a.waiting = append(a.waiting, w)
	if !a.running {
		a.running = true
		go g.drain(s, account, a)
	}
	g.mu.Unlock()
	select {
	case err := <-w.done:
		return err
	case <-ctx.Done():
	}
	g.mu.Lock()
	for i, x := range a.waiting {
		if x == w {
			a.waiting = append(a.waiting[:i], a.waiting[i+1:]...)
			g.mu.Unlock()
			return ctx.Err()
		}
	}
	g.mu.Unlock()
	return <-w.done // taken: the transaction decides
}

// drain runs the queued writes of account, a group per transaction, until
// none is left.
func (g *groups) drain(s *Store, account string, a *accountQueue) {
	for {
		g.mu.Lock()
		n := min(len(a.waiting), maxGroup)
		if n == 0 {
			a.running = false
			delete(g.accounts, account)
			g.mu.Unlock()
			return
		}
		group := a.waiting[:n:n]
		a.waiting = a.waiting[n:]
		g.mu.Unlock()
		g.txs.Add(1)
		g.writes.Add(int64(n))
		if err := s.commitGroup(account, group); unreachable(err) {
			g.failWaiting(a, err)
		}
	}
}

// failWaiting answers the writes waiting in a with err, the failure of
// the transaction before them for an unreachable database (postgres.go):
// each would have waited for a connection as long as that one did, and
// then as long again for its own answer, past any bound a client can
// count on in a partition. None of them ran, so the answer is known: not
// applied (503 unavailable, Retry-After); a retry with its
// Idempotency-Key applies it once the database is back.
func (g *groups) failWaiting(a *accountQueue, err error) {
	g.mu.Lock()
	waiting := a.waiting
	a.waiting = nil
	g.mu.Unlock()
	for _, w := range waiting {
		w.done <- fmt.Errorf("sqlstore: not run: the write before it found the database unreachable: %w", err)
	}
}

// queued returns the number of writes of account waiting for a
// transaction (for tests).
func (g *groups) queued(account string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	if a := g.accounts[account]; a != nil {
		return len(a.waiting)
	}
	return 0
}

// groupWrite runs fn as one write of a group under the group's savepoint,
// and returns its result; its RELEASE waits for the next round trip.
// Statements a failed write queued but did not send are dropped with it,
// and its savepoint rolled back to.
//
// A check-in of a run (groupShare) takes its savepoint only if it sends
// something before it returns (pipeline.lazySavepoint): one that sends
// nothing and fails is undone by dropping what it queued, and a failure of
// its statements later makes the run fall back to the run's savepoint.
func (s *Store) groupWrite(ctx context.Context, q counted, fn func(q querier) error) error {
	p := q.pipe
	base, sends := len(p.pending), p.sends // what precedes this write: BEGIN and the lock, or the write before
	lazy := q.share != nil && q.share.ahead
	if lazy {
		p.lazySavepoint(groupSavepoint)
		defer func() { p.savepoint = "" }()
	} else if err := s.queue(ctx, q, stmt{sql: "SAVEPOINT " + groupSavepoint}); err != nil {
		return err
	}
	err := s.write(ctx, q, fn)
	if err == nil {
		if lazy && !p.savepointSent {
			return nil
		}
		return s.queue(ctx, q, stmt{sql: "RELEASE " + groupSavepoint})
	}
	if p.err != nil && p.failedWrite != p.write {
		return err // not this write's statement: the caller decides
	}
	if p.sends == sends {
		p.pending = p.pending[:base] // nothing of it was sent: nothing to undo
		return err
	}
	serverFailed := p.err != nil
	if serverFailed {
		err = p.err // the server's failure, not what the write made of it
	}
	p.pending = nil // after its first round trip all that is pending is its own
	if rerr := s.rollbackTo(ctx, q, groupSavepoint, err, serverFailed); rerr != nil {
		return fmt.Errorf("sqlstore: roll back to savepoint: %w (after %w)", rerr, err)
	}
	return err
}

// rollbackTo rolls q's transaction back to savepoint name after a write
// failed with err; serverFailed tells whether a statement of it failed on
// the server. After a decision of the rules (an upstream error, nothing
// failed on the server) the transaction is sound and the ROLLBACK TO waits
// for the next round trip; after a failure on the server the transaction
// takes no other statement until it, so it goes alone, at once.
func (s *Store) rollbackTo(ctx context.Context, q querier, name string, err error, serverFailed bool) error {
	if p := pipeOf(q); p != nil {
		p.err = nil // the savepoint ends the failed statement's transaction state
	}
	rollback, release := stmt{sql: "ROLLBACK TO " + name}, stmt{sql: "RELEASE " + name}
	var decided *upstream.Error
	if !errors.As(err, &decided) || serverFailed {
		// Alone: an aborted transaction does not even prepare another
		// statement (SQLSTATE 25P02).
		if err := s.run(ctx, q, rollback); err != nil {
			return err
		}
		return s.queue(ctx, q, release)
	}
	return s.queue(ctx, q, rollback, release)
}

// groupAccount returns the account whose queue a write of ctx joins, or
// false when the write is not grouped: with serializable transactions
// (retried whole), and without an account (bootstrap). On SQLite a commit
// flushes nothing (synchronous=NORMAL), but the writes of a group share
// their transaction and the recomputation of their check-ins' paths
// (grouplocal.go).
func (s *Store) groupAccount(ctx context.Context) (string, bool) {
	if s.pg != nil && (s.pg.serializable || s.pg.noGroups) {
		return "", false
	}
	c, ok := upstream.CallerFrom(ctx)
	if !ok || c.AccountID == "" {
		return "", false
	}
	return c.AccountID, true
}
