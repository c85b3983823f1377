package resolvers_test

import (
	"testing"

	"github.com/okrgate/okrgate/resolvers/transport/graphqlhttp"
)

// TestGoalExternalID: an objective's externalId (its id in another system)
// is written by createGoal and updateGoal, read, filtered and ordered on over
// GraphQL, on SQLite and, when enabled, PostgreSQL.
func TestGoalExternalID(t *testing.T) {
	f := newFixture(t, "externalid", graphqlhttp.Config{}, nil)
	defer f.srv.Close()
	var s struct{ CreateSession struct{ ID string } }
	f.do(t, `mutation { createSession(input: {title: "Q1", start: "2026-01-01", end: "2026-03-31"}) { id } }`, nil).mustData(t, &s)
	var c struct {
		CreateGoal struct{ ID, ExternalID string }
	}
	f.do(t, `mutation($s: ID!) { createGoal(input: {name: "Ship v2", sessionId: $s, externalId: "JIRA-42"}) { id externalId } }`,
		map[string]any{"s": s.CreateSession.ID}).mustData(t, &c)
	if c.CreateGoal.ExternalID != "JIRA-42" {
		t.Fatalf("createGoal externalId %q, want JIRA-42", c.CreateGoal.ExternalID)
	}
	var other struct{ CreateGoal struct{ ID string } }
	f.do(t, `mutation($s: ID!) { createGoal(input: {name: "Hire", sessionId: $s}) { id } }`,
		map[string]any{"s": s.CreateSession.ID}).mustData(t, &other)
	var u struct{ UpdateGoal struct{ ExternalID string } }
	f.do(t, `mutation($id: ID!) { updateGoal(id: $id, input: {externalId: "JIRA-43"}) { externalId } }`,
		map[string]any{"id": c.CreateGoal.ID}).mustData(t, &u)
	if u.UpdateGoal.ExternalID != "JIRA-43" {
		t.Fatalf("updateGoal externalId %q, want JIRA-43", u.UpdateGoal.ExternalID)
	}
	var l struct {
		Goals struct {
			TotalCount int
			Nodes      []struct{ ID, ExternalID string }
		}
	}
	f.do(t, `{ goals(filter: {externalId: {eq: "JIRA-43"}}) { totalCount nodes { id externalId } } }`, nil).mustData(t, &l)
	if l.Goals.TotalCount != 1 || len(l.Goals.Nodes) != 1 || l.Goals.Nodes[0].ID != c.CreateGoal.ID {
		t.Fatalf("goals filtered on externalId: %+v, want only %s", l.Goals, c.CreateGoal.ID)
	}
	f.do(t, `{ goals(orderBy: [{field: EXTERNAL_ID, direction: DESC}]) { totalCount nodes { id externalId } } }`, nil).mustData(t, &l)
	if len(l.Goals.Nodes) != 2 || l.Goals.Nodes[0].ExternalID != "JIRA-43" || l.Goals.Nodes[1].ExternalID != "" {
		t.Fatalf("goals ordered by externalId descending: %+v, want JIRA-43 then the goal without one", l.Goals)
	}
	var one struct{ Goal struct{ ExternalID string } }
	f.do(t, `query($id: ID!) { goal(id: $id) { externalId } }`, map[string]any{"id": c.CreateGoal.ID}).mustData(t, &one)
	if one.Goal.ExternalID != "JIRA-43" {
		t.Fatalf("goal externalId %q, want JIRA-43", one.Goal.ExternalID)
	}
}
