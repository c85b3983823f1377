package sqlstore

import (
	"context"
	"fmt"
	"slices"
)

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
// Check-ins side by side in a group (a run) share what does not change
// between them (groupShare): their facts are loaded together, ahead, the
// caller's subject once, and the recomputation of their paths and their
// events are written once for the run — before the next write that is not
// a check-in, and before the COMMIT. When a statement of a run's check-in
// fails, the run rolls back to its savepoint and its writes run again one
// by one; the recomputation is the group's own, and a failure of its
// statements fails the transaction.
//
// It returns the error that failed the group's transaction as a whole
// (nil when it committed, or only some of its writes failed).
func (s *Store) commitGroup(account string, group []*groupWrite) error {
	if s.pg == nil {
		return s.commitLocalGroup(account, group) // grouplocal.go
	}
	if len(group) == 1 {
		w := group[0]
		err := w.s.pg.retry(w.ctx, func() error { return w.s.txOnce(w.ctx, w.fn) }) // postgres.go
		w.done <- err
		return err
	}
	// BEGIN, the lock and COMMIT go in the first write's name, under a
	// deadline of their own (deadlines.go).
	ctx, cancel := context.WithTimeout(context.WithoutCancel(group[0].ctx), s.deadlines.Write)
	defer cancel()
	// The group runs again, whole, when its transaction failed without
	// committing in a way another try may pass (pgStore.retry).
	var t *groupTx
	broken := s.pg.retry(ctx, func() error {
		q, end, err := s.begin(ctx)
		if err != nil {
			t = nil
			return err
		}
		t = &groupTx{s: s, ctx: ctx, account: account, group: group, q: q, p: q.pipe,
			results: make([]error, len(group)), done: make([]*counted, len(group)),
			open: -1, share: &groupShare{}, run: groupRun{first: -1}, slowTo: -1}
		t.apply()
		if t.broken != nil {
			return end(t.broken) // rolls back
		}
		return end(nil) // COMMIT: one flush for the group
	})
	if t == nil {
		for _, w := range group {
			w.done <- broken
		}
		return broken
	}
	for i, w := range group {
		switch {
		case t.results[i] != nil:
			w.done <- t.results[i]
		case broken != nil:
			w.done <- broken
		case t.done[i] == nil:
			w.done <- fmt.Errorf("sqlstore: write in a group: not run") // cannot happen
		default:
			w.s.afterCommit(w.ctx, *t.done[i])
			w.done <- nil
		}
	}
	return broken
}

// groupTx is the transaction of a group being applied (commitGroup).
type groupTx struct {
	s       *Store
	ctx     context.Context // the group's own statements go in its name
	account string
	group   []*groupWrite
	q       counted
	p       *pipeline
	results []error    // each write's error
	done    []*counted // each applied write's querier (its events)
	broken  error      // the transaction cannot go on
	open    int        // the write whose statements and RELEASE are queued, not sent; -1 for none
	share   *groupShare
	run     groupRun // the run of check-ins applied on facts loaded ahead
	slowTo  int      // writes up to it load their own facts (their run fell back)
}

// foldWrite and runWrite number (pipeline.write) the group's own
// statements: the recomputation of paths, and a run's savepoint and facts.
func (t *groupTx) foldWrite() int { return len(t.group) + 1 }
func (t *groupTx) runWrite() int  { return len(t.group) + 2 }

// apply runs the writes in turn, then sends the last one's statements.
func (t *groupTx) apply() {
	p := t.p
	for i := 0; i <= len(t.group) && t.broken == nil; i++ {
		if i == len(t.group) || t.group[i].prefetch == nil {
			if again := t.foldPaths(); again >= 0 {
				i = again - 1
				continue
			}
			if i == len(t.group) || t.broken != nil {
				break
			}
			t.share.facts = nil // the write may change what a subject is derived from
		} else if t.run.first < 0 {
			if t.startRun(i); t.broken != nil {
				break
			}
		}
		w := t.group[i]
		if err := w.ctx.Err(); err != nil {
			t.results[i] = err
			continue
		}
		wctx := context.WithoutCancel(w.ctx)
		wq := t.q
		wq.ev, wq.facts = &eventBuf{}, &txFacts{}
		if w.prefetch != nil {
			wq.facts, wq.share = t.share.txFacts(), t.share
		}
		p.write = i + 1
		sends := p.sends
		err := w.s.groupWrite(wctx, wq, w.fn)
		if err != nil && p.err != nil && p.failedWrite != i+1 && t.inRun(p.failedWrite) {
			i = t.fallBack() - 1 // a statement of a check-in of the run before it failed
			continue
		}
		if err != nil && p.err != nil && t.open >= 0 && p.failedWrite == t.open+1 {
			t.undo(wctx, p.err) // the open write's statements failed, before this write's ran
			i--                 // so this one runs again
			continue
		}
		if err != nil && p.err != nil && p.failedWrite != i+1 {
			t.broken = p.err // BEGIN, the lock, or a write no longer open failed: the transaction is gone
			break
		}
		if p.sends > sends {
			t.open = -1 // its statements went with this write's first round trip
		}
		t.results[i] = err
		t.share.settle(err == nil)
		if err == nil {
			t.done[i], t.open = &wq, i
		}
	}
	p.write = 0
	if t.broken == nil && t.open >= 0 && len(p.pending) > 0 {
		if err := p.send(t.ctx, nil); err != nil {
			if p.failedWrite == t.open+1 {
				t.undo(t.ctx, err)
				if t.broken == nil {
					t.broken = p.send(t.ctx, nil)
				}
			} else {
				t.broken = err
			}
		}
	}
}

// undo rolls the open write back to its savepoint after its queued
// statements failed with err.
func (t *groupTx) undo(ctx context.Context, err error) {
	t.results[t.open], t.done[t.open] = fmt.Errorf("sqlstore: write in a group: %w", err), nil
	t.open = -1
	t.p.pending = nil
	if rerr := t.s.rollbackTo(ctx, t.q, groupSavepoint, err, true); rerr != nil {
		t.broken = rerr
	}
}

// inRun reports whether the failed statement of write n is the run's.
func (t *groupTx) inRun(n int) bool {
	return t.run.first >= 0 && (n == t.runWrite() || n > t.run.first && n <= t.run.end)
}

// fallBack rolls the run back to its savepoint after one of its statements
// failed, and returns the write from which the loop goes on: the run's
// first, whose writes then run again one by one, each loading its own
// facts, as a group without runs would.
func (t *groupTx) fallBack() int {
	first, p := t.run.first, t.p
	p.err, p.pending, p.write = nil, nil, t.runWrite()
	for k := first; k < t.run.end; k++ {
		t.results[k], t.done[k] = nil, nil
	}
	t.slowTo, t.open, t.run = t.run.end-1, -1, groupRun{first: -1}
	t.share.leaveRun()
	if err := t.s.run(t.ctx, t.q, stmt{sql: "ROLLBACK TO " + runSavepoint}); err != nil {
		t.broken = err
	} else {
		t.broken = t.s.queue(t.ctx, t.q, stmt{sql: "RELEASE " + runSavepoint})
	}
	return first
}

// startRun begins a run at write i when two or more check-ins are side by
// side there: under a savepoint of its own, it loads the facts of all of
// them in one round trip, with the open write's statements.
func (t *groupTx) startRun(i int) {
	end := i
	for end < len(t.group) && t.group[end].prefetch != nil {
		end++
	}
	if i <= t.slowTo || end-i < 2 {
		return
	}
	p := t.p
	for t.broken == nil {
		p.write = t.runWrite()
		t.share.enterRun()
		rq := t.q
		rq.facts, rq.share = t.share.txFacts(), t.share
		stmts := []stmt{{sql: "SAVEPOINT " + runSavepoint}}
		for _, w := range t.group[i:end] {
			if w.ctx.Err() == nil {
				stmts = append(stmts, w.prefetch(rq)...)
			}
		}
		t.run = groupRun{first: i, end: end}
		err := t.s.run(t.ctx, t.q, stmts...)
		switch {
		case err == nil:
			t.open = -1 // its statements went with the facts
			return
		case t.open >= 0 && p.failedWrite == t.open+1:
			t.run = groupRun{first: -1}
			t.undo(t.ctx, err) // and load the facts again
		case p.failedWrite == t.runWrite():
			t.fallBack() // the run's writes load their own facts
			return
		default:
			t.broken = err
			return
		}
	}
}

// foldPaths recomputes the paths the check-ins before it left to the
// group and appends the events of the run, as a write numbered after the
// group's writes, and ends the run if there is one. When its first round
// trip fails on the open write's statements, that write is undone and the
// paths recomputed again; on a run's statements, the run falls back (the
// index the loop goes on from is returned; else -1); any other failure
// ends the transaction.
func (t *groupTx) foldPaths() int {
	p, share := t.p, t.share
	for t.broken == nil && (len(share.goals) > 0 || len(share.events) > 0) {
		fq := t.q
		fq.ev, fq.facts = &eventBuf{events: slices.Clone(share.events)}, &txFacts{}
		p.write = t.foldWrite()
		sends := p.sends
		var err error
		if len(share.goals) > 0 {
			err = t.s.recompute(t.ctx, fq, t.account, share.goals...)
		}
		if err == nil {
			err = t.s.appendEvents(t.ctx, fq, fq.ev)
		}
		if err != nil && p.err != nil && t.inRun(p.failedWrite) {
			return t.fallBack()
		}
		if err != nil && p.err != nil && t.open >= 0 && p.failedWrite == t.open+1 {
			t.undo(t.ctx, p.err)
			continue
		}
		if err != nil {
			t.broken = err
			return -1
		}
		if p.sends > sends {
			t.open = -1 // its statements went with the paths' facts
		}
		share.goals, share.events = nil, nil
	}
	if t.run.first >= 0 && t.broken == nil {
		p.write = t.runWrite()
		t.broken = t.s.queue(t.ctx, t.q, stmt{sql: "RELEASE " + runSavepoint})
		t.run = groupRun{first: -1}
		share.leaveRun()
	}
	return -1
}
