package apitest

import (
	"fmt"
	"testing"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/query"
)

// testCheckInRecomputesAncestors: a check-in on a key result (at_least, 0
// to 100, actual 50) sets its attainment to 0.5 and recomputes its goal and
// every ancestor goal; the check-in is listed and its snapshot readable.
func testCheckInRecomputesAncestors(t *testing.T, f *fixture) {
	s := f.session(t, "Q1")
	root := f.goal(t, upstream.GoalInput{Name: "root", SessionID: s.ID, AttainmentTypeString: upstream.AverageChildren})
	mid := f.goal(t, upstream.GoalInput{Name: "mid", SessionID: s.ID, ParentID: root.ID, AttainmentTypeString: upstream.AverageChildren})
	leaf := f.goal(t, upstream.GoalInput{Name: "leaf", SessionID: s.ID, ParentID: mid.ID})

	kr, err := f.api.CreateMetric(f.admin, upstream.MetricInput{Name: "revenue", GoalID: leaf.ID, InitialValue: 0, Target: num(100), TargetOperator: "at_least"})
	if err != nil {
		t.Fatal(err)
	}
	if kr.GoalID != leaf.ID || kr.Attainment != 0 || kr.Actual != 0 {
		t.Fatalf("created key result = %+v", kr)
	}
	if g := f.getGoal(t, leaf.ID); g.MetricsCount != 1 || len(g.Metrics) != 1 || g.Metrics[0].ID != kr.ID {
		t.Errorf("leaf: metricsCount %d, embedded %d key results; want the new one", g.MetricsCount, len(g.Metrics))
	}

	ci, err := f.api.CheckIn(f.admin, kr.ID, upstream.CheckInInput{Actual: num(50), Comment: "halfway"})
	if err != nil {
		t.Fatal(err)
	}
	if !upstream.ValidID(ci.ID) || ci.MetricID != kr.ID || ci.GoalID != leaf.ID || ci.Actual != 50 || ci.PreviousActual != 0 || !near(ci.Attainment, 0.5) {
		t.Errorf("check-in = %+v", ci)
	}
	m, err := f.api.GetMetric(f.admin, kr.ID)
	if err != nil {
		t.Fatal(err)
	}
	if m.Actual != 50 || !near(m.Attainment, 0.5) {
		t.Errorf("key result after check-in: actual %v attainment %v, want 50 and 0.5", m.Actual, m.Attainment)
	}
	for _, g := range []upstream.Goal{leaf, mid, root} {
		if got := f.getGoal(t, g.ID); !near(got.Attainment, 0.5) {
			t.Errorf("goal %s attainment = %v, want 0.5", g.Name, got.Attainment)
		}
	}
	if r := f.getGoal(t, root.ID); r.ChildrenCount != 1 || r.FullSubTreeCount != 2 || !near(r.AggregatedAttainment, 0.5) {
		t.Errorf("root: childrenCount %d fullSubTreeCount %d aggregatedAttainment %v, want 1, 2, 0.5",
			r.ChildrenCount, r.FullSubTreeCount, r.AggregatedAttainment)
	}

	cis, err := f.api.ListCheckIns(f.admin, upstream.ListQuery{Filter: query.Eq("metricId", kr.ID)})
	if err != nil {
		t.Fatal(err)
	}
	if cis.TotalCount != 1 || len(cis.Items) != 1 || cis.Items[0].ID != ci.ID {
		t.Errorf("check-ins of the key result = %+v, want the one", cis)
	}
	snap, err := f.api.GetCheckInSnapshot(f.admin, ci.ID)
	if err != nil {
		t.Fatal(err)
	}
	if snap.ID != kr.ID || snap.Actual != 50 {
		t.Errorf("snapshot = id %s actual %v, want %s and 50", snap.ID, snap.Actual, kr.ID)
	}
	if _, err := f.api.UpdateMetric(f.admin, kr.ID, upstream.MetricPatch{Name: str("renamed after")}); err != nil {
		t.Fatal(err)
	}
	sn, err := f.api.ListCheckInSnapshots(f.admin, upstream.ListQuery{Filter: query.Eq("metricId", kr.ID)})
	if err != nil {
		t.Fatal(err)
	}
	if sn.TotalCount != 1 || len(sn.Items) != 1 || sn.Items[0].CheckIn.ID != ci.ID || sn.Items[0].KeyResult.Actual != 50 || sn.Items[0].KeyResult.Name != snap.Name || snap.Name == "renamed after" {
		t.Errorf("check-ins with snapshots = %+v, want the one with the key result as it was after it (%q)", sn, snap.Name)
	}
	if sn, err := f.api.ListCheckInSnapshots(f.other, upstream.ListQuery{Filter: query.Eq("metricId", kr.ID)}); err != nil || sn.TotalCount != 0 || len(sn.Items) != 0 {
		t.Errorf("another account's check-ins with snapshots = %+v, %v; want none", sn, err)
	}

	_, err = f.api.CheckIn(f.admin, kr.ID, upstream.CheckInInput{})
	wantCode(t, "check in without an actual value", err, upstream.CodeInvalid)
	if err := f.api.DeleteMetric(f.admin, kr.ID); err != nil {
		t.Fatal(err)
	}
	_, err = f.api.GetMetric(f.admin, kr.ID)
	wantCode(t, "get a deleted key result", err, upstream.CodeNotFound)
	if g := f.getGoal(t, root.ID); !near(g.Attainment, 0) {
		t.Errorf("root attainment after its only key result went = %v, want 0", g.Attainment)
	}
}

// testTasks: a task is created on a goal, listed by its parent, counted by
// the goal, changed and deleted.
func testTasks(t *testing.T, f *fixture) {
	s := f.session(t, "Q1")
	g := f.goal(t, upstream.GoalInput{Name: "ship", SessionID: s.ID})
	var ids []string
	for i := range 3 {
		task, err := f.api.CreateTask(f.admin, upstream.TaskInput{Name: fmt.Sprintf("task %d", i), ParentID: g.ID, ParentType: upstream.ParentGoal})
		if err != nil {
			t.Fatal(err)
		}
		if task.ParentID != g.ID || task.ParentType != upstream.ParentGoal || task.Status != upstream.TaskTodo {
			t.Fatalf("created task = %+v", task)
		}
		ids = append(ids, task.ID)
	}
	if got := f.getGoal(t, g.ID); got.TasksCount != 3 || got.NonArchivedTasksCount != 3 {
		t.Errorf("goal tasksCount %d nonArchivedTasksCount %d, want 3 and 3", got.TasksCount, got.NonArchivedTasksCount)
	}

	up, err := f.api.UpdateTask(f.admin, ids[0], upstream.TaskPatch{Status: str(upstream.TaskDone)})
	if err != nil {
		t.Fatal(err)
	}
	if up.Status != upstream.TaskDone || up.Name != "task 0" {
		t.Errorf("updated task: status %q name %q", up.Status, up.Name)
	}
	_, err = f.api.UpdateTask(f.admin, ids[1], upstream.TaskPatch{Status: str("later")})
	wantCode(t, "set an unknown task status", err, upstream.CodeInvalid)

	done, err := f.api.ListTasks(f.admin, upstream.ListQuery{Filter: query.And(query.Eq("parentId", g.ID), query.Eq("status", upstream.TaskDone))})
	if err != nil {
		t.Fatal(err)
	}
	if done.TotalCount != 1 || len(done.Items) != 1 || done.Items[0].ID != ids[0] {
		t.Errorf("done tasks of the goal = %+v, want task 0", done)
	}

	if err := f.api.DeleteTask(f.admin, ids[2]); err != nil {
		t.Fatal(err)
	}
	_, err = f.api.GetTask(f.admin, ids[2])
	wantCode(t, "get a deleted task", err, upstream.CodeNotFound)
	if err := f.api.DeleteGoal(f.admin, g.ID); err != nil {
		t.Fatal(err)
	}
	_, err = f.api.GetTask(f.admin, ids[0])
	wantCode(t, "get a task of a deleted goal", err, upstream.CodeNotFound)
}

// testDeleteGoalCascades: deleting a goal deletes its key results, their
// check-ins and tasks; its child goals become roots and its parent's figures
// are recomputed.
func testDeleteGoalCascades(t *testing.T, f *fixture) {
	s := f.session(t, "Q1")
	root := f.goal(t, upstream.GoalInput{Name: "root", SessionID: s.ID, AttainmentTypeString: upstream.AverageChildren})
	g := f.goal(t, upstream.GoalInput{Name: "doomed", SessionID: s.ID, ParentID: root.ID})
	child := f.goal(t, upstream.GoalInput{Name: "child", SessionID: s.ID, ParentID: g.ID})
	kr, err := f.api.CreateMetric(f.admin, upstream.MetricInput{Name: "kr", GoalID: g.ID, Target: num(10)})
	if err != nil {
		t.Fatal(err)
	}
	ci, err := f.api.CheckIn(f.admin, kr.ID, upstream.CheckInInput{Actual: num(10)})
	if err != nil {
		t.Fatal(err)
	}
	task, err := f.api.CreateTask(f.admin, upstream.TaskInput{Name: "t", ParentID: kr.ID, ParentType: upstream.ParentMetric})
	if err != nil {
		t.Fatal(err)
	}
	if r := f.getGoal(t, root.ID); !near(r.Attainment, 1) || r.FullSubTreeCount != 2 {
		t.Fatalf("root before the delete: attainment %v fullSubTreeCount %d, want 1 (its only child's) and 2", r.Attainment, r.FullSubTreeCount)
	}

	if err := f.api.DeleteGoal(f.admin, g.ID); err != nil {
		t.Fatal(err)
	}
	_, err = f.api.GetMetric(f.admin, kr.ID)
	wantCode(t, "get the deleted goal's key result", err, upstream.CodeNotFound)
	_, err = f.api.GetCheckInSnapshot(f.admin, ci.ID)
	wantCode(t, "get its check-in", err, upstream.CodeNotFound)
	_, err = f.api.GetTask(f.admin, task.ID)
	wantCode(t, "get its key result's task", err, upstream.CodeNotFound)
	if c := f.getGoal(t, child.ID); c.ParentID != "" {
		t.Errorf("child's parentId = %q, want none (a root)", c.ParentID)
	}
	if r := f.getGoal(t, root.ID); r.Attainment != 0 || r.ChildrenCount != 0 || r.FullSubTreeCount != 0 {
		t.Errorf("root after the delete: attainment %v childrenCount %d fullSubTreeCount %d, want 0, 0, 0",
			r.Attainment, r.ChildrenCount, r.FullSubTreeCount)
	}
}
