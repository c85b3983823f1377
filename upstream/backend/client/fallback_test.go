package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/okrgate/okrgate/resolvers/transport/graphqlhttp"
	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/client"
	"github.com/okrgate/okrgate/upstream/query"
	"github.com/okrgate/okrgate/upstream/seed"
	"github.com/okrgate/okrgate/upstream/transport/rest"
)

// fallbackTree reads the edges whose designed listings a documented-only
// upstream lacks: check-ins under key results.
const fallbackTree = `query($id: ID!) { session(id: $id) { goals(roots: true) { id name
  metrics { id checkins { id actual } } children { id metrics { id checkins { id actual } } } } } }`

// TestFallbackTree serves GraphQL over the client of a facade without the
// designed listings: the tree answers as GraphQL over the store itself, and
// the per-parent calls it cost are counted (one per key result).
func TestFallbackTree(t *testing.T) {
	b := newBackend(t, rest.Options{NoGatewayRoutes: true})
	ctx := context.Background()
	caller, err := b.store.Authenticate(ctx, b.env.Admin)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := seed.Synthetic(upstream.NewContext(ctx, caller), b.store, seed.Options{Goals: 12, Seed: 1, Sessions: 1})
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	c := b.newClient(t, client.Options{Registerer: reg})
	if _, err := c.Discover(ctx); err != nil {
		t.Fatal(err)
	}
	direct := graphql(t, graphqlhttp.NewHandler(graphqlhttp.Config{API: b.store, Auth: b.store}), b.env.Admin, sum.Sessions[0])
	through := graphql(t, graphqlhttp.NewHandler(graphqlhttp.Config{API: c, Auth: c}), b.env.Admin, sum.Sessions[0])
	if !bytes.Equal(direct, through) || bytes.Contains(direct, []byte(`"errors"`)) {
		t.Fatalf("over the fallback:\n%.400s\ndirect:\n%.400s", through, direct)
	}
	metrics, err := b.store.ListMetrics(upstream.NewContext(ctx, caller), upstream.ListQuery{Filter: query.Eq("sessionId", sum.Sessions[0]), Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	n := testutil.ToFloat64(fallbackCounter(t, reg, "ListCheckIns"))
	t.Logf("%d key results in the session; %v per-key-result check-in calls", metrics.TotalCount, n)
	if n == 0 || n > float64(metrics.TotalCount) {
		t.Errorf("fallback check-in calls = %v, want 1 to %d (one per key result in the tree)", n, metrics.TotalCount)
	}
}

func graphql(t *testing.T, h http.Handler, token, session string) []byte {
	t.Helper()
	srv := httptest.NewServer(h)
	defer srv.Close()
	body, _ := json.Marshal(map[string]any{"query": fallbackTree, "variables": map[string]any{"id": session}})
	req, _ := http.NewRequest("POST", srv.URL, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return raw
}

func fallbackCounter(t *testing.T, reg *prometheus.Registry, op string) prometheus.Collector {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	g := prometheus.NewGauge(prometheus.GaugeOpts{Name: "x"})
	for _, mf := range mfs {
		if mf.GetName() != "okrgate_upstream_fallback_calls_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "operation" && l.GetValue() == op {
					g.Set(m.GetCounter().GetValue())
				}
			}
		}
	}
	return g
}
