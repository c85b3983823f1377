package apitest

import (
	"context"
	"slices"
	"testing"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/query"
)

// testUnknownIDsNotFound: reading, changing or deleting an id that names
// nothing is not_found, for every kind.
func testUnknownIDsNotFound(t *testing.T, f *fixture) {
	id := unknownID()
	_, err := f.api.GetGoal(f.admin, id)
	wantCode(t, "get goal", err, upstream.CodeNotFound)
	_, err = f.api.UpdateGoal(f.admin, id, upstream.GoalPatch{Name: str("x")})
	wantCode(t, "update goal", err, upstream.CodeNotFound)
	wantCode(t, "delete goal", f.api.DeleteGoal(f.admin, id), upstream.CodeNotFound)
	_, err = f.api.GetMetric(f.admin, id)
	wantCode(t, "get key result", err, upstream.CodeNotFound)
	_, err = f.api.CheckIn(f.admin, id, upstream.CheckInInput{Actual: num(1)})
	wantCode(t, "check in", err, upstream.CodeNotFound)
	_, err = f.api.GetCheckInSnapshot(f.admin, id)
	wantCode(t, "get check-in", err, upstream.CodeNotFound)
	_, err = f.api.GetTask(f.admin, id)
	wantCode(t, "get task", err, upstream.CodeNotFound)
	wantCode(t, "delete task", f.api.DeleteTask(f.admin, id), upstream.CodeNotFound)
	_, err = f.api.GetSession(f.admin, id)
	wantCode(t, "get session", err, upstream.CodeNotFound)
	_, err = f.api.UpdateSession(f.admin, id, upstream.SessionPatch{Title: str("x")})
	wantCode(t, "update session", err, upstream.CodeNotFound)
}

// testNoCrossAccountAccess: another account's ids are not_found to every
// operation, and its listings never show them.
func testNoCrossAccountAccess(t *testing.T, f *fixture) {
	s := f.session(t, "Q1")
	g := f.goal(t, upstream.GoalInput{Name: "secret plan", SessionID: s.ID})
	kr, err := f.api.CreateMetric(f.admin, upstream.MetricInput{Name: "kr", GoalID: g.ID, Target: num(10)})
	if err != nil {
		t.Fatal(err)
	}
	task, err := f.api.CreateTask(f.admin, upstream.TaskInput{Name: "t", ParentID: g.ID, ParentType: upstream.ParentGoal})
	if err != nil {
		t.Fatal(err)
	}
	ci, err := f.api.CheckIn(f.admin, kr.ID, upstream.CheckInInput{Actual: num(5)})
	if err != nil {
		t.Fatal(err)
	}

	_, err = f.api.GetGoal(f.other, g.ID)
	wantCode(t, "get goal", err, upstream.CodeNotFound)
	_, err = f.api.UpdateGoal(f.other, g.ID, upstream.GoalPatch{Name: str("mine")})
	wantCode(t, "update goal", err, upstream.CodeNotFound)
	wantCode(t, "delete goal", f.api.DeleteGoal(f.other, g.ID), upstream.CodeNotFound)
	_, err = f.api.GetMetric(f.other, kr.ID)
	wantCode(t, "get key result", err, upstream.CodeNotFound)
	_, err = f.api.CheckIn(f.other, kr.ID, upstream.CheckInInput{Actual: num(9)})
	wantCode(t, "check in", err, upstream.CodeNotFound)
	_, err = f.api.GetCheckInSnapshot(f.other, ci.ID)
	wantCode(t, "get check-in", err, upstream.CodeNotFound)
	_, err = f.api.GetTask(f.other, task.ID)
	wantCode(t, "get task", err, upstream.CodeNotFound)
	_, err = f.api.UpdateTask(f.other, task.ID, upstream.TaskPatch{Name: str("mine")})
	wantCode(t, "update task", err, upstream.CodeNotFound)
	_, err = f.api.GetSession(f.other, s.ID)
	wantCode(t, "get session", err, upstream.CodeNotFound)
	wantCode(t, "delete session", f.api.DeleteSession(f.other, s.ID), upstream.CodeNotFound)

	goals, err := f.api.ListGoals(f.other, upstream.ListQuery{Filter: query.Eq("id", g.ID)})
	if err != nil || goals.TotalCount != 0 || len(goals.Items) != 0 {
		t.Errorf("the other account lists %d goals (%v), want none", goals.TotalCount, err)
	}
	metrics, err := f.api.ListMetrics(f.other, upstream.ListQuery{})
	if err != nil || metrics.TotalCount != 0 {
		t.Errorf("the other account lists %d key results (%v), want none", metrics.TotalCount, err)
	}
	tasks, err := f.api.ListTasks(f.other, upstream.ListQuery{})
	if err != nil || tasks.TotalCount != 0 {
		t.Errorf("the other account lists %d tasks (%v), want none", tasks.TotalCount, err)
	}
	sessions, err := f.api.ListSessions(f.other, upstream.ListQuery{}, true)
	if err != nil || slices.ContainsFunc(sessions.Items, func(x upstream.Session) bool { return x.ID == s.ID }) {
		t.Errorf("the other account lists the session (%v)", err)
	}

	// Nor can another account's session or goal be named in a write.
	os, err := f.api.CreateSession(f.other, upstream.SessionInput{Title: "theirs", Start: "2026-01-01", End: "2026-03-31"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.api.CreateGoal(f.other, upstream.GoalInput{Name: "child", SessionID: os.ID, ParentID: g.ID})
	wantCode(t, "create under another account's goal", err, upstream.CodeInvalid)
	_, err = f.api.CreateGoal(f.admin, upstream.GoalInput{Name: "x", SessionID: os.ID})
	wantCode(t, "create in another account's session", err, upstream.CodeInvalid)
	if got := f.getGoal(t, g.ID); got.Name != "secret plan" || got.ChildrenCount != 0 {
		t.Errorf("goal after the other account's attempts: name %q childrenCount %d", got.Name, got.ChildrenCount)
	}
}

// testPrivateGoalHiddenFromViewer: a private goal is seen by its owner and
// admins only; to a viewer (or a member who does not own it) it is
// not_found and absent from listings, and so are its key results.
func testPrivateGoalHiddenFromViewer(t *testing.T, f *fixture) {
	s := f.session(t, "Q1")
	public := f.goal(t, upstream.GoalInput{Name: "public", SessionID: s.ID, OwnerID: f.adminID})
	private := f.goal(t, upstream.GoalInput{Name: "private", SessionID: s.ID, OwnerID: f.adminID, Private: true})
	kr, err := f.api.CreateMetric(f.admin, upstream.MetricInput{Name: "hidden kr", GoalID: private.ID, Target: num(10)})
	if err != nil {
		t.Fatal(err)
	}
	if !f.getGoal(t, private.ID).Private {
		t.Fatal("the goal was created private but reads as public")
	}

	for _, c := range []struct {
		who string
		ctx context.Context
	}{{"viewer", f.viewer}, {"member", f.member}} {
		ctx := c.ctx
		_, err := f.api.GetGoal(ctx, private.ID)
		wantCode(t, c.who+" gets the private goal", err, upstream.CodeNotFound)
		_, err = f.api.GetMetric(ctx, kr.ID)
		wantCode(t, c.who+" gets its key result", err, upstream.CodeNotFound)
		p, err := f.api.ListGoals(ctx, upstream.ListQuery{})
		if err != nil {
			t.Fatal(err)
		}
		if got := goalIDs(p); !slices.Equal(got, []string{public.ID}) || p.TotalCount != 1 {
			t.Errorf("%s lists goals %v (total %d), want only the public one", c.who, got, p.TotalCount)
		}
		ms, err := f.api.ListMetrics(ctx, upstream.ListQuery{})
		if err != nil || ms.TotalCount != 0 {
			t.Errorf("%s lists %d key results (%v), want none", c.who, ms.TotalCount, err)
		}
	}
	if g, err := f.api.GetGoal(f.viewer, public.ID); err != nil || g.Name != "public" {
		t.Errorf("viewer gets the public goal: %q, %v", g.Name, err)
	}
	p, err := f.api.ListGoals(f.admin, upstream.ListQuery{})
	if err != nil || p.TotalCount != 2 {
		t.Errorf("admin lists %d goals (%v), want 2", p.TotalCount, err)
	}
}

// testViewerRefusedWrites: a viewer reads but every write is forbidden and
// changes nothing.
func testViewerRefusedWrites(t *testing.T, f *fixture) {
	s := f.session(t, "Q1")
	g := f.goal(t, upstream.GoalInput{Name: "g", SessionID: s.ID})
	kr, err := f.api.CreateMetric(f.admin, upstream.MetricInput{Name: "kr", GoalID: g.ID, Target: num(10)})
	if err != nil {
		t.Fatal(err)
	}
	task, err := f.api.CreateTask(f.admin, upstream.TaskInput{Name: "t", ParentID: g.ID, ParentType: upstream.ParentGoal})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.api.GetGoal(f.viewer, g.ID); err != nil {
		t.Fatalf("viewer reads the goal: %v", err)
	}

	_, err = f.api.CreateGoal(f.viewer, upstream.GoalInput{Name: "mine", SessionID: s.ID})
	wantCode(t, "create a goal", err, upstream.CodeForbidden)
	_, err = f.api.UpdateGoal(f.viewer, g.ID, upstream.GoalPatch{Name: str("renamed")})
	wantCode(t, "update a goal", err, upstream.CodeForbidden)
	wantCode(t, "delete a goal", f.api.DeleteGoal(f.viewer, g.ID), upstream.CodeForbidden)
	_, err = f.api.CreateMetric(f.viewer, upstream.MetricInput{Name: "kr2", GoalID: g.ID, Target: num(1)})
	wantCode(t, "create a key result", err, upstream.CodeForbidden)
	_, err = f.api.CheckIn(f.viewer, kr.ID, upstream.CheckInInput{Actual: num(5)})
	wantCode(t, "check in", err, upstream.CodeForbidden)
	_, err = f.api.CreateTask(f.viewer, upstream.TaskInput{Name: "t2", ParentID: g.ID, ParentType: upstream.ParentGoal})
	wantCode(t, "create a task", err, upstream.CodeForbidden)
	_, err = f.api.UpdateTask(f.viewer, task.ID, upstream.TaskPatch{Status: str(upstream.TaskDone)})
	wantCode(t, "update a task", err, upstream.CodeForbidden)
	_, err = f.api.CreateSession(f.viewer, upstream.SessionInput{Title: "Q2", Start: "2026-04-01", End: "2026-06-30"})
	wantCode(t, "create a session", err, upstream.CodeForbidden)
	_, err = f.api.UpdateSession(f.viewer, s.ID, upstream.SessionPatch{Status: str(upstream.SessionClosed)})
	wantCode(t, "close the session", err, upstream.CodeForbidden)

	got := f.getGoal(t, g.ID)
	if got.Name != "g" || got.MetricsCount != 1 || got.TasksCount != 1 || !near(got.Attainment, 0) {
		t.Errorf("goal after refused writes = name %q metricsCount %d tasksCount %d attainment %v",
			got.Name, got.MetricsCount, got.TasksCount, got.Attainment)
	}
	if s2, err := f.api.GetSession(f.admin, s.ID); err != nil || s2.Status != upstream.SessionOpen {
		t.Errorf("session after a refused close: status %q (%v)", s2.Status, err)
	}
}

// testMemberWritesOwnItems: a member creates goals and changes what it
// owns, but may not change or check in on an item someone else owns.
func testMemberWritesOwnItems(t *testing.T, f *fixture) {
	s := f.session(t, "Q1")
	theirs := f.goal(t, upstream.GoalInput{Name: "admin's", SessionID: s.ID, OwnerID: f.adminID})
	theirKR, err := f.api.CreateMetric(f.admin, upstream.MetricInput{Name: "admin's kr", GoalID: theirs.ID, Target: num(10)})
	if err != nil {
		t.Fatal(err)
	}

	mine, err := f.api.CreateGoal(f.member, upstream.GoalInput{Name: "member's", SessionID: s.ID, OwnerID: f.memberID})
	if err != nil {
		t.Fatalf("member creates a goal: %v", err)
	}
	if _, err := f.api.UpdateGoal(f.member, mine.ID, upstream.GoalPatch{Name: str("member's, renamed")}); err != nil {
		t.Errorf("member renames its own goal: %v", err)
	}
	kr, err := f.api.CreateMetric(f.member, upstream.MetricInput{Name: "kr", GoalID: mine.ID, Target: num(4)})
	if err != nil {
		t.Fatalf("member adds a key result to its goal: %v", err)
	}
	if _, err := f.api.CheckIn(f.member, kr.ID, upstream.CheckInInput{Actual: num(1)}); err != nil {
		t.Errorf("member checks in on its key result: %v", err)
	}

	_, err = f.api.UpdateGoal(f.member, theirs.ID, upstream.GoalPatch{Name: str("taken")})
	wantCode(t, "member renames the admin's goal", err, upstream.CodeForbidden)
	wantCode(t, "member deletes the admin's goal", f.api.DeleteGoal(f.member, theirs.ID), upstream.CodeForbidden)
	_, err = f.api.CheckIn(f.member, theirKR.ID, upstream.CheckInInput{Actual: num(9)})
	wantCode(t, "member checks in on the admin's key result", err, upstream.CodeForbidden)

	if got := f.getGoal(t, theirs.ID); got.Name != "admin's" || !near(got.Attainment, 0) {
		t.Errorf("admin's goal after refused writes: name %q attainment %v", got.Name, got.Attainment)
	}
	if got := f.getGoal(t, mine.ID); got.Name != "member's, renamed" || !near(got.Attainment, 0.25) {
		t.Errorf("member's goal: name %q attainment %v, want the new name and 0.25", got.Name, got.Attainment)
	}
}
