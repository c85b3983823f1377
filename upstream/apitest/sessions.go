package apitest

import (
	"testing"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/query"
)

// testSessions: a session is created, listed, renamed and deleted while
// empty; one that holds goals is a conflict to delete.
func testSessions(t *testing.T, f *fixture) {
	s, err := f.api.CreateSession(f.admin, upstream.SessionInput{Title: "Q1", Start: "2026-01-01", End: "2026-03-31"})
	if err != nil {
		t.Fatal(err)
	}
	if !upstream.ValidID(s.ID) || s.Title != "Q1" || s.Status != upstream.SessionOpen || s.AccountID != f.accountID {
		t.Fatalf("created session = %+v", s)
	}
	_, err = f.api.CreateSession(f.admin, upstream.SessionInput{Start: "2026-01-01", End: "2026-03-31"})
	wantCode(t, "create a session without a title", err, upstream.CodeInvalid)

	p, err := f.api.ListSessions(f.admin, upstream.ListQuery{Filter: query.Eq("id", s.ID)}, false)
	if err != nil {
		t.Fatal(err)
	}
	if p.TotalCount != 1 || len(p.Items) != 1 || p.Items[0].Title != "Q1" {
		t.Errorf("session listing by id = %+v", p)
	}
	up, err := f.api.UpdateSession(f.admin, s.ID, upstream.SessionPatch{Title: str("Q1 2026")})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := f.api.GetSession(f.admin, s.ID); err != nil || got.Title != "Q1 2026" || up.Title != "Q1 2026" {
		t.Errorf("renamed session = %q / %q (%v), want Q1 2026", up.Title, got.Title, err)
	}

	g := f.goal(t, upstream.GoalInput{Name: "g", SessionID: s.ID})
	wantCode(t, "delete a session that holds a goal", f.api.DeleteSession(f.admin, s.ID), upstream.CodeConflict)
	if err := f.api.DeleteGoal(f.admin, g.ID); err != nil {
		t.Fatal(err)
	}
	if err := f.api.DeleteSession(f.admin, s.ID); err != nil {
		t.Fatalf("delete the emptied session: %v", err)
	}
	_, err = f.api.GetSession(f.admin, s.ID)
	wantCode(t, "get a deleted session", err, upstream.CodeNotFound)
}

// testClosedSessionRefusesWrites: in a closed session every write is
// refused with session_closed and changes nothing; reopened, writes work.
func testClosedSessionRefusesWrites(t *testing.T, f *fixture) {
	s := f.session(t, "Q1")
	g := f.goal(t, upstream.GoalInput{Name: "g", SessionID: s.ID})
	kr, err := f.api.CreateMetric(f.admin, upstream.MetricInput{Name: "kr", GoalID: g.ID, Target: num(10)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.api.UpdateSession(f.admin, s.ID, upstream.SessionPatch{Status: str(upstream.SessionClosed)}); err != nil {
		t.Fatal(err)
	}

	_, err = f.api.CreateGoal(f.admin, upstream.GoalInput{Name: "late", SessionID: s.ID})
	wantCode(t, "create a goal", err, upstream.CodeSessionClosed)
	_, err = f.api.UpdateGoal(f.admin, g.ID, upstream.GoalPatch{Name: str("renamed")})
	wantCode(t, "update a goal", err, upstream.CodeSessionClosed)
	_, err = f.api.CreateMetric(f.admin, upstream.MetricInput{Name: "kr2", GoalID: g.ID, Target: num(1)})
	wantCode(t, "create a key result", err, upstream.CodeSessionClosed)
	_, err = f.api.CheckIn(f.admin, kr.ID, upstream.CheckInInput{Actual: num(5)})
	wantCode(t, "check in", err, upstream.CodeSessionClosed)
	_, err = f.api.CreateTask(f.admin, upstream.TaskInput{Name: "t", ParentID: g.ID, ParentType: upstream.ParentGoal})
	wantCode(t, "create a task", err, upstream.CodeSessionClosed)
	_, err = f.api.UpdateSession(f.admin, s.ID, upstream.SessionPatch{Title: str("renamed")})
	wantCode(t, "rename the session", err, upstream.CodeSessionClosed)

	if got := f.getGoal(t, g.ID); got.Name != "g" || got.MetricsCount != 1 || got.TasksCount != 0 {
		t.Errorf("goal after refused writes: name %q metricsCount %d tasksCount %d", got.Name, got.MetricsCount, got.TasksCount)
	}
	if m, err := f.api.GetMetric(f.admin, kr.ID); err != nil || m.Actual != 0 {
		t.Errorf("key result after a refused check-in: actual %v (%v), want 0", m.Actual, err)
	}

	if _, err := f.api.UpdateSession(f.admin, s.ID, upstream.SessionPatch{Status: str(upstream.SessionOpen)}); err != nil {
		t.Fatalf("reopen: %v", err)
	}
	if _, err := f.api.CheckIn(f.admin, kr.ID, upstream.CheckInInput{Actual: num(5)}); err != nil {
		t.Errorf("check in after reopening: %v", err)
	}
}

// testLockedSession: a locked session refuses edits with session_locked
// but still takes check-ins and task changes.
func testLockedSession(t *testing.T, f *fixture) {
	s := f.session(t, "Q1")
	g := f.goal(t, upstream.GoalInput{Name: "g", SessionID: s.ID})
	kr, err := f.api.CreateMetric(f.admin, upstream.MetricInput{Name: "kr", GoalID: g.ID, Target: num(10)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.api.UpdateSession(f.admin, s.ID, upstream.SessionPatch{Status: str(upstream.SessionLocked)}); err != nil {
		t.Fatal(err)
	}

	_, err = f.api.CreateGoal(f.admin, upstream.GoalInput{Name: "late", SessionID: s.ID})
	wantCode(t, "create a goal", err, upstream.CodeSessionLocked)
	_, err = f.api.UpdateMetric(f.admin, kr.ID, upstream.MetricPatch{Target: num(20)})
	wantCode(t, "change a key result's target", err, upstream.CodeSessionLocked)
	if _, err := f.api.CheckIn(f.admin, kr.ID, upstream.CheckInInput{Actual: num(5)}); err != nil {
		t.Errorf("check in: %v", err)
	}
	if _, err := f.api.CreateTask(f.admin, upstream.TaskInput{Name: "t", ParentID: g.ID, ParentType: upstream.ParentGoal}); err != nil {
		t.Errorf("create a task: %v", err)
	}
	got := f.getGoal(t, g.ID)
	if !near(got.Attainment, 0.5) || got.TasksCount != 1 {
		t.Errorf("goal: attainment %v tasksCount %d, want 0.5 and 1", got.Attainment, got.TasksCount)
	}
	if m, err := f.api.GetMetric(f.admin, kr.ID); err != nil || m.Target != 10 {
		t.Errorf("key result target = %v (%v), want 10", m.Target, err)
	}
}
