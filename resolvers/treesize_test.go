package resolvers_test

import (
	"bytes"
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/okrgate/okrgate/resolvers/transport/graphqlhttp"
	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/infra/instrument"
	"github.com/okrgate/okrgate/upstream/query"
)

// TestTreeCallsDoNotGrowWithTheAccount: the tree of the largest session
// costs the same store calls and SQL statements at 1,000 objectives as at
// 10,000 (the benchmark's datasets, replicated from 100 seeded ones), where
// its levels hold several thousand goals and key results: a level is one
// call however many keys and items it has.
func TestTreeCallsDoNotGrowWithTheAccount(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 10,000-objective account")
	}
	var costs []map[string]int64
	var stmts []int64
	for _, n := range []int{1000, 10000} {
		st, token := benchStore(t, n)
		calls := instrument.NewCounter()
		h := graphqlhttp.NewHandler(graphqlhttp.Config{API: instrument.New(st, calls), Auth: st})
		caller, err := st.Authenticate(t.Context(), token)
		if err != nil {
			t.Fatal(err)
		}
		ctx := upstream.NewContext(t.Context(), caller)
		sp, err := st.ListSessions(ctx, upstream.ListQuery{}, false)
		if err != nil {
			t.Fatal(err)
		}
		sid, most := "", -1
		for _, s := range sp.Items {
			p, err := st.ListGoals(ctx, upstream.ListQuery{Filter: query.Eq("sessionId", s.ID), Limit: 1})
			if err != nil {
				t.Fatal(err)
			}
			if p.TotalCount > most {
				sid, most = s.ID, p.TotalCount
			}
		}
		body, _ := json.Marshal(map[string]any{"query": treeQuery, "variables": map[string]any{"id": sid}})
		req := httptest.NewRequest(http.MethodPost, "/graphql", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+token)
		rec := httptest.NewRecorder()
		before, sqlBefore := calls.Snapshot(), st.QueryCount()
		h.ServeHTTP(rec, req)
		got := instrument.Diff(before, calls.Snapshot())
		stmts = append(stmts, st.QueryCount()-sqlBefore)
		if rec.Code != http.StatusOK || bytes.Contains(rec.Body.Bytes(), []byte(`"errors"`)) {
			t.Fatalf("%d objectives: HTTP %d: %.500s", n, rec.Code, rec.Body.String())
		}
		var tree treeOut
		if err := json.Unmarshal(rec.Body.Bytes(), &struct{ Data *treeOut }{&tree}); err != nil {
			t.Fatal(err)
		}
		goals, metrics := 0, 0
		var walk func(gs []goalOut)
		walk = func(gs []goalOut) {
			for _, g := range gs {
				goals++
				metrics += len(g.Metrics)
				if g.Children != nil {
					walk(*g.Children)
				}
			}
		}
		walk(tree.Session.Goals)
		if n == 10000 && metrics <= 2*upstream.MaxLimit {
			t.Fatalf("10,000 objectives: the session has %d key results; the test needs levels of several pages", metrics)
		}
		t.Logf("%d objectives: session of %d goals, %d key results; calls %v, %d SQL statements", n, goals, metrics, got, stmts[len(stmts)-1])
		costs = append(costs, got)
		st.Close()
	}
	if !maps.Equal(costs[0], costs[1]) || stmts[0] != stmts[1] {
		t.Fatalf("calls at 1,000 objectives %v (%d statements), at 10,000 %v (%d statements)", costs[0], stmts[0], costs[1], stmts[1])
	}
}
