package resolvers_test

import (
	"testing"

	"github.com/okrgate/okrgate/resolvers/transport/graphqlhttp"
)

// TestGoalExternalSystem: an objective's externalSystem (the system its
// externalId belongs to) is written by createGoal and updateGoal, read,
// filtered and ordered on over GraphQL, on SQLite and, when enabled,
// PostgreSQL.
func TestGoalExternalSystem(t *testing.T) {
	f := newFixture(t, "externalsystem", graphqlhttp.Config{}, nil)
	defer f.srv.Close()
	var s struct{ CreateSession struct{ ID string } }
	f.do(t, `mutation { createSession(input: {title: "Q1", start: "2026-01-01", end: "2026-03-31"}) { id } }`, nil).mustData(t, &s)
	var c struct {
		CreateGoal struct{ ID, ExternalSystem string }
	}
	f.do(t, `mutation($s: ID!) { createGoal(input: {name: "Ship v2", sessionId: $s, externalSystem: "jira"}) { id externalSystem } }`,
		map[string]any{"s": s.CreateSession.ID}).mustData(t, &c)
	if c.CreateGoal.ExternalSystem != "jira" {
		t.Fatalf("createGoal externalSystem %q, want jira", c.CreateGoal.ExternalSystem)
	}
	var other struct{ CreateGoal struct{ ID string } }
	f.do(t, `mutation($s: ID!) { createGoal(input: {name: "Hire", sessionId: $s}) { id } }`,
		map[string]any{"s": s.CreateSession.ID}).mustData(t, &other)
	var u struct {
		UpdateGoal struct{ ExternalSystem string }
	}
	f.do(t, `mutation($id: ID!) { updateGoal(id: $id, input: {externalSystem: "linear"}) { externalSystem } }`,
		map[string]any{"id": c.CreateGoal.ID}).mustData(t, &u)
	if u.UpdateGoal.ExternalSystem != "linear" {
		t.Fatalf("updateGoal externalSystem %q, want linear", u.UpdateGoal.ExternalSystem)
	}
	var l struct {
		Goals struct {
			TotalCount int
			Nodes      []struct{ ID, ExternalSystem string }
		}
	}
	f.do(t, `{ goals(filter: {externalSystem: {eq: "linear"}}) { totalCount nodes { id externalSystem } } }`, nil).mustData(t, &l)
	if l.Goals.TotalCount != 1 || len(l.Goals.Nodes) != 1 || l.Goals.Nodes[0].ID != c.CreateGoal.ID {
		t.Fatalf("goals filtered on externalSystem: %+v, want only %s", l.Goals, c.CreateGoal.ID)
	}
	f.do(t, `{ goals(orderBy: [{field: EXTERNAL_SYSTEM, direction: DESC}]) { totalCount nodes { id externalSystem } } }`, nil).mustData(t, &l)
	if len(l.Goals.Nodes) != 2 || l.Goals.Nodes[0].ExternalSystem != "linear" || l.Goals.Nodes[1].ExternalSystem != "" {
		t.Fatalf("goals ordered by externalSystem descending: %+v, want linear then the goal without one", l.Goals)
	}
	var one struct {
		Goal struct{ ExternalSystem string }
	}
	f.do(t, `query($id: ID!) { goal(id: $id) { externalSystem } }`, map[string]any{"id": c.CreateGoal.ID}).mustData(t, &one)
	if one.Goal.ExternalSystem != "linear" {
		t.Fatalf("goal externalSystem %q, want linear", one.Goal.ExternalSystem)
	}
}
