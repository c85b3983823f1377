package graphqlhttp_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/okrgate/okrgate/resolvers/infra/respcache"
	"github.com/okrgate/okrgate/resolvers/transport/graphqlhttp"
	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore/sqlstoretest"
	"github.com/okrgate/okrgate/upstream/infra/instrument"
	"github.com/okrgate/okrgate/upstream/infra/observe"
)

// deriveTree is the tree the derivation tests read: three levels of goals
// with their figures, entity tags, owners, key results and check-ins.
const deriveTree = `query Tree($id: ID!) { session(id: $id) { id title goals(roots: true) { ...G children { ...G children { ...G } } } } }
fragment G on Goal { id name etag attainment aggregatedAttainment fullAggregatedAttainment metricsCount private
  owners { ... on User { id name } ... on Team { id name } }
  metrics { id name etag actual attainment confidence lastCheckInDate checkins { id actual attainment } } }`

// deriveEnv is newSharedEnv's account with a deeper tree: the open goal
// has children, one a grandchild, each with a key result.
type deriveEnv struct {
	sharedEnv
	open, child, grandchild string
	deep                    string // the grandchild's key result
}

func newDeriveEnv(t *testing.T, st *sqlstore.Store) deriveEnv {
	t.Helper()
	e := deriveEnv{sharedEnv: newSharedEnv(t, st)}
	m, err := st.GetMetric(e.admin, e.metric)
	if err != nil {
		t.Fatal(err)
	}
	e.open = m.GoalID
	goal := func(name, parent string) string {
		g, err := st.CreateGoal(e.admin, upstream.GoalInput{Name: name, SessionID: e.session, ParentID: parent})
		if err != nil {
			t.Fatal(err)
		}
		return g.ID
	}
	e.child = goal("Child", e.open)
	e.grandchild = goal("Grandchild", e.child)
	goal("Second child", e.open)
	target := 50.0
	km, err := st.CreateMetric(e.admin, upstream.MetricInput{Name: "Deep", GoalID: e.grandchild, Target: &target})
	if err != nil {
		t.Fatal(err)
	}
	e.deep = km.ID
	return e
}

// postTree reads deriveTree from base with token (POST, as the load tool
// does) and returns the body.
func postTree(t *testing.T, base, token, session string) []byte {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": deriveTree, "variables": map[string]string{"id": session}})
	req, _ := http.NewRequest(http.MethodPost, base, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK || bytes.Contains(b, []byte(`"errors"`)) {
		t.Fatalf("HTTP %d: %s", res.StatusCode, b)
	}
	return b
}

// deriveServers serves st twice: with shared answers derived after
// check-ins (counting its backend calls), and executing every request in
// full for its caller alone, the reference.
func deriveServers(t *testing.T, st *sqlstore.Store) (derived, full *httptest.Server, calls *instrument.Counter, cache *respcache.Cache) {
	t.Helper()
	calls = instrument.NewCounter()
	cache, err := respcache.New(respcache.Config{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := graphqlhttp.Config{API: instrument.New(st, calls), Auth: st,
		Shared: &graphqlhttp.Shared{Cache: cache, Scoper: respcache.NewScoper(st, st)}}
	derived = httptest.NewServer(observe.Stack(observe.Config{})(graphqlhttp.NewHandler(cfg)))
	t.Cleanup(derived.Close)
	full = httptest.NewServer(observe.Stack(observe.Config{})(graphqlhttp.NewHandler(graphqlhttp.Config{API: st, Auth: st})))
	t.Cleanup(full.Close)
	return derived, full, calls, cache
}

// TestDerivedAnswersEqualFull applies writes of every kind one after the
// other — check-ins (one, several at once, deep in the tree), a goal
// renamed, a goal created, a key result created, a goal deleted, a goal
// made private, a member added to the team that owns the private goal —
// and after each compares, for callers of three visibility classes (an
// admin, a viewer of the team, a viewer of no team), the shared answer
// with a full execution's, byte for byte. The answers after check-ins are
// derived from the previous ones (counted); after any other write they
// are executed in full.
func TestDerivedAnswersEqualFull(t *testing.T) {
	st := sqlstoretest.Open(t)
	e := newDeriveEnv(t, st)
	derived, full, _, cache := deriveServers(t, st)
	tokens := map[string]string{"admin": e.adminToken, "inside": e.inside, "outside": e.out1}
	classes := []string{"admin", "inside", "outside"}
	compare := func(step string) {
		t.Helper()
		for _, class := range classes {
			got := postTree(t, derived.URL, tokens[class], e.session)
			want := postTree(t, full.URL, tokens[class], e.session)
			if !bytes.Equal(got, want) {
				t.Fatalf("%s, %s: derived answer differs from a full execution\n got: %s\nwant: %s", step, class, got, want)
			}
			if class == "outside" && bytes.Contains(got, []byte(e.secretKey)) {
				t.Fatalf("%s: the private goal leaked to a viewer of no team: %s", step, got)
			}
		}
	}
	checkIn := func(metric string, actual float64) {
		t.Helper()
		if _, err := st.CheckIn(e.admin, metric, upstream.CheckInInput{Actual: &actual}); err != nil {
			t.Fatal(err)
		}
	}
	derivedSince := func(step string, want bool) {
		t.Helper()
		s := cache.Stats()
		compare(step)
		got := cache.Stats().Derived > s.Derived
		if got != want {
			t.Fatalf("%s: derived %v, want %v (stats %+v)", step, got, want, cache.Stats())
		}
	}

	compare("first reads")
	checkIn(e.metric, 10)
	derivedSince("a check-in", true)
	checkIn(e.deep, 20)
	derivedSince("a check-in deep in the tree", true)
	checkIn(e.metric, 30)
	checkIn(e.deep, 40)
	checkIn(e.metric, 35)
	derivedSince("three check-ins", true)

	name := "Renamed child"
	if _, err := st.UpdateGoal(e.admin, e.child, upstream.GoalPatch{Name: &name}); err != nil {
		t.Fatal(err)
	}
	derivedSince("a goal renamed", false)
	checkIn(e.deep, 45)
	derivedSince("a check-in after a rename", true)

	g, err := st.CreateGoal(e.admin, upstream.GoalInput{Name: "New child", SessionID: e.session, ParentID: e.child})
	if err != nil {
		t.Fatal(err)
	}
	derivedSince("a goal created", false)
	target := 10.0
	nm, err := st.CreateMetric(e.admin, upstream.MetricInput{Name: "New key result", GoalID: g.ID, Target: &target})
	if err != nil {
		t.Fatal(err)
	}
	derivedSince("a key result created", false)
	checkIn(nm.ID, 5)
	derivedSince("a check-in on the new key result", true)

	private := true
	if _, err := st.UpdateGoal(e.admin, g.ID, upstream.GoalPatch{Private: &private, OwnerIDs: &[]string{e.team}}); err != nil {
		t.Fatal(err)
	}
	derivedSince("a goal made private", false)
	checkIn(nm.ID, 7)
	derivedSince("a check-in on a private goal's key result", true)

	members := []string{e.out1ID}
	team, err := st.GetTeam(e.admin, e.team)
	if err != nil {
		t.Fatal(err)
	}
	members = append(members, team.Members...)
	if _, err := st.UpdateTeam(e.admin, e.team, upstream.TeamPatch{Members: &members}); err != nil {
		t.Fatal(err)
	}
	classes = []string{"admin", "inside"} // outside is inside now
	derivedSince("a member added to the team", false)
	checkIn(e.metric, 50)
	derivedSince("a check-in after the team changed", true)

	if err := st.DeleteGoal(e.admin, g.ID); err != nil {
		t.Fatal(err)
	}
	derivedSince("a goal deleted", false)
	checkIn(e.deep, 60)
	derivedSince("a check-in after a delete", true)
}

// TestDerivedAnswerReads counts the backend calls of an answer derived
// after a check-in: the top-level field's value, one read per kind of
// what the check-in changed — its key result and the goals it recomputed —
// the key result's check-ins, and the entity tags of the objects written
// anew, where a full execution reads every level of the tree.
func TestDerivedAnswerReads(t *testing.T) {
	st := sqlstoretest.Open(t)
	e := newDeriveEnv(t, st)
	derived, _, calls, cache := deriveServers(t, st)
	postTree(t, derived.URL, e.out1, e.session) // the lane's first execution, in full
	actual := 1.0
	if _, err := st.CheckIn(e.admin, e.deep, upstream.CheckInInput{Actual: &actual}); err != nil {
		t.Fatal(err)
	}
	before := calls.Snapshot()
	postTree(t, derived.URL, e.out1, e.session)
	after := calls.Snapshot()
	got := map[string]int64{}
	for k, v := range after {
		if d := v - before[k]; d != 0 {
			got[k] = d
		}
	}
	if s := cache.Stats(); s.Derived != 1 || s.Full != 1 {
		t.Fatalf("executions: %+v, want one full and one derived", s)
	}
	// The session (the top-level field's value); the goals the check-in
	// recomputed (the grandchild, its parent and the root) and its key
	// result, one read each; the key result's check-ins; and the entity
	// tags of the objects written anew, one read per level that has some
	// (the three goals' levels and the key result's).
	want := map[string]int64{"ListSessions": 1, "ListGoals": 1, "ListMetrics": 1, "ListCheckIns": 1, "VersionsOf": 4}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %d calls, want %d (all: %v)", k, got[k], v, got)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("unexpected call %s ×%d (all: %v)", k, got[k], got)
		}
	}
}

// TestDerivedAnswerFullAfterOtherWrites: a write that is not a check-in
// between two executions makes the next execute in full.
func TestDerivedAnswerFullAfterOtherWrites(t *testing.T) {
	st := sqlstoretest.Open(t)
	e := newDeriveEnv(t, st)
	derived, _, _, cache := deriveServers(t, st)
	postTree(t, derived.URL, e.out1, e.session)
	actual := 1.0
	if _, err := st.CheckIn(e.admin, e.deep, upstream.CheckInInput{Actual: &actual}); err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("Renamed %d", 1)
	if _, err := st.UpdateGoal(e.admin, e.child, upstream.GoalPatch{Name: &name}); err != nil {
		t.Fatal(err)
	}
	if b := postTree(t, derived.URL, e.out1, e.session); !bytes.Contains(b, []byte(name)) {
		t.Fatalf("the rename is missing: %s", b)
	}
	if s := cache.Stats(); s.Derived != 0 || s.Full != 2 {
		t.Fatalf("executions: %+v, want two full", s)
	}
}

// TestDerivedAnswerPiecesBounded: every derivation adds the pieces it
// writes anew (a key result's growing check-ins among them) to what its
// lane keeps; once they are more than twice the answer the next
// execution runs in full, and the answers stay a full execution's.
func TestDerivedAnswerPiecesBounded(t *testing.T) {
	st := sqlstoretest.Open(t)
	e := newDeriveEnv(t, st)
	derived, full, _, cache := deriveServers(t, st)
	for i := range 30 {
		actual := float64(i)
		if _, err := st.CheckIn(e.admin, e.deep, upstream.CheckInInput{Actual: &actual}); err != nil {
			t.Fatal(err)
		}
		got := postTree(t, derived.URL, e.out1, e.session)
		if want := postTree(t, full.URL, e.out1, e.session); !bytes.Equal(got, want) {
			t.Fatalf("after %d check-ins: derived answer differs from a full execution\n got: %s\nwant: %s", i+1, got, want)
		}
	}
	if s := cache.Stats(); s.Full < 2 || s.Derived < 10 || s.Full+s.Derived != 30 {
		t.Fatalf("executions %+v: want mostly derived, and the pieces started afresh at least once", s)
	}
}
