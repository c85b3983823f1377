package rest_test

import (
	"math"
	"testing"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
)

// TestFiguresCountPrivateItemsOverREST checks the figures rule
// (docs/authorization.md, "Figures count every item") over HTTP: a member
// reading a public goal whose only key result (37%) and only child goal
// (91%) are private gets the figures an admin gets — the private items
// counted — while the listing of its children and its embedded key
// results show nothing of them, and the child is 404.
func TestFiguresCountPrivateItemsOverREST(t *testing.T) {
	e := newAuthzEnv(t)
	ctx := e.adminCtx()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	s, err := e.store.CreateSession(ctx, upstream.SessionInput{Title: "Q1", Start: "2026-01-01", End: "2026-03-31"})
	must(err)
	parent, err := e.store.CreateGoal(ctx, upstream.GoalInput{Name: "public parent", SessionID: s.ID})
	must(err)
	child, err := e.store.CreateGoal(ctx, upstream.GoalInput{Name: "private child", SessionID: s.ID, ParentID: parent.ID, Private: true})
	must(err)
	target := 100.0
	pkr, err := e.store.CreateMetric(ctx, upstream.MetricInput{Name: "private kr", GoalID: parent.ID, Target: &target, Private: true})
	must(err)
	ckr, err := e.store.CreateMetric(ctx, upstream.MetricInput{Name: "child kr", GoalID: child.ID, Target: &target})
	must(err)
	for kr, v := range map[string]float64{pkr.ID: 37, ckr.ID: 91} {
		_, err := e.store.CheckIn(ctx, kr, upstream.CheckInInput{Actual: &v})
		must(err)
	}

	want := map[string]float64{"attainment": 0.37, "aggregatedAttainment": 0.91, "childrenAggregatedAttainment": 0.91,
		"fullAggregatedAttainment": 0.64, "childrenCount": 1, "subTreeCount": 1, "fullSubTreeCount": 1, "metricsCount": 1}
	for who, as := range map[string]*sqlstore.BootstrapResult{"admin": &e.acct, "member": &e.member} {
		g := e.ok(req{method: "GET", path: "/api/v1/goals/" + parent.ID, as: as}, 200)
		for k, v := range want {
			if got := num(g, k); math.Abs(got-v) > 1e-9 {
				t.Errorf("%s: the parent's %s = %v, want %v", who, k, got, v)
			}
		}
		if who == "member" {
			if ms, _ := g["metrics"].([]any); len(ms) != 0 {
				t.Errorf("the member sees the private key result: %v", ms)
			}
		}
	}
	children := "/api/v2/integrations/goals?filter=" + filterQ(`{"parentId":"`+parent.ID+`"}`)
	if kids := e.ok(req{method: "GET", path: children}, 200); num(kids, "totalCount") != 1 {
		t.Errorf("the admin's listing of the children: %v", kids)
	}
	if kids := e.ok(req{method: "GET", path: children, as: &e.member}, 200); num(kids, "totalCount") != 0 || len(items(kids)) != 0 {
		t.Errorf("the member's listing of the children: %v", kids)
	}
	e.problem(req{method: "GET", path: "/api/v1/goals/" + child.ID, as: &e.member}, 404, "not_found")
}
