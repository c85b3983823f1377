package resolvers_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/okrgate/okrgate/graph/fastpath"
	"github.com/okrgate/okrgate/resolvers"
	"github.com/okrgate/okrgate/resolvers/infra/limits"
	"github.com/okrgate/okrgate/resolvers/transport/graphqlhttp"
	"github.com/okrgate/okrgate/upstream/infra/observe"
)

// deferQueries are deferred versions of tree queries: the first part must
// hold the roots (the session and its root objectives, without the
// deferred fields), the rest arrive in later parts.
var deferQueries = []struct {
	name, query string
}{
	{"subtree", `query($s: ID!) { session(id: $s) { id title goals(roots: true) { id name
		... @defer(label: "subtree") { attainment children { id name metrics { id name checkins { id actual } } } metrics { id owners { __typename } } }
	} } }`},
	{"two labels and a spread", `query($s: ID!) { session(id: $s) { id goals(roots: true) { id
		...Owners @defer(label: "owners")
		... @defer(label: "tasks") { tasks { id name owner { __typename } } children { id } }
		children { id name }
	} } }
	fragment Owners on Goal { owners { __typename ... on User { id name } ... on Team { id name } } }`},
	{"deferred session", `query($s: ID!) { session(id: $s) { id ... @defer { goals(roots: true) { id name children { id } } } } }`},
	{"connection", `{ goals(first: 5) { totalCount nodes { id ... @defer { children { id name } session { id title } } } } }`},
	{"nested defer (gqlgen's)", `query($s: ID!) { session(id: $s) { id goals(roots: true) { id
		... @defer(label: "outer") { children { id ... @defer(label: "inner") { metrics { id } } } }
	} } }`},
	{"no defer if false", `query($s: ID!) { session(id: $s) { id goals(roots: true) { id ... @defer(if: false) { children { id } } } } }`},
}

// TestDeferIncremental posts each deferred query with Accept:
// multipart/mixed over HTTP to a server with the fast path and to one
// without it (gqlgen's executor), parses the multipart answers, requires a
// first part with the roots and hasNext true, and requires the parts,
// merged at their paths, to equal the answer to the same query without
// @defer. Without Accept: multipart/mixed the answer is that one JSON.
func TestDeferIncremental(t *testing.T) {
	f := seeded(t, 60, 2)
	metrics := newMetrics(t, prometheus.NewRegistry())
	fast := httptest.NewServer(observe.Stack(observe.Config{})(graphqlhttp.NewHandler(graphqlhttp.Config{
		API: f.store, Auth: f.store, Metrics: metrics,
	})))
	defer fast.Close()
	slow := httptest.NewServer(observe.Stack(observe.Config{})(graphqlhttp.NewHandler(graphqlhttp.Config{
		API: f.store, Auth: f.store, Metrics: newMetrics(t, prometheus.NewRegistry()), NoFastPath: true,
	})))
	defer slow.Close()
	vars := map[string]any{"s": f.sessions[0]}
	for _, q := range deferQueries {
		plain := withoutDefer(q.query)
		want := postRaw(t, fast.URL, f.token, plain, vars)
		if !bytes.Equal(want, postRaw(t, slow.URL, f.token, plain, vars)) {
			t.Fatalf("%s: the executors answer the query without @defer differently", q.name)
		}
		var wantData any
		mustDecodeData(t, want, &wantData)
		for name, url := range map[string]string{"fast path": fast.URL, "gqlgen": slow.URL} {
			// Without multipart/mixed: one JSON, as if nothing were deferred.
			if got := postRaw(t, url, f.token, q.query, vars); !bytes.Equal(got, want) {
				t.Errorf("%s, %s, application/json: got %s\nwant %s", q.name, name, clip(got), clip(want))
			}
			served, left := metrics.FastPath(fastpath.Served), metrics.FastPath(fastpath.Unsupported)
			parts := postMultipart(t, url, f.token, q.query, vars)
			t.Logf("%s, %s: %d parts", q.name, name, len(parts))
			if name == "fast path" && !strings.HasPrefix(q.name, "nested") {
				// The fast path serves the deferred query itself.
				if metrics.FastPath(fastpath.Served) == served || metrics.FastPath(fastpath.Unsupported) != left {
					t.Errorf("%s: the fast path left the deferred query to gqlgen", q.name)
				}
			}
			if q.name == "no defer if false" {
				if len(parts) != 1 {
					t.Errorf("%s, %s: %d parts for a query that defers nothing", q.name, name, len(parts))
				}
				continue
			}
			if len(parts) < 2 {
				t.Fatalf("%s, %s: %d parts, want the roots and deferred parts", q.name, name, len(parts))
			}
			first := parts[0]
			if first["hasNext"] != true || first["data"] == nil || first["errors"] != nil {
				t.Fatalf("%s, %s: first part %v", q.name, name, first)
			}
			checkRootsFirst(t, q.name+", "+name, first["data"])
			last := parts[len(parts)-1]
			if last["hasNext"] != false {
				t.Errorf("%s, %s: the last part says hasNext %v", q.name, name, last["hasNext"])
			}
			merged := mergeParts(t, parts)
			if !reflect.DeepEqual(merged, wantData) {
				g, _ := json.Marshal(merged)
				t.Errorf("%s, %s: the merged parts differ from the answer without @defer\ngot  %s\nwant %s", q.name, name, clip(g), clip(want))
			}
		}
	}
}

// checkRootsFirst requires the first part to hold the roots and not the
// deferred fields: a session's id, its root objectives' ids, and no
// objective's children unless selected outside a deferred fragment.
func checkRootsFirst(t *testing.T, name string, data any) {
	t.Helper()
	d := data.(map[string]any)
	if s, ok := d["session"].(map[string]any); ok {
		if s["id"] == nil {
			t.Errorf("%s: no session id in the first part: %v", name, s)
		}
		goals, ok := s["goals"].([]any)
		if !ok {
			return // the goals are deferred
		}
		if len(goals) == 0 {
			t.Fatalf("%s: no root objectives in the first part", name)
		}
		for _, g := range goals {
			g := g.(map[string]any)
			if g["id"] == nil {
				t.Errorf("%s: a root objective without its id in the first part: %v", name, g)
			}
			// Deferred fields are left out (the fast path) or null
			// (gqlgen's executor writes null until the payload).
			for _, k := range []string{"metrics", "owners", "tasks"} {
				if g[k] != nil {
					t.Errorf("%s: deferred %s in the first part: %v", name, k, g)
				}
			}
		}
		return
	}
	if c, ok := d["goals"].(map[string]any); ok {
		for _, g := range c["nodes"].([]any) {
			if g.(map[string]any)["children"] != nil {
				t.Errorf("%s: deferred children in the first part: %v", name, g)
			}
		}
		return
	}
	t.Errorf("%s: no roots in the first part: %v", name, d)
}

// postMultipart posts a query accepting multipart/mixed and returns the
// JSON parts of the answer (one for an answer that is not incremental).
func postMultipart(tb testing.TB, url, token, q string, vars map[string]any) []map[string]any {
	tb.Helper()
	body, _ := json.Marshal(map[string]any{"query": q, "variables": vars})
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "multipart/mixed;deferSpec=20220824, application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	mt, params, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if err != nil {
		tb.Fatal(err)
	}
	if mt != "multipart/mixed" {
		raw, _ := io.ReadAll(resp.Body)
		var one map[string]any
		if err := json.Unmarshal(raw, &one); err != nil {
			tb.Fatalf("HTTP %d %s: %s", resp.StatusCode, mt, raw)
		}
		return []map[string]any{one}
	}
	var parts []map[string]any
	mr := multipart.NewReader(resp.Body, params["boundary"])
	for {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			tb.Fatalf("part %d: %v", len(parts), err)
		}
		if ct := p.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
			tb.Fatalf("part %d: Content-Type %q", len(parts), ct)
		}
		var m map[string]any
		if err := json.NewDecoder(p).Decode(&m); err != nil {
			tb.Fatalf("part %d: %v", len(parts), err)
		}
		parts = append(parts, m)
	}
	return parts
}

// mergeParts merges the incremental payloads of parts into the data of the
// first, at their paths, as a client does; it fails on any error. A
// payload whose path is not there yet waits for the others (gqlgen's
// executor may send a nested fragment's payload before its parent's).
func mergeParts(tb testing.TB, parts []map[string]any) any {
	tb.Helper()
	data := parts[0]["data"]
	var waiting []map[string]any
	for i, p := range parts[1:] {
		inc, ok := p["incremental"].([]any)
		if !ok || len(inc) == 0 {
			tb.Fatalf("part %d: no incremental payloads: %v", i+1, p)
		}
		for _, x := range inc {
			x := x.(map[string]any)
			if x["errors"] != nil {
				tb.Fatalf("part %d: errors %v", i+1, x["errors"])
			}
			waiting = append(waiting, x)
		}
	}
	for len(waiting) > 0 {
		var left []map[string]any
		for _, x := range waiting {
			if obj := payloadAt(tb, data, x["path"]); obj != nil {
				mergeObject(obj, x["data"].(map[string]any))
			} else {
				left = append(left, x)
			}
		}
		if len(left) == len(waiting) {
			tb.Fatalf("payloads at paths that are not in the answer: %v", left)
		}
		waiting = left
	}
	return data
}

// payloadAt returns the object of data at path, or nil when it is not there.
func payloadAt(tb testing.TB, data, path any) map[string]any {
	tb.Helper()
	els, ok := path.([]any)
	if !ok {
		tb.Fatalf("a payload without a path: %v", path)
	}
	v := data
	for _, el := range els {
		switch el := el.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[el]
		case float64:
			l, _ := v.([]any)
			if int(el) >= len(l) {
				return nil
			}
			v = l[int(el)]
		}
	}
	obj, _ := v.(map[string]any)
	return obj
}

// mergeObject sets the fields of x in obj, merging objects selected both
// inside and outside the fragment.
func mergeObject(obj, x map[string]any) {
	for k, v := range x {
		old, ok := obj[k].(map[string]any)
		if nv, isObj := v.(map[string]any); ok && isObj {
			mergeObject(old, nv)
			continue
		}
		obj[k] = v
	}
}

// withoutDefer returns q with its @defer directives removed.
func withoutDefer(q string) string {
	for _, d := range []string{`@defer(label: "subtree")`, `@defer(label: "owners")`, `@defer(label: "tasks")`,
		`@defer(label: "outer")`, `@defer(label: "inner")`, `@defer(if: false)`, `@defer`} {
		q = strings.ReplaceAll(q, d, "")
	}
	return q
}

// mustDecodeData decodes an answer's data into v and fails on errors.
func mustDecodeData(tb testing.TB, raw []byte, v any) {
	tb.Helper()
	var r struct {
		Data   json.RawMessage `json:"data"`
		Errors []any           `json:"errors"`
	}
	if err := json.Unmarshal(raw, &r); err != nil || len(r.Errors) > 0 || len(r.Data) == 0 {
		tb.Fatalf("answer %s (%v)", clip(raw), err)
	}
	if err := json.Unmarshal(r.Data, v); err != nil {
		tb.Fatal(err)
	}
}

// partsErrors returns the error codes and paths of every part of a
// multipart answer, sorted.
func partsErrors(parts []map[string]any) []string {
	var out []string
	add := func(errs any) {
		list, _ := errs.([]any)
		for _, e := range list {
			e := e.(map[string]any)
			code := ""
			if ext, ok := e["extensions"].(map[string]any); ok {
				code, _ = ext["code"].(string)
			}
			p, _ := json.Marshal(e["path"])
			out = append(out, code+" "+string(p))
		}
	}
	for _, p := range parts {
		add(p["errors"])
		inc, _ := p["incremental"].([]any)
		for _, x := range inc {
			add(x.(map[string]any)["errors"])
		}
	}
	sort.Strings(out)
	return out
}

// TestDeferGivesBackToGqlgen: a deferred fragment whose field fails is
// given back to gqlgen's executor, which reports the error at its path and
// nulls the payload, as for its own deferred fragments: the fast path's
// payloads carry the same errors as gqlgen's.
func TestDeferGivesBackToGqlgen(t *testing.T) {
	f := seeded(t, 60, 2)
	slow := httptest.NewServer(observe.Stack(observe.Config{})(graphqlhttp.NewHandler(graphqlhttp.Config{
		API: f.store, Auth: f.store, Metrics: newMetrics(t, prometheus.NewRegistry()), NoFastPath: true,
	})))
	defer slow.Close()
	q := `query($s: ID!) { session(id: $s) { id goals(roots: true) { id name
		... @defer(label: "bad") { children(first: -1) { id } }
		... @defer(label: "good") { metrics { id } }
	} } }`
	vars := map[string]any{"s": f.sessions[0]}
	fast := postMultipart(t, f.srv.URL, f.token, q, vars)
	gq := postMultipart(t, slow.URL, f.token, q, vars)
	fe, ge := partsErrors(fast), partsErrors(gq)
	if len(fe) == 0 || !reflect.DeepEqual(fe, ge) {
		t.Fatalf("errors differ\nfast path: %v\ngqlgen:    %v", fe, ge)
	}
	if !strings.Contains(fe[0], `"children"`) {
		t.Errorf("the error is not at the deferred field: %v", fe)
	}
	// The payloads of the good fragment arrive on both, with the same data.
	good := func(parts []map[string]any) map[string]string {
		out := map[string]string{}
		for _, p := range parts[1:] {
			inc, _ := p["incremental"].([]any)
			for _, x := range inc {
				x := x.(map[string]any)
				path, _ := json.Marshal(x["path"])
				data, _ := json.Marshal(x["data"])
				out[fmt.Sprint(x["label"])+string(path)] = string(data)
			}
		}
		return out
	}
	g, w := good(fast), good(gq)
	if len(g) != len(w) || len(g) == 0 {
		t.Fatalf("payloads differ\nfast path: %v\ngqlgen:    %v", g, w)
	}
	for k, data := range g {
		switch {
		case strings.HasPrefix(k, "bad"):
			if data != "null" || w[k] != "null" {
				t.Errorf("%s: fast path %s, gqlgen %s; want null on both", k, data, w[k])
			}
		case data == "null":
			t.Errorf("%s: the good fragment is null on the fast path", k)
		case w[k] != data && w[k] != "null":
			// gqlgen v0.17.95 nulls every fragment of an object once one
			// of them fails (one FieldSet for all its labels); the fast
			// path nulls only the failed one (docs/graphql-federation.md).
			t.Errorf("%s: fast path %s, gqlgen %s", k, data, w[k])
		}
	}
}

// TestDeferCountsTheSame: a deferred fragment counts against the node
// limit as it does without @defer. For a range of limits, the query
// without @defer is refused (NODE_LIMIT) exactly when its deferred version
// reports NODE_LIMIT in one of its parts, on the fast path and gqlgen's.
func TestDeferCountsTheSame(t *testing.T) {
	f := seeded(t, 60, 2)
	q := `query($s: ID!) { session(id: $s) { id goals(roots: true) { id name
		... @defer { metrics { id name checkins { id } } children { id name } } } } }`
	vars := map[string]any{"s": f.sessions[0]}
	refusedLater := false
	outcomes := map[bool]int{}
	for _, limit := range []int{20, 60, 120, 250, 500, 1000, 4000} {
		for _, noFast := range []bool{false, true} {
			srv := httptest.NewServer(observe.Stack(observe.Config{})(graphqlhttp.NewHandler(graphqlhttp.Config{
				API: f.store, Auth: f.store, Metrics: newMetrics(t, prometheus.NewRegistry()), NoFastPath: noFast, MaxNodes: limit,
			})))
			var plain gqlResponse
			if err := json.Unmarshal(postRaw(t, srv.URL, f.token, withoutDefer(q), vars), &plain); err != nil {
				t.Fatal(err)
			}
			parts := postMultipart(t, srv.URL, f.token, q, vars)
			srv.Close()
			deferred := slices.ContainsFunc(partsErrors(parts), func(e string) bool { return strings.HasPrefix(e, limits.CodeNodeLimit+" ") })
			refused := plain.code() == limits.CodeNodeLimit
			if refused != deferred {
				t.Errorf("limit %d, NoFastPath %v: without @defer refused %v, deferred refused %v (%v)", limit, noFast, refused, deferred, partsErrors(parts))
			}
			outcomes[refused]++
			if deferred && parts[0]["errors"] == nil {
				refusedLater = true // the roots went out, a deferred payload ran over
			}
		}
	}
	if outcomes[true] == 0 || outcomes[false] == 0 {
		t.Errorf("the limits should refuse some answers and allow others: %v", outcomes)
	}
	if !refusedLater {
		t.Error("no limit let the roots out and refused a deferred payload")
	}
}

// TestDeferCostsTheSame: the cost limit estimates a deferred fragment as if
// it were not deferred: for a range of limits, the query is refused
// (COMPLEXITY_LIMIT_EXCEEDED, before execution) with and without @defer
// alike.
func TestDeferCostsTheSame(t *testing.T) {
	f := seeded(t, 10, 1)
	q := `query($s: ID!) { session(id: $s) { id goals(roots: true) { id
		... @defer { metrics { id checkins { id } } children { id children { id } } } } } }`
	vars := map[string]any{"s": f.sessions[0]}
	outcomes := map[bool]int{}
	for _, limit := range []int{10, 100, 1000, 10000, 100000, 1000000} {
		srv := httptest.NewServer(observe.Stack(observe.Config{})(graphqlhttp.NewHandler(graphqlhttp.Config{
			API: f.store, Auth: f.store, Metrics: newMetrics(t, prometheus.NewRegistry()), MaxComplexity: limit,
		})))
		var plain gqlResponse
		if err := json.Unmarshal(postRaw(t, srv.URL, f.token, withoutDefer(q), vars), &plain); err != nil {
			t.Fatal(err)
		}
		parts := postMultipart(t, srv.URL, f.token, q, vars)
		srv.Close()
		refused := plain.code() == resolvers.CodeComplexityLimit
		deferred := slices.ContainsFunc(partsErrors(parts), func(e string) bool { return strings.HasPrefix(e, resolvers.CodeComplexityLimit+" ") })
		if refused != deferred || deferred && len(parts) != 1 {
			t.Errorf("limit %d: without @defer refused %v, deferred refused %v in %d parts", limit, refused, deferred, len(parts))
		}
		outcomes[refused]++
	}
	if outcomes[true] == 0 || outcomes[false] == 0 {
		t.Errorf("the limits should refuse some queries and allow others: %v", outcomes)
	}
}
