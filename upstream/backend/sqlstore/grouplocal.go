package sqlstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/okrgate/okrgate/upstream"
)

// Group commit on SQLite. One connection writes, so an account's
// concurrent writes wait for it one after another anyway; grouping them
// changes what each pays. A check-in inside a tree rewrote the figures,
// Subtree and event of every goal on its path and committed them alone:
// with eight clients checking in under one objective, the same ancestors
// were recomputed and written eight times in a row, and each commit wrote
// their pages to the WAL again. In a group, the check-ins side by side (a
// run) leave the recomputation of their paths to the group, which folds
// the union of their goals once — before the next write that is not a
// check-in, so that it reads the figures they left, and before the COMMIT
// — and one COMMIT writes the pages the group touched once.
// docs/decisions/writes.md ("Group commit on SQLite").
//
// Each write runs under a savepoint of its own, with its own context's
// values (not its cancellation: one client going away must not break the
// transaction the others share), its own events and facts, and gets its
// own result: a write refused by the rules (an *upstream.Error) is rolled
// back to its savepoint and the others go on. Any other failure — the
// database's, which SQLite may answer by rolling back the whole
// transaction — ends the group's transaction, which is rolled back, and
// every write of the group then runs again in a transaction of its own, in
// order, exactly as without grouping. Nothing is acknowledged before the
// COMMIT; if it fails, every write of the group gets its error.

// The group's savepoint statements, prepared with the write path
// (writePathSQL).
const (
	savepointSQL  = "SAVEPOINT " + groupSavepoint
	releaseSQL    = "RELEASE " + groupSavepoint
	rollbackToSQL = "ROLLBACK TO " + groupSavepoint
)

// commitLocalGroup is commitGroup on SQLite.
func (s *Store) commitLocalGroup(account string, group []*groupWrite) error {
	if len(group) == 1 {
		w := group[0]
		err := w.s.txOnce(w.ctx, w.fn)
		w.done <- err
		return err
	}
	ctx := context.WithoutCancel(group[0].ctx) // BEGIN and COMMIT go in the first write's name
	q, end, err := s.begin(ctx)
	if err != nil {
		for _, w := range group {
			w.done <- err
		}
		return err
	}
	t := &localGroup{s: s, ctx: ctx, account: account, q: q, share: &groupShare{},
		results: make([]error, len(group)), done: make([]*counted, len(group))}
	if broken := t.apply(group); broken != nil {
		_ = end(broken) // rolls back
		for _, w := range group {
			w.done <- w.s.txOnce(w.ctx, w.fn)
		}
		return nil
	}
	if err := end(nil); err != nil {
		for _, w := range group {
			w.done <- err
		}
		return err
	}
	for i, w := range group {
		if t.results[i] != nil {
			w.done <- t.results[i]
			continue
		}
		w.s.afterCommit(w.ctx, *t.done[i])
		w.done <- nil
	}
	return nil
}

// localGroup is the transaction of a group being applied on SQLite.
type localGroup struct {
	s       *Store
	ctx     context.Context // the group's own statements go in its name
	account string
	q       counted
	share   *groupShare
	results []error    // each write's error
	done    []*counted // each applied write's querier (its events)
}

// apply runs the writes of group in turn, and folds the paths their
// check-ins left to the group before each other write and at the end. It
// returns the error that broke the transaction, or nil.
func (t *localGroup) apply(group []*groupWrite) error {
	for i, w := range group {
		if w.prefetch == nil {
			if err := t.foldPaths(); err != nil {
				return err
			}
			t.share.facts = nil // the write may change what a subject is derived from
		}
		if err := w.ctx.Err(); err != nil {
			t.results[i] = err // its client has gone: not run
			continue
		}
		wctx := context.WithoutCancel(w.ctx)
		wq := t.q
		wq.ev, wq.facts = &eventBuf{}, &txFacts{}
		if w.prefetch != nil {
			wq.facts, wq.share = t.share.txFacts(), t.share // a check-in: its path is the group's
		}
		pq := t.s.prepared(t.q)
		if err := t.s.run(wctx, pq, stmt{sql: savepointSQL}); err != nil {
			return err
		}
		err := w.s.write(wctx, wq, w.fn)
		if err != nil {
			if _, decided := errors.AsType[*upstream.Error](err); !decided {
				return fmt.Errorf("sqlstore: write in a group: %w", err)
			}
			if rerr := t.s.run(wctx, pq, stmt{sql: rollbackToSQL}, stmt{sql: releaseSQL}); rerr != nil {
				return fmt.Errorf("sqlstore: roll back to savepoint: %w (after %w)", rerr, err)
			}
			t.results[i] = err
			continue
		}
		if err := t.s.run(wctx, pq, stmt{sql: releaseSQL}); err != nil {
			return err
		}
		t.done[i] = &wq
	}
	return t.foldPaths()
}

// foldPaths recomputes the paths the check-ins before it left to the
// group, once for all of them, and appends the events of the
// recomputation.
func (t *localGroup) foldPaths() error {
	if len(t.share.goals) == 0 {
		return nil
	}
	fq := t.q
	fq.ev, fq.facts = &eventBuf{}, &txFacts{}
	if err := t.s.recompute(t.ctx, fq, t.account, t.share.goals...); err != nil {
		return err
	}
	t.share.goals = nil
	return t.s.appendEvents(t.ctx, fq, fq.ev)
}
