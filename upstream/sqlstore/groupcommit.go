package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
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
		s.commitGroup(account, group)
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
//
// A write's statements that return nothing it needs, and its RELEASE, go
// with the next write's first round trip, so that a write of a group costs
// about one round trip. When they fail there, the failure is the earlier
// write's: it is rolled back to its savepoint (still open: the RELEASE was
// skipped with the rest of that round trip) and the later write, none of
// whose statements ran, runs again from its start. The last write's are
// sent on their own before the COMMIT, for the same reason.
//
// Check-ins side by side in a group share what does not change between
// them (groupShare): the caller's subject, and the recomputation of the
// paths they change, which runs once for all of them — before the next
// write that is not a check-in, and before the COMMIT — rather than once
// per check-in. That recomputation is the group's own: a failure of its
// statements fails the transaction.
func (s *Store) commitGroup(account string, group []*groupWrite) {
	if len(group) == 1 {
		w := group[0]
		w.done <- w.s.txOnce(w.ctx, w.fn)
		return
	}
	results := make([]error, len(group))
	done := make([]*counted, len(group))
	ctx := context.WithoutCancel(group[0].ctx) // BEGIN, the lock and COMMIT go in its name
	q, end, err := s.begin(ctx)
	if err != nil {
		for _, w := range group {
			w.done <- err
		}
		return
	}
	p := q.pipe
	var broken error // the transaction cannot go on
	open := -1       // the write whose statements and RELEASE are queued, not sent
	share := &groupShare{}
	run := groupRun{first: -1} // the run of check-ins applied on facts loaded ahead
	slowTo := -1               // writes up to it load their own facts (their run fell back)
	// Write numbers (pipeline.write) of the group's own statements: the
	// recomputation of paths, and a run's savepoint and facts.
	foldWrite, runWrite := len(group)+1, len(group)+2
	// undo rolls the open write back to its savepoint after its queued
	// statements failed with err.
	undo := func(wctx context.Context, err error) {
		results[open], done[open] = fmt.Errorf("sqlstore: write in a group: %w", err), nil
		open = -1
		p.pending = nil
		if rerr := s.rollbackTo(wctx, q, groupSavepoint, err, true); rerr != nil {
			broken = rerr
		}
	}
	// inRun reports whether the failed statement of write n is the run's.
	inRun := func(n int) bool {
		return run.first >= 0 && (n == runWrite || n > run.first && n <= run.end)
	}
	// fallBack rolls the run back to its savepoint after one of its
	// statements failed, and returns the write from which the loop goes
	// on: the run's first, whose writes then run again one by one, each
	// loading its own facts, as a group without runs would.
	fallBack := func() int {
		first := run.first
		p.err, p.pending, p.write = nil, nil, runWrite
		for k := first; k < run.end; k++ {
			results[k], done[k] = nil, nil
		}
		slowTo, open, run = run.end-1, -1, groupRun{first: -1}
		share.leaveRun()
		if err := s.run(ctx, q, stmt{sql: "ROLLBACK TO " + runSavepoint}); err != nil {
			broken = err
		} else {
			broken = s.queue(ctx, q, stmt{sql: "RELEASE " + runSavepoint})
		}
		return first
	}
	// startRun begins a run at write i when two or more check-ins are
	// side by side there: under a savepoint of its own, it loads the facts
	// of all of them in one round trip, with the open write's statements.
	startRun := func(i int) {
		end := i
		for end < len(group) && group[end].prefetch != nil {
			end++
		}
		if i <= slowTo || end-i < 2 {
			return
		}
		for broken == nil {
			p.write = runWrite
			share.enterRun()
			rq := q
			rq.facts, rq.share = share.txFacts(), share
			stmts := []stmt{{sql: "SAVEPOINT " + runSavepoint}}
			for _, w := range group[i:end] {
				if w.ctx.Err() == nil {
					stmts = append(stmts, w.prefetch(rq)...)
				}
			}
			run = groupRun{first: i, end: end}
			err := s.run(ctx, q, stmts...)
			switch {
			case err == nil:
				open = -1 // its statements went with the facts
				return
			case open >= 0 && p.failedWrite == open+1:
				run = groupRun{first: -1}
				undo(ctx, err) // and load the facts again
			case p.failedWrite == runWrite:
				fallBack() // the run's writes load their own facts
				return
			default:
				broken = err
				return
			}
		}
	}
	// foldPaths recomputes the paths the check-ins before it left to the
	// group, as a write numbered after the group's writes, and ends the
	// run if there is one. When its first round trip fails on the open
	// write's statements, that write is undone and the paths recomputed
	// again; on a run's statements, the run falls back (the index the loop
	// goes on from is returned; else -1); any other failure ends the
	// transaction.
	foldPaths := func() int {
		for broken == nil && (len(share.goals) > 0 || len(share.events) > 0) {
			fq := q
			fq.ev, fq.facts = &eventBuf{events: slices.Clone(share.events)}, &txFacts{}
			p.write = foldWrite
			sends := p.sends
			var err error
			if len(share.goals) > 0 {
				err = s.recompute(ctx, fq, account, share.goals...)
			}
			if err == nil {
				err = s.appendEvents(ctx, fq, fq.ev)
			}
			if err != nil && p.err != nil && inRun(p.failedWrite) {
				return fallBack()
			}
			if err != nil && p.err != nil && open >= 0 && p.failedWrite == open+1 {
				undo(ctx, p.err)
				continue
			}
			if err != nil {
				broken = err
				return -1
			}
			if p.sends > sends {
				open = -1 // its statements went with the paths' facts
			}
			share.goals, share.events = nil, nil
		}
		if run.first >= 0 && broken == nil {
			p.write = runWrite
			broken = s.queue(ctx, q, stmt{sql: "RELEASE " + runSavepoint})
			run = groupRun{first: -1}
			share.leaveRun()
		}
		return -1
	}
	for i := 0; i <= len(group) && broken == nil; i++ {
		if i == len(group) || group[i].prefetch == nil {
			if again := foldPaths(); again >= 0 {
				i = again - 1
				continue
			}
			if i == len(group) || broken != nil {
				break
			}
			share.facts = nil // the write may change what a subject is derived from
		} else if run.first < 0 {
			if startRun(i); broken != nil {
				break
			}
		}
		w := group[i]
		if err := w.ctx.Err(); err != nil {
			results[i] = err
			continue
		}
		wctx := context.WithoutCancel(w.ctx)
		wq := q
		wq.ev, wq.facts = &eventBuf{}, &txFacts{}
		if w.prefetch != nil {
			wq.facts, wq.share = share.txFacts(), share
		}
		p.write = i + 1
		sends := p.sends
		err := w.s.groupWrite(wctx, wq, w.fn)
		if err != nil && p.err != nil && p.failedWrite != i+1 && inRun(p.failedWrite) {
			i = fallBack() - 1 // a statement of a check-in of the run before it failed
			continue
		}
		if err != nil && p.err != nil && open >= 0 && p.failedWrite == open+1 {
			undo(wctx, p.err) // the open write's statements failed, before this write's ran
			i--               // so this one runs again
			continue
		}
		if err != nil && p.err != nil && p.failedWrite != i+1 {
			broken = p.err // BEGIN, the lock, or a write no longer open failed: the transaction is gone
			break
		}
		if p.sends > sends {
			open = -1 // its statements went with this write's first round trip
		}
		results[i] = err
		share.settle(err == nil)
		if err == nil {
			done[i], open = &wq, i
		}
	}
	p.write = 0
	if broken == nil && open >= 0 && len(p.pending) > 0 {
		if err := p.send(ctx, nil); err != nil {
			if p.failedWrite == open+1 {
				undo(ctx, err)
				if broken == nil {
					broken = p.send(ctx, nil)
				}
			} else {
				broken = err
			}
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
		case done[i] == nil:
			w.done <- fmt.Errorf("sqlstore: write in a group: not run") // cannot happen
		default:
			w.s.afterCommit(w.ctx, *done[i])
			w.done <- nil
		}
	}
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
