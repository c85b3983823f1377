package faults

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/okrgate/okrgate/resolvers/transport/graphqlhttp"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore/sqlstoretest"
	"github.com/okrgate/okrgate/upstream/infra/authn"
	"github.com/okrgate/okrgate/upstream/infra/observe"
)

// gqlAnswer is what a GraphQL client was told.
type gqlAnswer struct {
	status     int
	retryAfter string
	keys       map[string]json.RawMessage
	codes      []string
}

// TestGraphQLStoreDown: GraphQL over HTTP while PostgreSQL is cut off.
// An operation the outage failed as a whole answers, under
// application/graphql-response+json, 503 with Retry-After and UNAVAILABLE
// and no data (the GraphQL-over-HTTP spec's 5xx for a response without
// data); under application/json 200 with data null, the code and
// Retry-After (the spec's 200 for every well-formed request). An operation
// with a field that resolved stays 200 under both. A request whose token
// cannot be checked (the same database) is 503 with Retry-After.
func TestGraphQLStoreDown(t *testing.T) {
	if os.Getenv(sqlstoretest.EnvPostgres) == "" {
		t.Skip("fault tests on PostgreSQL: set " + sqlstoretest.EnvPostgres)
	}
	ctx := context.Background()
	direct := sqlstoretest.PostgresURL(t)
	u, err := url.Parse(direct)
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewProxy(u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	u.Host = p.Addr()
	// The data through the proxy; the tokens, for the cases where the
	// database fails after the request was authenticated, directly.
	data, err := sqlstore.Open(ctx, u.String(), sqlstore.WithDeadlines(testDeadlines))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { data.Close() })
	tokens, err := sqlstore.Open(ctx, direct)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tokens.Close() })
	boot, err := data.Bootstrap(ctx, sqlstore.BootstrapInput{AccountName: "Faults", Email: "ops@faults.test"})
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	metrics, err := observe.NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	serve := func(cfg graphqlhttp.Config) string {
		srv := httptest.NewServer(observe.Stack(observe.Config{Metrics: metrics})(graphqlhttp.NewHandler(cfg)))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	afterAuth := serve(graphqlhttp.Config{API: data, Authn: authn.New(tokens, nil)})
	sameStore := serve(graphqlhttp.Config{API: data, Auth: data})
	post := func(base, query, accept string) gqlAnswer {
		t.Helper()
		body, _ := json.Marshal(map[string]string{"query": query})
		req, _ := http.NewRequest(http.MethodPost, base, strings.NewReader(string(body)))
		req.Header.Set("Authorization", "Bearer "+boot.Token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", accept)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		raw, _ := io.ReadAll(res.Body)
		a := gqlAnswer{status: res.StatusCode, retryAfter: res.Header.Get("Retry-After")}
		if err := json.Unmarshal(raw, &a.keys); err != nil {
			t.Fatalf("not JSON: %d %s", res.StatusCode, raw)
		}
		var errs []struct {
			Extensions struct{ Code string } `json:"extensions"`
		}
		_ = json.Unmarshal(a.keys["errors"], &errs)
		for _, e := range errs {
			a.codes = append(a.codes, e.Extensions.Code)
		}
		return a
	}
	const (
		grj      = "application/graphql-response+json"
		js       = "application/json"
		whole    = `{ viewer { id } account { id } }`
		partial  = `{ __typename goal(id: "nope") { id } }`
		resolved = `"__typename":"Query"`
	)
	if a := post(afterAuth, whole, grj); a.status != http.StatusOK || len(a.codes) != 0 {
		t.Fatalf("before the fault: %d %v", a.status, a.codes)
	}

	p.Cut()
	defer p.Heal()
	cases := 0
	for _, tc := range []struct {
		name, base, query, accept string
		status                    int
		data                      bool // whether the data key is present
	}{
		{"whole operation, graphql-response", afterAuth, whole, grj, http.StatusServiceUnavailable, false},
		{"whole operation, json", afterAuth, whole, js, http.StatusOK, true},
		{"a field resolved, graphql-response", afterAuth, partial, grj, http.StatusOK, true},
		{"a field resolved, json", afterAuth, partial, js, http.StatusOK, true},
		{"token not checked, graphql-response", sameStore, whole, grj, http.StatusServiceUnavailable, false},
		{"token not checked, json", sameStore, whole, js, http.StatusServiceUnavailable, false},
	} {
		cases++
		a := post(tc.base, tc.query, tc.accept)
		_, hasData := a.keys["data"]
		if a.status != tc.status || hasData != tc.data {
			t.Errorf("%s: %d, data present %v; want %d, %v", tc.name, a.status, hasData, tc.status, tc.data)
		}
		if len(a.codes) == 0 {
			t.Errorf("%s: no error", tc.name)
		}
		for _, c := range a.codes {
			if c != "UNAVAILABLE" {
				t.Errorf("%s: code %s, want UNAVAILABLE", tc.name, c)
			}
		}
		if a.retryAfter == "" {
			t.Errorf("%s: no Retry-After", tc.name)
		}
		if tc.query == partial && !strings.Contains(string(a.keys["data"]), resolved) {
			t.Errorf("%s: data %s, want the field that resolved", tc.name, a.keys["data"])
		}
	}
	// Each request counted once as a fault of the database, on /metrics.
	if n := counterValue(t, reg, "okrgate_faults_total", map[string]string{"facade": "graphql", "code": "unavailable"}); n != float64(cases) {
		t.Errorf("okrgate_faults_total{facade=graphql,code=unavailable} = %v, want %d", n, cases)
	}
}

// counterValue is the value of the counter name with labels in reg.
func counterValue(t *testing.T, reg *prometheus.Registry, name string, labels map[string]string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	next:
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if v, ok := labels[l.GetName()]; ok && v != l.GetValue() {
					continue next
				}
			}
			return m.GetCounter().GetValue()
		}
	}
	t.Fatalf("no series %s%v", name, labels)
	return 0
}
