package resolvers_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/okrgate/okrgate/graph/fastpath"
	"github.com/okrgate/okrgate/resolvers/transport/graphqlhttp"
	"github.com/okrgate/okrgate/upstream/infra/observe"
)

// fastPathQueries exercise what the fast path does beyond plain fields:
// aliases of one edge with different arguments, fragments on interfaces
// and unions, @include and @skip, __typename at every level, connections
// with edges and page info, nulls, missing items and errors below a root
// field (which the fast path leaves to gqlgen).
var fastPathQueries = []struct {
	name, query string
	vars        map[string]any
}{
	{"tree", treeQuery, nil},
	{"aliases", `query($s: ID!) { session(id: $s) { __typename id
		a: goals(roots: true, first: 2) { id name children(first: 1) { id } }
		b: goals(roots: true) { __typename id owners { __typename ... on User { id email } ... on Team { id name } } }
	} }`, nil},
	{"directives", `query($s: ID!, $yes: Boolean!, $no: Boolean!) { session(id: $s) { goals {
		id name @include(if: $yes) description @include(if: $no) attainment @skip(if: $yes)
		metrics @include(if: $yes) { id checkins @skip(if: $no) { id actual createdById } }
	} } }`, map[string]any{"yes": true, "no": false}},
	{"connections", `{ goals(first: 3) { totalCount pageInfo { hasNextPage endCursor }
		edges { cursor node { id parent { id name } metricsConnection(first: 2) { totalCount nodes { id tasks { id parent { __typename ... on Goal { id } ... on Metric { id } } owner { __typename } } } } } }
	} }`, nil},
	{"nodes", `{ viewer { id teams { id members { id } } goals { id session { id title } } }
		account { id } users(first: 50) { nodes { id roles { __typename } badges { __typename } employee { id } } } }`, nil},
	{"missing", `{ goal(id: "000000000000000000000000") { id children { id } } }`, nil},
	{"argument error below", `query($s: ID!) { session(id: $s) { goals { id children(first: -1) { id } } } }`, nil},
	{"filter error below", `query($s: ID!) { session(id: $s) { goals { id metrics(filter: {name: {bogus: 1}}) { id } } } }`, nil},
}

// TestFastPathAnswersAsGqlgen runs every query of TestEveryFieldResolves
// and fastPathQueries on two servers over one store, one with the fast
// path and one serving every field through gqlgen's executor, as the
// admin, a member and a viewer, and requires byte-identical answers.
func TestFastPathAnswersAsGqlgen(t *testing.T) {
	o := everyKindFixture(t, "fastpath")
	gq := httptest.NewServer(observe.Stack(observe.Config{})(graphqlhttp.NewHandler(graphqlhttp.Config{
		API: o.store, Auth: o.store, Metrics: newMetrics(t, prometheus.NewRegistry()), NoFastPath: true,
	})))
	defer gq.Close()
	sessions := o.run(t, `{ sessions(first: 50) { nodes { id } } }`, nil).(map[string]any)["sessions"].(map[string]any)["nodes"].([]any)
	if len(sessions) < 2 {
		t.Fatalf("%d sessions", len(sessions))
	}
	type query struct {
		name, query string
		vars        map[string]any
	}
	var all []query
	for i, q := range everyFieldQueries(t) {
		all = append(all, query{name: "every field #" + string(rune('a'+i%26)), query: q})
	}
	for _, s := range sessions {
		id := s.(map[string]any)["id"]
		for _, q := range fastPathQueries {
			vars := map[string]any{"s": id, "id": id}
			for k, v := range q.vars {
				vars[k] = v
			}
			all = append(all, query{name: q.name, query: q.query, vars: vars})
		}
	}
	served := o.metrics.FastPath(fastpath.Served)
	compared := 0
	for _, q := range all {
		for who, token := range map[string]string{"admin": o.token, "member": o.memberToken, "viewer": o.viewerToken} {
			fast := postRaw(t, o.srv.URL, token, q.query, q.vars)
			slow := postRaw(t, gq.URL, token, q.query, q.vars)
			if !bytes.Equal(sortErrors(t, fast), sortErrors(t, slow)) {
				t.Errorf("%s as %s: the answers differ\nfast path: %s\ngqlgen:    %s\nquery: %s", q.name, who, clip(fast), clip(slow), q.query)
			}
			compared++
		}
	}
	if d := o.metrics.FastPath(fastpath.Served) - served; d < int64(compared) {
		t.Errorf("the fast path served %d fields over %d requests; it should serve the root fields of nearly all", d, compared)
	}
	if o.metrics.FastPath(fastpath.GaveUp) == 0 {
		t.Error("no query made the fast path give up; the error queries should")
	}
	t.Logf("%d answers compared; fast path: %d served, %d gave up, %d unsupported", compared,
		o.metrics.FastPath(fastpath.Served), o.metrics.FastPath(fastpath.GaveUp), o.metrics.FastPath(fastpath.Unsupported))
}

// postRaw posts a GraphQL request and returns the response body as sent.
func postRaw(tb testing.TB, url, token, q string, vars map[string]any) []byte {
	tb.Helper()
	body, _ := json.Marshal(map[string]any{"query": q, "variables": vars})
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return raw
}

// sortErrors returns the answer with its errors sorted: gqlgen resolves
// the elements of a list concurrently, so the order of their errors
// varies from run to run, on either side. The data stays as written.
func sortErrors(tb testing.TB, raw []byte) []byte {
	tb.Helper()
	var r struct {
		Data   json.RawMessage   `json:"data"`
		Errors []json.RawMessage `json:"errors"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		tb.Fatalf("not a GraphQL response: %s", raw)
	}
	if len(r.Errors) < 2 {
		return raw
	}
	sort.Slice(r.Errors, func(i, j int) bool { return string(r.Errors[i]) < string(r.Errors[j]) })
	out := append([]byte(nil), r.Data...)
	for _, e := range r.Errors {
		out = append(append(out, '\n'), e...)
	}
	return out
}

func clip(b []byte) string {
	if len(b) > 600 {
		return string(b[:600]) + "…"
	}
	return string(b)
}
