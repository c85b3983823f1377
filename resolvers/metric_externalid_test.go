package resolvers_test

import (
	"testing"

	"github.com/okrgate/okrgate/resolvers/transport/graphqlhttp"
)

// TestMetricExternalID: a key result's externalId (its id in another
// system) is written by createMetric and updateMetric, read, filtered and
// ordered on over GraphQL, on SQLite and, when enabled, PostgreSQL. The
// GraphQL field and input fields are derived from the Go types
// (graph/schema/zz_fields.graphqls), not written in the schema.
func TestMetricExternalID(t *testing.T) {
	f := newFixture(t, "metricexternalid", graphqlhttp.Config{}, nil)
	defer f.srv.Close()
	var s struct{ CreateSession struct{ ID string } }
	f.do(t, `mutation { createSession(input: {title: "Q1", start: "2026-01-01", end: "2026-03-31"}) { id } }`, nil).mustData(t, &s)
	var g struct{ CreateGoal struct{ ID string } }
	f.do(t, `mutation($s: ID!) { createGoal(input: {name: "Ship v2", sessionId: $s}) { id } }`,
		map[string]any{"s": s.CreateSession.ID}).mustData(t, &g)
	var c struct {
		CreateMetric struct{ ID, ExternalID string }
	}
	f.do(t, `mutation($g: ID!) { createMetric(input: {name: "Deals", goalId: $g, target: 10, externalId: "CRM-7"}) { id externalId } }`,
		map[string]any{"g": g.CreateGoal.ID}).mustData(t, &c)
	if c.CreateMetric.ExternalID != "CRM-7" {
		t.Fatalf("createMetric externalId %q, want CRM-7", c.CreateMetric.ExternalID)
	}
	var other struct{ CreateMetric struct{ ID string } }
	f.do(t, `mutation($g: ID!) { createMetric(input: {name: "Churn", goalId: $g, target: 5}) { id } }`,
		map[string]any{"g": g.CreateGoal.ID}).mustData(t, &other)
	var u struct{ UpdateMetric struct{ ExternalID string } }
	f.do(t, `mutation($id: ID!) { updateMetric(id: $id, input: {externalId: "CRM-8"}) { externalId } }`,
		map[string]any{"id": c.CreateMetric.ID}).mustData(t, &u)
	if u.UpdateMetric.ExternalID != "CRM-8" {
		t.Fatalf("updateMetric externalId %q, want CRM-8", u.UpdateMetric.ExternalID)
	}
	var l struct {
		Metrics struct {
			TotalCount int
			Nodes      []struct{ ID, ExternalID string }
		}
	}
	f.do(t, `{ metrics(filter: {externalId: {eq: "CRM-8"}}) { totalCount nodes { id externalId } } }`, nil).mustData(t, &l)
	if l.Metrics.TotalCount != 1 || len(l.Metrics.Nodes) != 1 || l.Metrics.Nodes[0].ID != c.CreateMetric.ID {
		t.Fatalf("metrics filtered on externalId: %+v, want only %s", l.Metrics, c.CreateMetric.ID)
	}
	f.do(t, `{ metrics(orderBy: [{field: EXTERNAL_ID, direction: DESC}]) { totalCount nodes { id externalId } } }`, nil).mustData(t, &l)
	if len(l.Metrics.Nodes) != 2 || l.Metrics.Nodes[0].ExternalID != "CRM-8" || l.Metrics.Nodes[1].ExternalID != "" {
		t.Fatalf("metrics ordered by externalId descending: %+v, want CRM-8 then the key result without one", l.Metrics)
	}
	var one struct{ Metric struct{ ExternalID string } }
	f.do(t, `query($id: ID!) { metric(id: $id) { externalId } }`, map[string]any{"id": c.CreateMetric.ID}).mustData(t, &one)
	if one.Metric.ExternalID != "CRM-8" {
		t.Fatalf("metric externalId %q, want CRM-8", one.Metric.ExternalID)
	}
}
