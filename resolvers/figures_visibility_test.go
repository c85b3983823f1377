package resolvers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/okrgate/okrgate/resolvers/transport/graphqlhttp"
	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore/sqlstoretest"
)

// TestFiguresCountPrivateItemsOverGraphQL checks the figures rule
// (docs/authorization.md, "Figures count every item") over GraphQL: a
// member querying a public goal whose only key result (37%) and only child
// goal (91%) are private gets the figures an admin gets, private items
// counted, while children and metrics list none of them and the child is
// null.
func TestFiguresCountPrivateItemsOverGraphQL(t *testing.T) {
	ctx := context.Background()
	st := sqlstoretest.Open(t)
	b, err := st.Bootstrap(ctx, sqlstore.BootstrapInput{AccountName: "Acme", Email: "admin@acme.test"})
	if err != nil {
		t.Fatal(err)
	}
	caller, err := st.Authenticate(ctx, b.Token)
	if err != nil {
		t.Fatal(err)
	}
	admin := upstream.NewContext(ctx, caller)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	u, err := st.CreateUser(admin, upstream.UserInput{Email: "member@acme.test", FirstName: "Mem", Role: upstream.RoleMember})
	must(err)
	memberToken, err := st.CreateToken(admin, u.ID)
	must(err)
	s, err := st.CreateSession(admin, upstream.SessionInput{Title: "Q1", Start: "2026-01-01", End: "2026-03-31"})
	must(err)
	parent, err := st.CreateGoal(admin, upstream.GoalInput{Name: "public parent", SessionID: s.ID})
	must(err)
	child, err := st.CreateGoal(admin, upstream.GoalInput{Name: "private child", SessionID: s.ID, ParentID: parent.ID, Private: true})
	must(err)
	target := 100.0
	pkr, err := st.CreateMetric(admin, upstream.MetricInput{Name: "private kr", GoalID: parent.ID, Target: &target, Private: true})
	must(err)
	ckr, err := st.CreateMetric(admin, upstream.MetricInput{Name: "child kr", GoalID: child.ID, Target: &target})
	must(err)
	for kr, v := range map[string]float64{pkr.ID: 37, ckr.ID: 91} {
		_, err := st.CheckIn(admin, kr, upstream.CheckInInput{Actual: &v})
		must(err)
	}
	srv := httptest.NewServer(graphqlhttp.NewHandler(graphqlhttp.Config{API: st, Auth: st}))
	defer srv.Close()

	const q = `query($p: ID!, $c: ID!) {
  goal(id: $p) { attainment aggregatedAttainment childrenAggregatedAttainment fullAggregatedAttainment
    childrenCount subTreeCount fullSubTreeCount metricsCount children { id } metrics { id } }
  child: goal(id: $c) { id }
}`
	type goal struct {
		Attainment, AggregatedAttainment, ChildrenAggregatedAttainment, FullAggregatedAttainment float64
		ChildrenCount, SubTreeCount, FullSubTreeCount, MetricsCount                              int
		Children, Metrics                                                                        []struct{ ID string }
	}
	for who, token := range map[string]string{"admin": b.Token, "member": memberToken} {
		body, _ := json.Marshal(map[string]any{"query": q, "variables": map[string]any{"p": parent.ID, "c": child.ID}})
		req, _ := http.NewRequest(http.MethodPost, srv.URL, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		var out struct {
			Goal  goal
			Child *struct{ ID string }
		}
		res := send(t, req)
		if who == "member" {
			// The private child is null for the member (with a not-found error
			// at its path, or none); the parent must have come through.
			res.Errors = nil
		}
		res.mustData(t, &out)
		g := out.Goal
		got := []float64{g.Attainment, g.AggregatedAttainment, g.ChildrenAggregatedAttainment, g.FullAggregatedAttainment,
			float64(g.ChildrenCount), float64(g.SubTreeCount), float64(g.FullSubTreeCount), float64(g.MetricsCount)}
		want := []float64{0.37, 0.91, 0.91, 0.64, 1, 1, 1, 1}
		for i := range want {
			if math.Abs(got[i]-want[i]) > 1e-9 {
				t.Errorf("%s: the parent's figures %v, want %v (every reader the same)", who, got, want)
				break
			}
		}
		seen := len(g.Children) + len(g.Metrics)
		switch {
		case who == "admin" && (seen != 2 || out.Child == nil):
			t.Errorf("admin: children %v, metrics %v, child %v; want the private items", g.Children, g.Metrics, out.Child)
		case who == "member" && (seen != 0 || out.Child != nil):
			t.Errorf("member: children %v, metrics %v, child %v; want none of the private items", g.Children, g.Metrics, out.Child)
		}
	}
}
