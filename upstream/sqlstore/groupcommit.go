package sqlstore

import (
	"context"
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
// COMMIT returns. docs/decisions.md ("Group commit per account").

// maxGroup bounds the writes one transaction takes, so that a long queue
// is committed in steps rather than holding the lock for all of it.
const maxGroup = 64

// groupSavepoint is the savepoint every write of a group runs under: the
// writes of a group run one after another, so one name serves all.
const groupSavepoint = "group_write"

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
	fn   func(q querier) error
	done chan error // buffered: the drain never blocks on it
}

// submit runs fn as a write of account, in a group with the writes of the
// account queued beside it, and returns its own result. A write whose
// context ends while it waits leaves the queue with the context's error;
// one already taken into a transaction waits for that transaction's end,
// so that it never answers before its fate is known.
func (g *groups) submit(ctx context.Context, s *Store, account string, fn func(q querier) error) error {
	w := &groupWrite{ctx: ctx, fn: fn, done: make(chan error, 1)}
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
		s.commitGroup(group)
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

// commitGroup runs the writes of group in one transaction and delivers
// each its result. A group of one is an ordinary transaction (txOnce),
// with the write's own context, so that a lone write costs what it did
// without grouping. In a larger group each write runs under a savepoint
// with its context's values but not its cancellation: one client going
// away must not break the transaction the others share. A write whose
// client has gone before its turn is not run.
func (s *Store) commitGroup(group []*groupWrite) {
	if len(group) == 1 {
		w := group[0]
		w.done <- s.txOnce(w.ctx, w.fn)
		return
	}
	results := make([]error, len(group))
	done := make([]counted, len(group))
	ctx := context.WithoutCancel(group[0].ctx) // BEGIN, the lock and COMMIT go in its name
	q, end, err := s.begin(ctx)
	if err != nil {
		for _, w := range group {
			w.done <- err
		}
		return
	}
	var broken error // the transaction cannot go on
	for i, w := range group {
		if err := w.ctx.Err(); err != nil {
			results[i] = err
			continue
		}
		if broken != nil {
			results[i] = broken
			continue
		}
		wq := q
		wq.ev, wq.facts = &eventBuf{}, &txFacts{}
		results[i], broken = s.groupWrite(context.WithoutCancel(w.ctx), wq, w.fn)
		if results[i] == nil {
			done[i] = wq
		}
	}
	if broken == nil {
		broken = end(nil) // COMMIT: one flush for the group
	} else {
		_ = end(broken) // rolls back
	}
	for i, w := range group {
		switch {
		case results[i] != nil:
			w.done <- results[i]
		case broken != nil:
			w.done <- broken
		default:
			s.afterCommit(w.ctx, done[i])
			w.done <- nil
		}
	}
}

// groupWrite runs fn as one write of a group under the group's savepoint,
// and returns its result; broken is set when the transaction cannot go on
// (the savepoint could not be rolled back to), which fails the group.
// Statements a failed write queued but did not send are dropped with it.
func (s *Store) groupWrite(ctx context.Context, q counted, fn func(q querier) error) (result, broken error) {
	p := q.pipe
	if err := s.queue(ctx, q, stmt{sql: "SAVEPOINT " + groupSavepoint}); err != nil {
		return err, err
	}
	base, sends := len(p.pending), p.sends // BEGIN and the lock for the first write, and its SAVEPOINT
	err := s.write(ctx, q, fn)
	if err == nil {
		err = s.run(ctx, q, stmt{sql: "RELEASE " + groupSavepoint})
		if err == nil {
			return nil, nil
		}
		err = fmt.Errorf("sqlstore: write in a group: %w", err)
	}
	// What the failed write queued and did not send is dropped with it:
	// after one of its round trips all that is pending is its own; before,
	// what precedes its savepoint stays.
	if p.sends != sends {
		p.pending = nil
	} else if len(p.pending) > base {
		p.pending = p.pending[:base]
	}
	p.err = nil // the savepoint ends the failed statement's transaction state
	if rerr := s.run(ctx, q, stmt{sql: "ROLLBACK TO " + groupSavepoint}, stmt{sql: "RELEASE " + groupSavepoint}); rerr != nil {
		rerr = fmt.Errorf("sqlstore: roll back to savepoint: %w (after %w)", rerr, err)
		return err, rerr
	}
	return err, nil
}

// groupAccount returns the account whose queue a write of ctx joins, or
// false when the write is not grouped: on SQLite (one writer, and a commit
// without a flush at synchronous=NORMAL), with serializable transactions
// (retried whole), and without an account (bootstrap).
func (s *Store) groupAccount(ctx context.Context) (string, bool) {
	if s.pg == nil || s.pg.serializable || s.pg.noGroups {
		return "", false
	}
	c, ok := upstream.CallerFrom(ctx)
	if !ok || c.AccountID == "" {
		return "", false
	}
	return c.AccountID, true
}
