package resolvers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/okrgate/okrgate/resolvers/transport/graphqlhttp"
	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore/sqlstoretest"
	"github.com/okrgate/okrgate/upstream/infra/instrument"
	"github.com/okrgate/okrgate/upstream/infra/observe"
	"github.com/okrgate/okrgate/upstream/query"
	"github.com/okrgate/okrgate/upstream/seed"
)

// fixture is a seeded store behind a real GraphQL HTTP server on 127.0.0.1.
type fixture struct {
	store    *sqlstore.Store
	token    string
	ctx      context.Context // carries the caller, for direct store reads
	sessions []string
	calls    *instrument.Counter
	metrics  *graphqlhttp.Metrics
	srv      *httptest.Server
	drop     func() error // removes the fixture's database once the store is closed
}

// noStrays fails unless every edge of every request so far loaded its
// parents within the batch of their level.
func (f *fixture) noStrays(tb testing.TB) {
	tb.Helper()
	if n := f.metrics.Strays(); n != 0 {
		tb.Errorf("%d stray loads: some field returns objects that no edge or produce* recorded as a level", n)
	}
}

// created holds every fixture made, shared or not, for TestMain to close
// and drop: a test's fixture outlives the test (the parallel subtests of
// a test may still use it), and on PostgreSQL its schema must be dropped.
var created struct {
	sync.Mutex
	all []*fixture
}

var (
	fixMu    sync.Mutex
	fixtures = map[string]*fixture{}
	tmpRoot  string
)

func TestMain(m *testing.M) {
	var err error
	tmpRoot, err = os.MkdirTemp("", "okrgate-graphql")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := sqlstoretest.Main(m) // on SQLite, then on PostgreSQL when enabled
	created.Lock()
	for _, f := range created.all {
		f.srv.Close()
		f.store.Close()
		if err := f.drop(); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
	}
	created.Unlock()
	for _, drop := range benchPG.drops {
		if err := drop(); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
	}
	os.RemoveAll(tmpRoot)
	os.Exit(code)
}

// newFixture opens a fresh store with one account; seed fills it.
func newFixture(tb testing.TB, name string, cfg graphqlhttp.Config, fill func(ctx context.Context, st *sqlstore.Store) ([]string, error)) *fixture {
	tb.Helper()
	ctx := context.Background()
	dsn, drop, err := sqlstoretest.SharedDSN(tmpRoot, name+".db")
	if err != nil {
		tb.Fatal(err)
	}
	st, err := sqlstore.Open(ctx, dsn)
	if err != nil {
		tb.Fatal(err)
	}
	boot, err := st.Bootstrap(ctx, sqlstore.BootstrapInput{AccountName: "Acme " + name, Email: "admin@" + name + ".test"})
	if err != nil {
		tb.Fatal(err)
	}
	caller, err := st.Authenticate(ctx, boot.Token)
	if err != nil {
		tb.Fatal(err)
	}
	cctx := upstream.NewContext(ctx, caller)
	var sessions []string
	if fill != nil {
		if sessions, err = fill(cctx, st); err != nil {
			tb.Fatal(err)
		}
	}
	calls := instrument.NewCounter()
	api := instrument.New(st, calls)
	cfg.API, cfg.Auth = api, api
	if cfg.Metrics == nil {
		cfg.Metrics = newMetrics(tb, prometheus.NewRegistry())
	}
	srv := httptest.NewServer(observe.Stack(observe.Config{})(graphqlhttp.NewHandler(cfg)))
	f := &fixture{store: st, token: boot.Token, ctx: cctx, sessions: sessions, calls: calls, metrics: cfg.Metrics, srv: srv, drop: drop}
	created.Lock()
	created.all = append(created.all, f)
	created.Unlock()
	return f
}

// newMetrics returns the GraphQL metrics registered on reg.
func newMetrics(tb testing.TB, reg prometheus.Registerer) *graphqlhttp.Metrics {
	tb.Helper()
	m, err := graphqlhttp.NewMetrics(reg)
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// seeded returns the shared fixture with n synthetic objectives (seeded
// once per test binary: seeding goes through the store and is slow).
func seeded(tb testing.TB, n, sessions int) *fixture {
	tb.Helper()
	key := fmt.Sprintf("seed-%d-%d", n, sessions)
	fixMu.Lock()
	defer fixMu.Unlock()
	if f, ok := fixtures[key]; ok {
		return f
	}
	f := newFixture(tb, key, graphqlhttp.Config{}, func(ctx context.Context, st *sqlstore.Store) ([]string, error) {
		sum, err := seed.Synthetic(ctx, st, seed.Options{Goals: n, Seed: 7, Sessions: sessions})
		return sum.Sessions, err
	})
	fixtures[key] = f
	return f
}

type gqlError struct {
	Message    string         `json:"message"`
	Path       []any          `json:"path"`
	Extensions map[string]any `json:"extensions"`
}

type gqlResponse struct {
	Data   json.RawMessage `json:"data"`
	Errors []gqlError      `json:"errors"`
	status int
}

func (r gqlResponse) code() string {
	if len(r.Errors) == 0 {
		return ""
	}
	c, _ := r.Errors[0].Extensions["code"].(string)
	return c
}

// do posts a GraphQL request with the fixture's token.
func (f *fixture) do(tb testing.TB, q string, vars map[string]any) gqlResponse {
	tb.Helper()
	return f.doWith(tb, http.MethodPost, q, vars, map[string]string{"Authorization": "Bearer " + f.token, "Content-Type": "application/json"})
}

func (f *fixture) doWith(tb testing.TB, method, q string, vars map[string]any, headers map[string]string) gqlResponse {
	tb.Helper()
	body, _ := json.Marshal(map[string]any{"query": q, "variables": vars})
	req, err := http.NewRequest(method, f.srv.URL, bytes.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	return send(tb, req)
}

func send(tb testing.TB, req *http.Request) gqlResponse {
	tb.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out gqlResponse
	if err := json.Unmarshal(raw, &out); err != nil {
		tb.Fatalf("HTTP %d: not a GraphQL response: %s", resp.StatusCode, raw)
	}
	out.status = resp.StatusCode
	return out
}

// mustData fails on any GraphQL error and decodes data into v.
func (r gqlResponse) mustData(tb testing.TB, v any) {
	tb.Helper()
	if len(r.Errors) > 0 {
		tb.Fatalf("GraphQL errors (HTTP %d): %+v", r.status, r.Errors)
	}
	if err := json.Unmarshal(r.Data, v); err != nil {
		tb.Fatalf("decode data: %v: %s", err, r.Data)
	}
}

// The nested tree query of the issue: session → root goals → children →
// grandchildren, each with key results → check-ins / tasks → owners.
const treeQuery = `query Tree($id: ID!) {
  session(id: $id) {
    id
    title
    goals(roots: true) {
      ...G
      children {
        ...G
        children { ...G }
      }
    }
  }
}
fragment G on Goal {
  id
  name
  attainment
  owners { ...O }
  tasks { id name status owner { ...O } }
  metrics {
    id
    name
    attainment
    owners { ...O }
    checkins { id actual }
    tasks { id name status owner { ...O } }
  }
}
fragment O on Owner {
  __typename
  ... on User { id name }
  ... on Team { id name }
}`

// The tree as plain structs: the GraphQL answer decodes into them, and the
// baseline builds them from direct store calls.
type (
	ownerOut struct {
		Typename string `json:"__typename"`
		ID       string `json:"id"`
		Name     string `json:"name"`
	}
	checkinOut struct {
		ID     string  `json:"id"`
		Actual float64 `json:"actual"`
	}
	taskOut struct {
		ID     string    `json:"id"`
		Name   string    `json:"name"`
		Status string    `json:"status"`
		Owner  *ownerOut `json:"owner"`
	}
	metricOut struct {
		ID         string       `json:"id"`
		Name       string       `json:"name"`
		Attainment float64      `json:"attainment"`
		Owners     []ownerOut   `json:"owners"`
		Checkins   []checkinOut `json:"checkins"`
		Tasks      []taskOut    `json:"tasks"`
	}
	goalOut struct {
		ID         string      `json:"id"`
		Name       string      `json:"name"`
		Attainment float64     `json:"attainment"`
		Owners     []ownerOut  `json:"owners"`
		Tasks      []taskOut   `json:"tasks"`
		Metrics    []metricOut `json:"metrics"`
		Children   *[]goalOut  `json:"children,omitempty"`
	}
	sessionOut struct {
		ID    string    `json:"id"`
		Title string    `json:"title"`
		Goals []goalOut `json:"goals"`
	}
	treeOut struct {
		Session *sessionOut `json:"session"`
	}
)

// listAll reads every item matching filter straight from the store, in id
// order, 1000 at a time.
func listAll[T any](ctx context.Context, list func(context.Context, upstream.ListQuery) (upstream.Page[T], error), filter *query.Expr) ([]T, error) {
	var out []T
	for skip := 0; ; skip += upstream.MaxLimit {
		p, err := list(ctx, upstream.ListQuery{Filter: filter, Sort: []query.SortKey{{Field: "id"}}, Skip: skip, Limit: upstream.MaxLimit})
		if err != nil {
			return nil, err
		}
		out = append(out, p.Items...)
		if len(p.Items) < upstream.MaxLimit {
			return out, nil
		}
	}
}

func inIDs(field string, ids []string) *query.Expr {
	vals := make([]any, len(ids))
	for i, id := range ids {
		vals[i] = id
	}
	return query.In(field, vals...)
}

// chunked calls fn for ids in chunks of at most 1000 ($in's limit).
func chunked[T any](ids []string, fn func([]string) ([]T, error)) ([]T, error) {
	var out []T
	for len(ids) > 0 {
		n := min(len(ids), query.MaxInValues)
		items, err := fn(ids[:n])
		if err != nil {
			return nil, err
		}
		out = append(out, items...)
		ids = ids[n:]
	}
	return out, nil
}

// directTree builds the tree of session sid with direct store calls: the
// reference for correctness and the baseline of the benchmark.
func directTree(ctx context.Context, st upstream.API, sid string) (treeOut, error) {
	ss, err := st.GetSession(ctx, sid)
	if err != nil {
		return treeOut{}, err
	}
	goals, err := listAll(ctx, st.ListGoals, query.Eq("sessionId", sid))
	if err != nil {
		return treeOut{}, err
	}
	goalIDs := make([]string, len(goals))
	for i, g := range goals {
		goalIDs[i] = g.ID
	}
	metrics, err := chunked(goalIDs, func(ids []string) ([]upstream.Metric, error) {
		return listAll(ctx, st.ListMetrics, inIDs("goalId", ids))
	})
	if err != nil {
		return treeOut{}, err
	}
	parents := slices.Clone(goalIDs)
	metricIDs := make([]string, len(metrics))
	for i, m := range metrics {
		metricIDs[i] = m.ID
		parents = append(parents, m.ID)
	}
	checkins, err := chunked(metricIDs, func(ids []string) ([]upstream.CheckIn, error) {
		return listAll(ctx, st.ListCheckIns, inIDs("metricId", ids))
	})
	if err != nil {
		return treeOut{}, err
	}
	tasks, err := chunked(parents, func(ids []string) ([]upstream.Task, error) {
		return listAll(ctx, st.ListTasks, inIDs("parentId", ids))
	})
	if err != nil {
		return treeOut{}, err
	}
	users, err := listAll(ctx, st.ListUsers, nil)
	if err != nil {
		return treeOut{}, err
	}
	teams, err := listAll(ctx, st.ListTeams, nil)
	if err != nil {
		return treeOut{}, err
	}
	owners := map[string]ownerOut{}
	for _, u := range users {
		owners[u.ID] = ownerOut{"User", u.ID, u.Name}
	}
	for _, t := range teams {
		owners[t.ID] = ownerOut{"Team", t.ID, t.Name}
	}
	ownerList := func(ids []string) []ownerOut {
		out := []ownerOut{}
		for _, id := range ids {
			if o, ok := owners[id]; ok {
				out = append(out, o)
			}
		}
		return out
	}
	ciBy := map[string][]checkinOut{}
	for _, c := range checkins {
		ciBy[c.MetricID] = append(ciBy[c.MetricID], checkinOut{c.ID, c.Actual})
	}
	taskBy := map[string][]taskOut{}
	for _, t := range tasks {
		to := taskOut{ID: t.ID, Name: t.Name, Status: t.Status}
		if o, ok := owners[t.OwnerID]; ok {
			to.Owner = &o
		}
		taskBy[t.ParentID] = append(taskBy[t.ParentID], to)
	}
	nonNil := func(xs []taskOut) []taskOut {
		if xs == nil {
			return []taskOut{}
		}
		return xs
	}
	metricBy := map[string][]metricOut{}
	for _, m := range metrics {
		ci := ciBy[m.ID]
		if ci == nil {
			ci = []checkinOut{}
		}
		metricBy[m.GoalID] = append(metricBy[m.GoalID], metricOut{m.ID, m.Name, m.Attainment, ownerList(m.OwnerIDs), ci, nonNil(taskBy[m.ID])})
	}
	childBy := map[string][]upstream.Goal{}
	for _, g := range goals {
		childBy[g.ParentID] = append(childBy[g.ParentID], g)
	}
	var build func(g upstream.Goal, depth int) goalOut
	build = func(g upstream.Goal, depth int) goalOut {
		ms := metricBy[g.ID]
		if ms == nil {
			ms = []metricOut{}
		}
		out := goalOut{ID: g.ID, Name: g.Name, Attainment: g.Attainment, Owners: ownerList(g.OwnerIDs), Tasks: nonNil(taskBy[g.ID]), Metrics: ms}
		if depth < 3 {
			kids := []goalOut{}
			for _, c := range childBy[g.ID] {
				kids = append(kids, build(c, depth+1))
			}
			out.Children = &kids
		}
		return out
	}
	roots := []goalOut{}
	for _, g := range childBy[""] {
		roots = append(roots, build(g, 1))
	}
	return treeOut{Session: &sessionOut{ID: ss.ID, Title: ss.Title, Goals: roots}}, nil
}
