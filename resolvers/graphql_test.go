package resolvers_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/okrgate/okrgate/upstream/backend/sqlstore/sqlstoretest"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/okrgate/okrgate/resolvers"
	"github.com/okrgate/okrgate/resolvers/infra/limits"
	"github.com/okrgate/okrgate/resolvers/transport/graphqlhttp"
	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
	"github.com/okrgate/okrgate/upstream/infra/instrument"
	"github.com/okrgate/okrgate/upstream/infra/observe"
	"github.com/okrgate/okrgate/upstream/query"
)

// biggestSession returns the session of f with the most goals.
func biggestSession(t testing.TB, f *fixture) string {
	t.Helper()
	best, bestN := "", -1
	for _, sid := range f.sessions {
		p, err := f.store.ListGoals(f.ctx, upstream.ListQuery{Filter: query.Eq("sessionId", sid), Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		if p.TotalCount > bestN {
			best, bestN = sid, p.TotalCount
		}
	}
	return best
}

func runTree(t testing.TB, f *fixture, sid string) (treeOut, map[string]int64) {
	t.Helper()
	before := f.calls.Snapshot()
	resp := f.do(t, treeQuery, map[string]any{"id": sid})
	calls := instrument.Diff(before, f.calls.Snapshot())
	var got treeOut
	resp.mustData(t, &got)
	return got, calls
}

func jsonOf(t testing.TB, v any) string {
	t.Helper()
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestNestedTree: the nested query returns the tree read directly from the
// store, and costs the same upstream calls for 10 and for 1000 objectives.
func TestNestedTree(t *testing.T) {
	if testing.Short() {
		t.Skip("seeds 1000 objectives")
	}
	var counts []map[string]int64
	for _, ds := range []struct{ goals, sessions int }{{10, 1}, {1000, 5}} {
		f := seeded(t, ds.goals, ds.sessions)
		sid := biggestSession(t, f)
		want, err := directTree(f.ctx, f.store, sid)
		if err != nil {
			t.Fatal(err)
		}
		got, calls := runTree(t, f, sid)
		if g, w := jsonOf(t, got), jsonOf(t, want); g != w {
			t.Fatalf("%d objectives: GraphQL tree differs from the store's\n got: %.2000s\nwant: %.2000s", ds.goals, g, w)
		}
		// The tree is really three levels deep with key results and check-ins.
		levels, metrics, checkins := 0, 0, 0
		var walk func(gs []goalOut, d int)
		walk = func(gs []goalOut, d int) {
			for _, g := range gs {
				levels = max(levels, d)
				metrics += len(g.Metrics)
				for _, m := range g.Metrics {
					checkins += len(m.Checkins)
				}
				if g.Children != nil {
					walk(*g.Children, d+1)
				}
			}
		}
		walk(got.Session.Goals, 1)
		if levels != 3 || metrics == 0 || checkins == 0 {
			t.Fatalf("%d objectives: dataset too thin for the test: %d levels, %d key results, %d check-ins", ds.goals, levels, metrics, checkins)
		}
		if metrics > upstream.MaxLimit {
			t.Fatalf("a level holds more than one page (%d key results): the call count would grow by pages", metrics)
		}
		t.Logf("%d objectives (session with %d key results, %d check-ins): upstream calls %v", ds.goals, metrics, checkins, calls)
		f.noStrays(t)
		counts = append(counts, calls)
	}
	if !reflect.DeepEqual(counts[0], counts[1]) {
		t.Fatalf("upstream calls differ: 10 objectives %v, 1000 objectives %v", counts[0], counts[1])
	}
	// One call per level and path: sessions 1; goals 3 levels; per level key
	// results, their check-ins and tasks, the goals' tasks; owners of goals,
	// goal tasks and key results per level (the seed puts no tasks under key
	// results, so their owners are never asked for); plus Authenticate.
	want := map[string]int64{"Authenticate": 1, "ListSessions": 1, "ListGoals": 3, "ListMetrics": 3,
		"ListCheckIns": 3, "ListTasks": 6, "ListUsers": 9}
	if !reflect.DeepEqual(counts[0], want) {
		t.Fatalf("upstream calls = %v, want %v", counts[0], want)
	}
}

// TestEdgesPageBeyondTheLimit: a level with more than 1000 children is read
// whole, in one call to the store (upstream.ListQuery.All), losing nothing.
func TestEdgesPageBeyondTheLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("seeds 1000 objectives")
	}
	f := seeded(t, 1000, 5)
	before := f.calls.Snapshot()
	resp := f.do(t, `{ sessions(first: 100) { nodes { id goals { id metrics { id goalId } } } } }`, nil)
	calls := instrument.Diff(before, f.calls.Snapshot())
	var got struct {
		Sessions struct {
			Nodes []struct {
				ID    string
				Goals []struct {
					ID      string
					Metrics []struct{ ID, GoalID string }
				}
			}
		}
	}
	resp.mustData(t, &got)
	all, err := listAll(f.ctx, f.store.ListMetrics, nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	goals := 0
	for _, s := range got.Sessions.Nodes {
		for _, g := range s.Goals {
			goals++
			for _, m := range g.Metrics {
				if m.GoalID != g.ID || seen[m.ID] {
					t.Fatalf("key result %s under the wrong goal or twice", m.ID)
				}
				seen[m.ID] = true
			}
		}
	}
	if goals != 1000 || len(seen) != len(all) || len(all) <= upstream.MaxLimit {
		t.Fatalf("got %d goals and %d key results, store has %d key results", goals, len(seen), len(all))
	}
	if calls["ListMetrics"] != 1 || calls["ListGoals"] != 1 {
		t.Fatalf("calls %v: want one ListMetrics for %d key results and one ListGoals", calls, len(all))
	}
}

// TestMutationsFollowTheRules: writes go through upstream.API: a check-in
// recomputes the ancestors' attainment, a closed session refuses writes.
func TestMutationsFollowTheRules(t *testing.T) {
	f := newFixture(t, "mutations", graphqlhttp.Config{}, nil)
	defer f.srv.Close()
	var s struct{ CreateSession struct{ ID string } }
	f.do(t, `mutation { createSession(input: {title: "Q1", start: "2026-01-01", end: "2026-03-31"}) { id } }`, nil).mustData(t, &s)
	sid := s.CreateSession.ID
	var p struct{ CreateGoal struct{ ID string } }
	f.do(t, `mutation($s: ID!) { createGoal(input: {name: "Parent", sessionId: $s, attainmentTypeString: "average_children"}) { id } }`,
		map[string]any{"s": sid}).mustData(t, &p)
	var c struct{ CreateGoal struct{ ID, ParentID string } }
	f.do(t, `mutation($s: ID!, $p: ID!) { createGoal(input: {name: "Child", sessionId: $s, parentId: $p}) { id parentId } }`,
		map[string]any{"s": sid, "p": p.CreateGoal.ID}).mustData(t, &c)
	var m struct{ CreateMetric struct{ ID string } }
	f.do(t, `mutation($g: ID!) { createMetric(input: {name: "Revenue", goalId: $g, initialValue: 0, target: 100}) { id } }`,
		map[string]any{"g": c.CreateGoal.ID}).mustData(t, &m)
	var ci struct {
		CheckIn struct {
			CheckIn struct{ Actual float64 }
			Metric  struct{ Attainment float64 }
			Goal    struct {
				Attainment float64
				Parent     struct {
					ID         string
					Attainment float64
				}
			}
		}
	}
	f.do(t, `mutation($m: ID!) { checkIn(metricId: $m, input: {actual: 50, comment: "halfway"}) {
		checkIn { actual } metric { attainment } goal { attainment parent { id attainment } } } }`,
		map[string]any{"m": m.CreateMetric.ID}).mustData(t, &ci)
	got := ci.CheckIn
	if got.CheckIn.Actual != 50 || got.Metric.Attainment != 0.5 || got.Goal.Attainment != 0.5 ||
		got.Goal.Parent.ID != p.CreateGoal.ID || got.Goal.Parent.Attainment != 0.5 {
		t.Fatalf("check-in payload %+v: want 0.5 on key result, goal and parent", got)
	}
	stored, err := f.store.GetGoal(f.ctx, p.CreateGoal.ID)
	if err != nil || stored.Attainment != 0.5 {
		t.Fatalf("store: parent attainment %v (%v)", stored.Attainment, err)
	}

	// Tagging returns the tag and the goal carrying it.
	var tg struct {
		TagGoal struct {
			Added bool
			Tag   struct{ Name string }
			Goal  struct{ Tags []struct{ Name string } }
		}
	}
	f.do(t, `mutation($g: ID!) { tagGoal(goalId: $g, title: "  Growth ") { added tag { name } goal { tags { name } } } }`,
		map[string]any{"g": p.CreateGoal.ID}).mustData(t, &tg)
	if !tg.TagGoal.Added || tg.TagGoal.Tag.Name != "growth" || len(tg.TagGoal.Goal.Tags) != 1 {
		t.Fatalf("tagGoal: %+v", tg)
	}

	// Close the session: writes are refused with SESSION_CLOSED.
	var up struct{ UpdateSession struct{ Status string } }
	f.do(t, `mutation($s: ID!) { updateSession(id: $s, input: {status: "closed"}) { status } }`, map[string]any{"s": sid}).mustData(t, &up)
	if up.UpdateSession.Status != "closed" {
		t.Fatalf("session status %q", up.UpdateSession.Status)
	}
	for name, q := range map[string]string{
		"checkIn":    `mutation($id: ID!) { checkIn(metricId: $id, input: {actual: 80}) { checkIn { id } } }`,
		"createGoal": `mutation($id: ID!) { createGoal(input: {name: "Late", sessionId: $id}) { id } }`,
		"updateGoal": `mutation($id: ID!) { updateGoal(id: $id, input: {name: "Renamed"}) { id } }`,
		"deleteGoal": `mutation($id: ID!) { deleteGoal(id: $id) }`,
	} {
		id := map[string]string{"checkIn": m.CreateMetric.ID, "createGoal": sid}[name]
		if id == "" {
			id = c.CreateGoal.ID
		}
		resp := f.do(t, q, map[string]any{"id": id})
		if resp.code() != resolvers.CodeSessionClosed {
			t.Errorf("%s in a closed session: %+v, want extensions.code SESSION_CLOSED", name, resp.Errors)
		}
	}
	after, _ := f.store.GetMetric(f.ctx, m.CreateMetric.ID)
	if after.Actual != 50 {
		t.Fatalf("a refused check-in changed the key result: actual %v", after.Actual)
	}
	// Bad input and unknown ids carry their codes too.
	if r := f.do(t, `mutation { createGoal(input: {name: "", sessionId: "000000000000000000000000"}) { id } }`, nil); r.code() != resolvers.CodeBadUserInput {
		t.Errorf("invalid goal: %+v", r.Errors)
	}
	if r := f.do(t, `mutation { deleteTask(id: "000000000000000000000000") }`, nil); r.code() != resolvers.CodeNotFound {
		t.Errorf("unknown task: %+v", r.Errors)
	}
}

// TestLimitsRefuseBeforeExecution: too deep or too costly queries are
// refused with a clear error and no upstream call besides authentication.
func TestLimitsRefuseBeforeExecution(t *testing.T) {
	f := newFixture(t, "limits", graphqlhttp.Config{}, nil)
	defer f.srv.Close()
	deep := "{ goals { nodes { " + strings.Repeat("children { ", 14) + "id" + strings.Repeat(" }", 14) + " } } }"
	costly := `{ goals(first: 100) { nodes { children { children { children { metrics { checkins { id actual } tasks { id } } } } } } } }`
	for name, tc := range map[string]struct{ q, code, msg string }{
		"depth": {deep, limits.CodeDepthLimit, "exceeds the limit of 15"},
		"cost":  {costly, resolvers.CodeComplexityLimit, "exceeds the limit of 1000000"},
	} {
		before := f.calls.Snapshot()
		resp := f.do(t, tc.q, nil)
		calls := instrument.Diff(before, f.calls.Snapshot())
		if resp.code() != tc.code || !strings.Contains(resp.Errors[0].Message, tc.msg) || resp.Data != nil && string(resp.Data) != "null" {
			t.Errorf("%s: %+v (data %s), want %s mentioning %q", name, resp.Errors, resp.Data, tc.code, tc.msg)
		}
		delete(calls, "Authenticate")
		if len(calls) != 0 {
			t.Errorf("%s: upstream was called before the refusal: %v", name, calls)
		}
		t.Logf("%s: %s", name, resp.Errors[0].Message)
	}
	// Within the bounds, the same shapes run.
	if r := f.do(t, `{ goals(first: 10) { nodes { children { children { metrics { checkins { id } } } } } } }`, nil); len(r.Errors) > 0 {
		t.Fatalf("a reasonable query was refused: %+v", r.Errors)
	}
	// The parser token limit.
	huge := "{ viewer { " + strings.Repeat("id ", 20000) + "} }"
	if r := f.do(t, huge, nil); len(r.Errors) == 0 || !strings.Contains(r.Errors[0].Message, "token") {
		t.Fatalf("token limit: %+v", r.Errors)
	}
	// Connections cap first.
	if r := f.do(t, `{ goals(first: 101) { totalCount } }`, nil); r.code() != resolvers.CodeBadUserInput {
		t.Fatalf("first: 101: %+v", r.Errors)
	}
}

// TestHTTP covers GraphQL over HTTP: methods, content types, auth, APQ,
// introspection.
func TestHTTP(t *testing.T) {
	f := newFixture(t, "http", graphqlhttp.Config{}, nil)
	defer f.srv.Close()
	auth := "Bearer " + f.token
	get := func(q string, hdr map[string]string) gqlResponse {
		req, _ := http.NewRequest(http.MethodGet, f.srv.URL+"?query="+url.QueryEscape(q), nil)
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		return send(t, req)
	}
	var v struct{ Viewer struct{ Email string } }
	get(`{ viewer { email } }`, map[string]string{"Authorization": auth}).mustData(t, &v)
	if v.Viewer.Email != "admin@http.test" {
		t.Fatalf("viewer over GET: %+v", v)
	}
	if r := get(`mutation { deleteGoal(id: "000000000000000000000000") }`, map[string]string{"Authorization": auth}); len(r.Errors) == 0 || r.status < 400 {
		t.Fatalf("mutation over GET: HTTP %d %+v", r.status, r.Errors)
	}
	for _, ct := range []string{"text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"} {
		r := f.doWith(t, http.MethodPost, `{ viewer { id } }`, nil, map[string]string{"Authorization": auth, "Content-Type": ct})
		if r.status != http.StatusUnsupportedMediaType || r.code() != resolvers.CodeUnsupportedMedia {
			t.Errorf("POST %s: HTTP %d %+v", ct, r.status, r.Errors)
		}
	}
	r := f.doWith(t, http.MethodPost, `{ viewer { id } }`, nil, map[string]string{"Authorization": auth, "Content-Type": "application/json", "Accept": "application/graphql-response+json"})
	if len(r.Errors) > 0 || r.status != 200 {
		t.Fatalf("graphql-response+json: HTTP %d %+v", r.status, r.Errors)
	}
	for name, hdr := range map[string]map[string]string{
		"no token":  {"Content-Type": "application/json"},
		"bad token": {"Content-Type": "application/json", "Authorization": "Bearer okr_nope"},
	} {
		r := f.doWith(t, http.MethodPost, `{ viewer { id } }`, nil, hdr)
		if r.status != http.StatusUnauthorized || r.code() != resolvers.CodeUnauthenticated {
			t.Errorf("%s: HTTP %d %+v", name, r.status, r.Errors)
		}
	}
	// Automatic persisted queries: hash first, then hash + query, then hash.
	q := `{ viewer { email } }`
	ext := map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": sha256Hex(q)}}
	post := func(body map[string]any) gqlResponse {
		b, _ := json.Marshal(body)
		req, _ := http.NewRequest(http.MethodPost, f.srv.URL, strings.NewReader(string(b)))
		req.Header.Set("Authorization", auth)
		req.Header.Set("Content-Type", "application/json")
		return send(t, req)
	}
	if r := post(map[string]any{"extensions": ext}); r.code() != resolvers.CodePersistedNotFound {
		t.Fatalf("APQ unknown hash: %+v", r.Errors)
	}
	post(map[string]any{"query": q, "extensions": ext}).mustData(t, &v)
	post(map[string]any{"extensions": ext}).mustData(t, &v)
	if v.Viewer.Email != "admin@http.test" {
		t.Fatalf("APQ: %+v", v)
	}
	// Introspection is on by default and can be turned off.
	var schema struct {
		Schema struct{ QueryType struct{ Name string } } `json:"__schema"`
	}
	f.do(t, `{ __schema { queryType { name } } }`, nil).mustData(t, &schema)
	off := newFixture(t, "nointrospection", graphqlhttp.Config{DisableIntrospection: true}, nil)
	defer off.srv.Close()
	if r := off.do(t, `{ __schema { queryType { name } } }`, nil); len(r.Errors) == 0 {
		t.Fatal("introspection answered while disabled")
	}
	var acc struct{ Account struct{ ID, Name string } }
	f.do(t, `{ account { id name } }`, nil).mustData(t, &acc)
	if acc.Account.Name != "Acme http" {
		t.Fatalf("account: %+v", acc)
	}
}

// TestFiltersAndPaging: generated filter/orderBy inputs mean what the REST
// filter language means; cursors page through a connection.
func TestFiltersAndPaging(t *testing.T) {
	if testing.Short() {
		t.Skip("uses the seeded dataset")
	}
	f := seeded(t, 10, 1)
	type page struct {
		Goals struct {
			TotalCount int
			PageInfo   struct {
				HasNextPage bool
				EndCursor   string
			}
			Nodes []struct {
				ID         string
				Attainment float64
				Name       string
			}
			Edges []struct{ Cursor string }
		}
	}
	const q = `query($after: String) { goals(first: 3, after: $after,
		filter: {attainment: {gte: 0.2}, or: [{name: {regex: "(?i)^grow"}}, {childrenCount: {gt: 0}}], closedStatus_status: {eq: "active"}},
		orderBy: [{field: attainment, direction: DESC}, {field: name}]) {
		totalCount pageInfo { hasNextPage endCursor } nodes { id attainment name } edges { cursor } } }`
	expr, err := query.ParseFilter(upstream.GoalFields, `{"attainment":{"$gte":0.2},"$or":[{"name":{"$regex":"(?i)^grow"}},{"childrenCount":{"$gt":0}}],"closedStatus.status":"active"}`)
	if err != nil {
		t.Fatal(err)
	}
	want, err := f.store.ListGoals(f.ctx, upstream.ListQuery{Filter: expr, Sort: []query.SortKey{{Field: "attainment", Desc: true}, {Field: "name"}}, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	var after any
	for i := 0; i < 10; i++ {
		var p page
		f.do(t, q, map[string]any{"after": after}).mustData(t, &p)
		if p.Goals.TotalCount != want.TotalCount {
			t.Fatalf("totalCount %d, store %d", p.Goals.TotalCount, want.TotalCount)
		}
		for _, n := range p.Goals.Nodes {
			ids = append(ids, n.ID)
		}
		if !p.Goals.PageInfo.HasNextPage {
			break
		}
		after = p.Goals.PageInfo.EndCursor
	}
	var wantIDs []string
	for _, g := range want.Items {
		wantIDs = append(wantIDs, g.ID)
	}
	if want.TotalCount == 0 || !reflect.DeepEqual(ids, wantIDs) {
		t.Fatalf("paged ids %v, store %v", ids, wantIDs)
	}
	for _, bad := range []string{`{ goals(after: "nope") { totalCount } }`, `{ goals(filter: {name: {regex: "("}}) { totalCount } }`} {
		if r := f.do(t, bad, nil); r.code() != resolvers.CodeBadUserInput {
			t.Errorf("%s: %+v", bad, r.Errors)
		}
	}
}

// failing makes one upstream operation fail with an internal error.
type failing struct{ upstream.API }

func (failing) ListUsers(context.Context, upstream.ListQuery) (upstream.Page[upstream.User], error) {
	return upstream.Page[upstream.User]{}, errors.New("sqlstore: SELECT secret FROM users: disk I/O error")
}

// TestInternalErrorsAreMasked: an internal error shows no detail, only its
// code and the request id that is in the log, on the request's one line
// with the cause.
func TestInternalErrorsAreMasked(t *testing.T) {
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, sqlstoretest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	boot, err := st.Bootstrap(ctx, sqlstore.BootstrapInput{AccountName: "Mask", Email: "m@mask.test"})
	if err != nil {
		t.Fatal(err)
	}
	var logged strings.Builder
	log := newLogger(&logged)
	srv := httptest.NewServer(observe.Stack(observe.Config{Logger: log})(graphqlhttp.NewHandler(graphqlhttp.Config{API: failing{st}, Auth: st, Logger: log})))
	defer srv.Close()
	f := &fixture{srv: srv, token: boot.Token}
	r := f.do(t, `{ viewer { id } }`, nil)
	if r.code() != resolvers.CodeInternal || r.Errors[0].Message != "internal error" || strings.Contains(fmt.Sprint(r.Errors), "secret") {
		t.Fatalf("internal error not masked: %+v", r.Errors)
	}
	id, _ := r.Errors[0].Extensions["requestId"].(string)
	if id == "" || !strings.Contains(logged.String(), id) || !strings.Contains(logged.String(), "secret") {
		t.Fatalf("request id %q not in the log %q", id, logged.String())
	}
	if n := strings.Count(strings.TrimSpace(logged.String()), "\n") + 1; n != 1 || !strings.Contains(logged.String(), "level=ERROR") {
		t.Errorf("want the error once, on one ERROR line; got %d lines:\n%s", n, logged.String())
	}
}

// TestMetricsEndpoint: /metrics exports operations, upstream calls and
// store queries from its own registry.
func TestMetricsEndpoint(t *testing.T) {
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, sqlstoretest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	boot, err := st.Bootstrap(ctx, sqlstore.BootstrapInput{AccountName: "M", Email: "m@m.test"})
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	m := newMetrics(t, reg)
	om, err := observe.NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	calls := instrument.NewCounter()
	calls.OnCall = om.UpstreamCall
	api := instrument.New(st, calls)
	srv := httptest.NewServer(observe.Stack(observe.Config{Metrics: om})(graphqlhttp.NewHandler(graphqlhttp.Config{API: api, Auth: api, Metrics: m})))
	defer srv.Close()
	f := &fixture{srv: srv, token: boot.Token}
	f.do(t, `query Me { viewer { id } }`, nil).mustData(t, &struct{}{})
	rec := httptest.NewRecorder()
	promhttp.HandlerFor(reg, promhttp.HandlerOpts{}).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	for _, want := range []string{
		`okrgate_graphql_requests_total{operation="Me",outcome="ok"} 1`,
		`okrgate_graphql_request_duration_seconds_count{operation="Me"} 1`,
		`okrgate_upstream_calls_total{facade="graphql",method="ListUsers"} 1`,
		`okrgate_upstream_calls_total{facade="graphql",method="Authenticate"} 1`,
		`okrgate_http_requests_total{code="200",facade="graphql",method="post",`,
		`okrgate_build_info{`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}

// TestTreeCallsAreDeterministic: the upstream calls of a query depend only
// on the query and the data. Eight copies of the tree query run at once,
// each through a handler with its own call counter (the executor's
// goroutines of all of them compete for the CPUs), and each costs exactly
// what one run alone costs, with the same tree.
func TestTreeCallsAreDeterministic(t *testing.T) {
	f := seeded(t, 40, 1)
	sid := biggestSession(t, f)
	want, err := directTree(f.ctx, f.store, sid)
	if err != nil {
		t.Fatal(err)
	}
	w := jsonOf(t, want)
	_, alone := runTree(t, f, sid)
	f.noStrays(t)
	delete(alone, "Authenticate") // the handlers below authenticate uncounted
	t.Run("group", func(t *testing.T) {
		for i := range 8 {
			t.Run(strconv.Itoa(i), func(t *testing.T) {
				t.Parallel()
				calls := instrument.NewCounter()
				srv := httptest.NewServer(graphqlhttp.NewHandler(graphqlhttp.Config{API: instrument.New(f.store, calls), Auth: f.store}))
				defer srv.Close()
				got, n := runTree(t, &fixture{srv: srv, token: f.token, calls: calls}, sid)
				if g := jsonOf(t, got); g != w {
					t.Fatalf("tree differs from the store's\n got: %.2000s\nwant: %.2000s", g, w)
				}
				if !maps.Equal(n, alone) {
					t.Errorf("calls under load %v, alone %v", n, alone)
				}
			})
		}
	})
}
