package sqlstore_test

import (
	"errors"
	"testing"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
)

// TestBulk: writes in a batch share one commit; a refused write leaves
// nothing behind and the batch goes on; the figures are up to date when
// Bulk returns; an error from fn rolls the whole batch back.
func TestBulk(t *testing.T) {
	e := newEnv(t)
	s := e.session(upstream.SessionInput{})
	var root, child upstream.Goal
	err := e.store.Bulk(e.ctx, func(batch *sqlstore.Store) error {
		var err error
		if root, err = batch.CreateGoal(e.ctx, upstream.GoalInput{Name: "root", SessionID: s.ID, AttainmentTypeString: upstream.AverageChildren}); err != nil {
			return err
		}
		if child, err = batch.CreateGoal(e.ctx, upstream.GoalInput{Name: "child", SessionID: s.ID, ParentID: root.ID}); err != nil {
			return err
		}
		// Refused (no name): nothing of it stays, the batch goes on.
		if _, err := batch.CreateMetric(e.ctx, upstream.MetricInput{GoalID: child.ID, Target: f(10)}); upstream.ErrorCode(err) != upstream.CodeInvalid {
			t.Errorf("nameless key result: %v", err)
		}
		m, err := batch.CreateMetric(e.ctx, upstream.MetricInput{Name: "kr", GoalID: child.ID, Target: f(10)})
		if err != nil {
			return err
		}
		if _, err := batch.CheckIn(e.ctx, m.ID, upstream.CheckInInput{Actual: f(4)}); err != nil {
			return err
		}
		_, err = batch.CreateTask(e.ctx, upstream.TaskInput{Name: "t", ParentID: child.ID, ParentType: upstream.ParentGoal})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	r, c := e.get(root.ID), e.get(child.ID)
	if !near(r.Attainment, 0.4) || r.FullSubTreeCount != 1 || !near(c.Attainment, 0.4) || c.MetricsCount != 1 || c.TasksCount != 1 {
		t.Fatalf("after the batch: root att %v subtree %d; child att %v metrics %d tasks %d",
			r.Attainment, r.FullSubTreeCount, c.Attainment, c.MetricsCount, c.TasksCount)
	}

	// A write that reads (its key result is not the batch's, so on
	// PostgreSQL it sends what the batch queued, and takes its savepoint)
	// and is then refused: undone alone, after the write before it.
	outside, err := e.store.CreateMetric(e.ctx, upstream.MetricInput{Name: "outside", GoalID: root.ID, Target: f(10)})
	if err != nil {
		t.Fatal(err)
	}
	var kept upstream.Goal
	err = e.store.Bulk(e.ctx, func(batch *sqlstore.Store) error {
		var err error
		if kept, err = batch.CreateGoal(e.ctx, upstream.GoalInput{Name: "kept", SessionID: s.ID}); err != nil {
			return err
		}
		if _, err := batch.CheckIn(e.ctx, outside.ID, upstream.CheckInInput{Actual: f(1e16)}); err == nil {
			t.Error("a check-in beyond the magnitude bound was taken")
		}
		_, err = batch.CheckIn(e.ctx, outside.ID, upstream.CheckInInput{Actual: f(5)})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if g := e.get(kept.ID); g.Name != "kept" {
		t.Fatalf("the goal written before the refused check-in: %+v", g)
	}
	if m, err := e.store.GetMetric(e.ctx, outside.ID); err != nil || m.Actual != 5 {
		t.Fatalf("key result after the batch: actual %v (%v), want 5", m.Actual, err)
	}

	boom := errors.New("boom")
	err = e.store.Bulk(e.ctx, func(batch *sqlstore.Store) error {
		if _, err := batch.CreateGoal(e.ctx, upstream.GoalInput{Name: "lost", SessionID: s.ID, ParentID: root.ID}); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Bulk = %v, want boom", err)
	}
	if r := e.get(root.ID); r.ChildrenCount != 1 {
		t.Fatalf("a rolled-back batch left %d children", r.ChildrenCount)
	}
	all, err := e.store.ListGoals(e.ctx, upstream.ListQuery{})
	if err != nil || all.TotalCount != 3 {
		t.Fatalf("goals after the rolled-back batch: %d (%v)", all.TotalCount, err)
	}
}
