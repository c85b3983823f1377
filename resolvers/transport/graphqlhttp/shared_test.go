package graphqlhttp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/okrgate/okrgate/resolvers/infra/respcache"
	"github.com/okrgate/okrgate/resolvers/transport/graphqlhttp"
	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore/sqlstoretest"
	"github.com/okrgate/okrgate/upstream/infra/instrument"
	"github.com/okrgate/okrgate/upstream/infra/observe"
)

// sharedTree is the tree the shared-answer tests read: the session's goals
// with their key results' attainment.
const sharedTree = `query Tree($id: ID!) { session(id: $id) { id goals { id name attainment metrics { id name attainment } } } }`

// sharedEnv is an account with a public goal and a private goal owned by
// a team: inside is a viewer of that team (its own visibility class), out1
// and out2 are viewers of no team (one class, which may not see the private
// goal).
type sharedEnv struct {
	admin                 context.Context
	session, metric       string
	inside, out1, out2    string // tokens
	out1ID, team          string
	adminToken, secretKey string
}

func newSharedEnv(t *testing.T, st *sqlstore.Store) sharedEnv {
	t.Helper()
	ctx := context.Background()
	b, err := st.Bootstrap(ctx, sqlstore.BootstrapInput{AccountName: "Acme", Email: "admin@acme.test"})
	if err != nil {
		t.Fatal(err)
	}
	e := sharedEnv{admin: upstream.NewContext(ctx, upstream.Caller{AccountID: b.AccountID, UserID: b.UserID, Roles: []string{"admin"}}),
		adminToken: b.Token, secretKey: "Secret plan of the board"}
	viewer := func(name string) (string, string) {
		u, err := st.CreateUser(e.admin, upstream.UserInput{Email: name + "@acme.test", FirstName: name, Role: upstream.RoleViewer})
		if err != nil {
			t.Fatal(err)
		}
		tok, err := st.CreateToken(e.admin, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		return u.ID, tok
	}
	var insideID string
	insideID, e.inside = viewer("inside")
	e.out1ID, e.out1 = viewer("outone")
	_, e.out2 = viewer("outtwo")
	team, err := st.CreateTeam(e.admin, upstream.TeamInput{Name: "Board", Members: []string{insideID}})
	if err != nil {
		t.Fatal(err)
	}
	e.team = team.ID
	s, err := st.CreateSession(e.admin, upstream.SessionInput{Title: "Q1", Start: "2026-01-01", End: "2026-03-31"})
	if err != nil {
		t.Fatal(err)
	}
	e.session = s.ID
	open, err := st.CreateGoal(e.admin, upstream.GoalInput{Name: "Open goal", SessionID: s.ID})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateGoal(e.admin, upstream.GoalInput{Name: e.secretKey, SessionID: s.ID, OwnerIDs: []string{team.ID}, Private: true}); err != nil {
		t.Fatal(err)
	}
	target := 100.0
	m, err := st.CreateMetric(e.admin, upstream.MetricInput{Name: "Revenue", GoalID: open.ID, Target: &target})
	if err != nil {
		t.Fatal(err)
	}
	e.metric = m.ID
	return e
}

// sharedServer serves the GraphQL endpoint over st with shared answers,
// counting the backend calls of its executions.
func sharedServer(t *testing.T, st *sqlstore.Store) (*httptest.Server, *instrument.Counter, *respcache.Cache) {
	srv, calls, cache, _ := countedServer(t, st)
	return srv, calls, cache
}

// derivations counts the visibility classes derived.
type derivations struct {
	upstream.NamedClasser
	n atomic.Int64
}

func (d *derivations) VisibilityClassesNamed(ctx context.Context, callers []upstream.Caller, named map[string]bool) ([]string, error) {
	d.n.Add(1)
	return d.NamedClasser.VisibilityClassesNamed(ctx, callers, named)
}

// countedServer is sharedServer, counting the classes derived besides.
func countedServer(t *testing.T, st *sqlstore.Store) (*httptest.Server, *instrument.Counter, *respcache.Cache, *derivations) {
	t.Helper()
	classes := &derivations{NamedClasser: st}
	calls := instrument.NewCounter()
	api := instrument.New(st, calls)
	cache, err := respcache.New(respcache.Config{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := graphqlhttp.Config{API: api, Auth: st, Shared: &graphqlhttp.Shared{Cache: cache, Scoper: respcache.NewScoper(st, classes)}}
	srv := httptest.NewServer(observe.Stack(observe.Config{})(graphqlhttp.NewHandler(cfg)))
	t.Cleanup(srv.Close)
	return srv, calls, cache, classes
}

type sharedAnswer struct {
	status int
	etag   string
	body   string
	length int64 // Content-Length, -1 when not sent
}

func getTree(t *testing.T, base, token, session string, header map[string]string) sharedAnswer {
	t.Helper()
	vars, _ := json.Marshal(map[string]string{"id": session})
	u := base + "?query=" + url.QueryEscape(sharedTree) + "&variables=" + url.QueryEscape(string(vars))
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return sharedAnswer{}
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK && res.StatusCode != http.StatusNotModified || strings.Contains(string(b), `"errors"`) {
		t.Errorf("HTTP %d: %s", res.StatusCode, b)
	}
	return sharedAnswer{res.StatusCode, res.Header.Get("ETag"), string(b), res.ContentLength}
}

// concurrently reads the tree with each token at once and returns the answers.
func concurrently(t *testing.T, base, session string, tokens ...string) []sharedAnswer {
	out := make([]sharedAnswer, len(tokens))
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i, tok := range tokens {
		wg.Go(func() {
			<-start
			out[i] = getTree(t, base, tok, session, nil)
		})
	}
	close(start)
	wg.Wait()
	return out
}

// TestSharedOneExecutionPerClass: N identical reads at once by callers of
// one visibility class run the operation once (the backend calls of one
// execution, however many readers); readers of two classes run it once per
// class and get their own class's answer; a read after a write (the data
// version moved) runs it again and sees the write.
func TestSharedOneExecutionPerClass(t *testing.T) {
	st := sqlstoretest.Open(t)
	e := newSharedEnv(t, st)
	srv, calls, cache := sharedServer(t, st)

	before := calls.Total()
	single := getTree(t, srv.URL, e.out1, e.session, nil)
	perExecution := calls.Total() - before
	if perExecution == 0 {
		t.Fatal("an execution made no backend call: the test counts nothing")
	}
	move := func(actual float64) {
		t.Helper()
		if _, err := st.CheckIn(e.admin, e.metric, upstream.CheckInInput{Actual: &actual}); err != nil {
			t.Fatal(err)
		}
	}

	move(10)
	const n = 16
	tokens := make([]string, n)
	for i := range tokens {
		tokens[i] = []string{e.out1, e.out2}[i%2]
	}
	before = calls.Total()
	answers := concurrently(t, srv.URL, e.session, tokens...)
	if got := calls.Total() - before; got != perExecution {
		t.Errorf("%d identical reads of one class made %d backend calls, want %d (one execution)", n, got, perExecution)
	}
	for _, a := range answers[1:] {
		if a.body != answers[0].body {
			t.Fatalf("readers of one class got different answers:\n%s\n%s", answers[0].body, a.body)
		}
	}
	if answers[0].body == single.body || !strings.Contains(answers[0].body, `"attainment":0.1`) {
		t.Errorf("the read after a check-in does not show it:\nbefore %s\nafter  %s", single.body, answers[0].body)
	}

	move(20)
	before = calls.Total()
	mixed := concurrently(t, srv.URL, e.session, e.inside, e.out1, e.inside, e.out2, e.inside, e.out1)
	if got := calls.Total() - before; got != 2*perExecution {
		t.Errorf("reads of two classes made %d backend calls, want %d (one execution per class)", got, 2*perExecution)
	}
	for i, a := range mixed {
		inside := i%2 == 0
		if sees := strings.Contains(a.body, e.secretKey); sees != inside {
			t.Errorf("reader %d (inside the team: %v) sees the private goal: %v\n%s", i, inside, sees, a.body)
		}
	}
	if s := cache.Stats(); s.Misses == 0 || s.Hits+s.Joins == 0 {
		t.Errorf("stats %+v: no misses or no shared answers", s)
	}
}

// TestSharedNoLeakAcrossClasses: whichever class reads first, a class that
// may not see the private goal never gets an answer that shows it, and the
// class that may always sees it. Check-ins make no one derive a class
// again; a change of rights does, and the next read follows it.
func TestSharedNoLeakAcrossClasses(t *testing.T) {
	st := sqlstoretest.Open(t)
	e := newSharedEnv(t, st)
	srv, _, _, classes := countedServer(t, st)
	for round, order := range [][]string{{e.inside, e.out1, e.out2}, {e.out2, e.inside, e.out1}} {
		for _, tok := range order {
			a := getTree(t, srv.URL, tok, e.session, nil)
			if sees := strings.Contains(a.body, e.secretKey); sees != (tok == e.inside) {
				t.Errorf("round %d: %s sees the private goal: %v\n%s", round, map[bool]string{true: "the team's viewer", false: "a viewer outside the team"}[tok == e.inside], sees, a.body)
			}
		}
		actual := float64(round + 1)
		if _, err := st.CheckIn(e.admin, e.metric, upstream.CheckInInput{Actual: &actual}); err != nil {
			t.Fatal(err)
		}
	}
	derived := classes.n.Load()
	for _, tok := range []string{e.inside, e.out1, e.out2} {
		getTree(t, srv.URL, tok, e.session, nil)
	}
	if got := classes.n.Load() - derived; got != 0 {
		t.Errorf("reads after check-ins derived %d classes again, want 0", got)
	}
	// Rights change (no goal changes): the outsider joins the team and
	// its next read shows the goal; leaving it again hides it.
	if _, err := st.AddTeamMember(e.admin, e.team, e.out1ID); err != nil {
		t.Fatal(err)
	}
	if a := getTree(t, srv.URL, e.out1, e.session, nil); !strings.Contains(a.body, e.secretKey) {
		t.Errorf("after joining the team, its new member does not see the team's goal: %s", a.body)
	}
	if a := getTree(t, srv.URL, e.out2, e.session, nil); strings.Contains(a.body, e.secretKey) {
		t.Errorf("a viewer outside the team sees its goal after another joined: %s", a.body)
	}
	if classes.n.Load() == derived {
		t.Error("no class derived again after a change of rights")
	}
	if err := st.RemoveTeamMember(e.admin, e.team, e.out1ID); err != nil {
		t.Fatal(err)
	}
	if a := getTree(t, srv.URL, e.out1, e.session, nil); strings.Contains(a.body, e.secretKey) {
		t.Errorf("after leaving the team, its former member still sees its goal: %s", a.body)
	}
}

// TestSharedConditionalGet: a GET answers an ETag and Cache-Control:
// private, and the length of the answer (not chunked); If-None-Match with
// it answers 304 without executing while nothing changed, and the full new
// answer after a write.
func TestSharedConditionalGet(t *testing.T) {
	st := sqlstoretest.Open(t)
	e := newSharedEnv(t, st)
	srv, calls, _ := sharedServer(t, st)
	first := getTree(t, srv.URL, e.out1, e.session, nil)
	if first.etag == "" {
		t.Fatal("no ETag on a GET")
	}
	if first.length != int64(len(first.body)) {
		t.Errorf("Content-Length %d, body of %d bytes", first.length, len(first.body))
	}
	before := calls.Total()
	again := getTree(t, srv.URL, e.out2, e.session, map[string]string{"If-None-Match": first.etag})
	if again.status != http.StatusNotModified || again.body != "" {
		t.Errorf("If-None-Match with the current tag: HTTP %d %q, want 304 without a body", again.status, again.body)
	}
	if got := calls.Total() - before; got != 0 {
		t.Errorf("a 304 made %d backend calls, want none", got)
	}
	other := getTree(t, srv.URL, e.inside, e.session, map[string]string{"If-None-Match": first.etag})
	if other.status != http.StatusOK || other.etag == first.etag {
		t.Errorf("another class with the first class's tag: HTTP %d, tag %s (the first's %s)", other.status, other.etag, first.etag)
	}
	actual := 50.0
	if _, err := st.CheckIn(e.admin, e.metric, upstream.CheckInInput{Actual: &actual}); err != nil {
		t.Fatal(err)
	}
	after := getTree(t, srv.URL, e.out1, e.session, map[string]string{"If-None-Match": first.etag})
	if after.status != http.StatusOK || after.etag == first.etag || !strings.Contains(after.body, `"attainment":0.5`) {
		t.Errorf("after a check-in: HTTP %d, tag %s (was %s): %s", after.status, after.etag, first.etag, after.body)
	}
	if after.length != int64(len(after.body)) {
		t.Errorf("after a check-in: Content-Length %d, body of %d bytes", after.length, len(after.body))
	}
}

// TestSharedAcrossReplicas: two servers on one database (PostgreSQL when
// the run has it); a read on B after a check-in acknowledged on A shows it,
// though B kept the answer from before.
func TestSharedAcrossReplicas(t *testing.T) {
	dsn := sqlstoretest.DSN(t)
	var stores [2]*sqlstore.Store
	for i := range stores {
		st, err := sqlstore.Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		stores[i] = st
	}
	a, b := stores[0], stores[1]
	e := newSharedEnv(t, a)
	srvB, _, _ := sharedServer(t, b)
	for i := range 3 {
		old := getTree(t, srvB.URL, e.out1, e.session, nil)
		getTree(t, srvB.URL, e.out2, e.session, nil) // from the cache
		actual := float64(60 + i)
		if _, err := a.CheckIn(e.admin, e.metric, upstream.CheckInInput{Actual: &actual}); err != nil {
			t.Fatal(err)
		}
		fresh := getTree(t, srvB.URL, e.out2, e.session, nil)
		if want := fmt.Sprintf(`"attainment":%g`, float64(60+i)/100); !strings.Contains(fresh.body, want) {
			t.Errorf("round %d: B's read after A's check-in does not show it (%s):\nbefore %s\nafter  %s", i, want, old.body, fresh.body)
		}
	}
}
