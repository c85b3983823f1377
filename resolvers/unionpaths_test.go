package resolvers_test

import (
	"strconv"
	"testing"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/infra/instrument"
)

// TestUnionFragmentsAreLevelsOfTheirOwn: one alias selected in two
// fragments of a union (Task.parent: Goal or Metric, each with owners and
// their teams) is two levels, each loaded by its own edge; the teams below
// each are a batch of their own, so the calls do not depend on which
// fragment's owners were loaded first. Run it with -count and -cpu: the
// counts must hold every time.
func TestUnionFragmentsAreLevelsOfTheirOwn(t *testing.T) {
	o := newOrgFixture(t, "unionpaths")
	st, ctx := o.store, o.ctx
	for i := range 3 {
		if _, err := st.CreateTeam(ctx, upstream.TeamInput{Name: "Team " + strconv.Itoa(i), Members: []string{o.memberID, o.viewerID}}); err != nil {
			t.Fatal(err)
		}
	}
	tgt := 10.0
	for i := range 6 {
		g, err := st.CreateGoal(ctx, upstream.GoalInput{Name: "G" + strconv.Itoa(i), SessionID: o.sessionID, OwnerIDs: []string{o.memberID}})
		if err != nil {
			t.Fatal(err)
		}
		m, err := st.CreateMetric(ctx, upstream.MetricInput{Name: "M" + strconv.Itoa(i), GoalID: g.ID, Target: &tgt, OwnerIDs: []string{o.viewerID}})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []struct{ id, kind string }{{g.ID, upstream.ParentGoal}, {m.ID, upstream.ParentMetric}} {
			if _, err := st.CreateTask(ctx, upstream.TaskInput{Name: "T", ParentID: p.id, ParentType: p.kind}); err != nil {
				t.Fatal(err)
			}
		}
	}
	const q = `{ tasks(first: 100) { nodes { parent {
	  ... on Goal { owners { ... on User { name teams { name } } } }
	  ... on Metric { owners { ... on User { name teams { name } } } } } } } }`
	before := o.calls.Snapshot()
	var d struct {
		Tasks struct {
			Nodes []struct {
				Parent struct {
					Owners []struct {
						Name  string
						Teams []struct{ Name string }
					}
				}
			}
		}
	}
	o.do(t, q, nil).mustData(t, &d)
	calls := instrument.Diff(before, o.calls.Snapshot())
	if len(d.Tasks.Nodes) != 12 {
		t.Fatalf("%d tasks, want 12", len(d.Tasks.Nodes))
	}
	for _, n := range d.Tasks.Nodes {
		if len(n.Parent.Owners) != 1 || len(n.Parent.Owners[0].Teams) != 3 {
			t.Fatalf("a task's parent: %+v; want one owner in 3 teams", n.Parent)
		}
	}
	// tasks 1; parents: goals 1, key results 1; owners: one users call per
	// fragment; teams: one call per fragment.
	want := map[string]int64{"Authenticate": 1, "ListTasks": 1, "ListGoals": 1, "ListMetrics": 1, "ListUsers": 2, "ListTeams": 2}
	for k, v := range want {
		if calls[k] != v {
			t.Errorf("%s: %d calls, want %d (all: %v)", k, calls[k], v, calls)
		}
	}
}
