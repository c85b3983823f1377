package resolvers_test

import (
	"testing"
)

// TestSelectionDecidesJoins: the loaders pass the store a projection of the
// enrichments a query selects, so a tree that reads no owners' REST shape,
// tags or allowed actions runs fewer SQL statements than one that reads
// them, with the same goals, names and attainments.
func TestSelectionDecidesJoins(t *testing.T) {
	f := seeded(t, 40, 1)
	sid := biggestSession(t, f)
	const lean = `query($id: ID!) { session(id: $id) { goals { id name attainment metrics { id name } } } }`
	const rich = `query($id: ID!) { session(id: $id) { goals { id name attainment assignee { id } assignees { id }
	  tags { name } currentUserAllowedActions metrics { id name assignees { id } currentUserAllowedActions } } } }`
	type goal struct {
		ID, Name   string
		Attainment float64
		Metrics    []struct{ ID, Name string }
	}
	run := func(q string) ([]goal, int64) {
		before := f.store.QueryCount()
		var d struct {
			Session struct{ Goals []goal }
		}
		f.do(t, q, map[string]any{"id": sid}).mustData(t, &d)
		return d.Session.Goals, f.store.QueryCount() - before
	}
	leanGoals, leanSQL := run(lean)
	richGoals, richSQL := run(rich)
	if len(leanGoals) == 0 || len(leanGoals) != len(richGoals) {
		t.Fatalf("goals: lean %d, rich %d", len(leanGoals), len(richGoals))
	}
	for i := range leanGoals {
		l, r := leanGoals[i], richGoals[i]
		if l.ID != r.ID || l.Name != r.Name || l.Attainment != r.Attainment || len(l.Metrics) != len(r.Metrics) {
			t.Fatalf("goal %d differs: lean %+v, rich %+v", i, l, r)
		}
	}
	if leanSQL >= richSQL {
		t.Errorf("SQL statements: lean selection %d, rich selection %d; want fewer for the lean one", leanSQL, richSQL)
	}
	t.Logf("SQL statements: lean %d, rich %d", leanSQL, richSQL)
	f.noStrays(t)
}
