package live_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/okrgate/okrgate/resolvers/live"
	"github.com/okrgate/okrgate/resolvers/transport/graphqlhttp"
	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
)

// liveEnv is a store with an account (admin, viewer) and a second account,
// behind a GraphQL server with subscriptions on 127.0.0.1.
type liveEnv struct {
	t             *testing.T
	store         *sqlstore.Store
	hub           *live.Hub
	srv           *httptest.Server
	admin, viewer sqlstore.BootstrapResult
	other         sqlstore.BootstrapResult
	adminCtx      context.Context
	otherCtx      context.Context
}

func newLiveEnv(t *testing.T, hub *live.Hub) *liveEnv {
	t.Helper()
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, filepath.Join(t.TempDir(), "live.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	e := &liveEnv{t: t, store: st, hub: hub}
	if e.admin, err = st.Bootstrap(ctx, sqlstore.BootstrapInput{AccountName: "Acme", Email: "admin@acme.test"}); err != nil {
		t.Fatal(err)
	}
	if e.other, err = st.Bootstrap(ctx, sqlstore.BootstrapInput{AccountName: "Globex", Email: "admin@globex.test"}); err != nil {
		t.Fatal(err)
	}
	e.adminCtx = e.as(e.admin)
	e.otherCtx = e.as(e.other)
	u, err := st.CreateUser(e.adminCtx, upstream.UserInput{Email: "viewer@acme.test", FirstName: "Vi", Role: "viewer"})
	if err != nil {
		t.Fatal(err)
	}
	tok, err := st.CreateToken(e.adminCtx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	e.viewer = sqlstore.BootstrapResult{AccountID: e.admin.AccountID, UserID: u.ID, Token: tok}
	hub.Log, hub.Classes = st, st
	e.srv = httptest.NewServer(graphqlhttp.NewHandler(graphqlhttp.Config{API: st, Auth: st, Live: hub}))
	t.Cleanup(e.srv.Close)
	return e
}

func (e *liveEnv) as(b sqlstore.BootstrapResult) context.Context {
	c, err := e.store.Authenticate(context.Background(), b.Token)
	if err != nil {
		e.t.Fatal(err)
	}
	return upstream.NewContext(context.Background(), c)
}

// tree is a session with root → mid → leaf, a key result on leaf, and a
// private goal under root with a key result of its own.
type tree struct {
	session                 string
	root, mid, leaf, secret upstream.Goal
	kr, secretKR            upstream.Metric
}

func (e *liveEnv) tree(ctx context.Context) tree {
	e.t.Helper()
	var tr tree
	must := func(err error) {
		if err != nil {
			e.t.Fatal(err)
		}
	}
	ss, err := e.store.CreateSession(ctx, upstream.SessionInput{Title: "Q1", Start: "2026-01-01", End: "2026-03-31"})
	must(err)
	tr.session = ss.ID
	target := 10.0
	tr.root, err = e.store.CreateGoal(ctx, upstream.GoalInput{Name: "root", SessionID: ss.ID})
	must(err)
	tr.mid, err = e.store.CreateGoal(ctx, upstream.GoalInput{Name: "mid", SessionID: ss.ID, ParentID: tr.root.ID})
	must(err)
	tr.leaf, err = e.store.CreateGoal(ctx, upstream.GoalInput{Name: "leaf", SessionID: ss.ID, ParentID: tr.mid.ID})
	must(err)
	tr.kr, err = e.store.CreateMetric(ctx, upstream.MetricInput{Name: "kr", GoalID: tr.leaf.ID, Target: &target})
	must(err)
	tr.secret, err = e.store.CreateGoal(ctx, upstream.GoalInput{Name: "secret", SessionID: ss.ID, ParentID: tr.root.ID, Private: true})
	must(err)
	tr.secretKR, err = e.store.CreateMetric(ctx, upstream.MetricInput{Name: "secret kr", GoalID: tr.secret.ID, Target: &target})
	must(err)
	return tr
}

func (e *liveEnv) head(ctx context.Context) int {
	e.t.Helper()
	h, err := e.store.Head(ctx)
	if err != nil {
		e.t.Fatal(err)
	}
	return int(h)
}

func (e *liveEnv) checkIn(ctx context.Context, metric string, actual float64) {
	e.t.Helper()
	if _, err := e.store.CheckIn(ctx, metric, upstream.CheckInInput{Actual: &actual}); err != nil {
		e.t.Fatal(err)
	}
}

// update is one "next" payload of a subscription.
type update struct {
	Data       map[string]json.RawMessage `json:"data"`
	Errors     []json.RawMessage          `json:"errors"`
	Extensions struct {
		Position int64 `json:"position"`
	} `json:"extensions"`
}

// goalOf decodes the goal of a goalChanged update.
func (u update) goal(t *testing.T) (g struct {
	ID         string  `json:"id"`
	Name       string  `json:"name"`
	Attainment float64 `json:"attainment"`
}) {
	t.Helper()
	if err := json.Unmarshal(u.Data["goalChanged"], &g); err != nil {
		t.Fatalf("update %s: %v", u.Data, err)
	}
	return g
}

const goalChangedQuery = `subscription($s: ID, $root: ID, $after: Int) {
  goalChanged(sessionId: $s, rootGoalId: $root, after: $after) { id name attainment }
}`

// waitGoals reads updates until every goal of want has arrived with its
// stored attainment, and returns every goal id seen on the way.
func waitGoals(t *testing.T, e *liveEnv, next func() update, want ...upstream.Goal) []string {
	t.Helper()
	pending := map[string]bool{}
	for _, g := range want {
		pending[g.ID] = true
	}
	var seen []string
	var last int64
	for len(pending) > 0 {
		u := next()
		if u.Extensions.Position <= last {
			t.Fatalf("position %d after %d", u.Extensions.Position, last)
		}
		last = u.Extensions.Position
		g := u.goal(t)
		seen = append(seen, g.ID)
		stored, err := e.store.GetGoal(e.adminCtx, g.ID)
		if err != nil {
			t.Fatal(err)
		}
		if pending[g.ID] && g.Attainment == stored.Attainment {
			delete(pending, g.ID)
		}
	}
	return seen
}

// TestGoalChangedOverWebsocket subscribes to a session's goal changes over
// graphql-transport-ws, checks in on the deep key result, and receives the
// key result's goal and every ancestor with its new attainment.
func TestGoalChangedOverWebsocket(t *testing.T) {
	e := newLiveEnv(t, &live.Hub{})
	tr := e.tree(e.adminCtx)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := dialWS(t, ctx, e.srv.URL, e.admin.Token, nil)
	c.subscribe("1", goalChangedQuery, map[string]any{"s": tr.session, "after": e.head(e.adminCtx)})
	e.checkIn(e.adminCtx, tr.kr.ID, 5)
	waitGoals(t, e, c.next, tr.leaf, tr.mid, tr.root)
}

// TestGoalChangedOverSSE receives the same over server-sent events.
func TestGoalChangedOverSSE(t *testing.T) {
	e := newLiveEnv(t, &live.Hub{})
	tr := e.tree(e.adminCtx)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	next := sseSubscribe(t, ctx, e.srv.URL, e.admin.Token, goalChangedQuery, map[string]any{"s": tr.session, "after": e.head(e.adminCtx)})
	e.checkIn(e.adminCtx, tr.kr.ID, 5)
	waitGoals(t, e, next, tr.leaf, tr.mid, tr.root)
}

// TestSubscriptionsDoNotLeak subscribes the owner and a viewer to the same
// session: a check-in on a private goal reaches the owner only, a write in
// another account reaches neither; a later public check-in, which both
// receive, shows the viewer's stream skipped what it may not read.
func TestSubscriptionsDoNotLeak(t *testing.T) {
	e := newLiveEnv(t, &live.Hub{})
	tr := e.tree(e.adminCtx)
	otr := e.tree(e.otherCtx)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	after := e.head(e.adminCtx)
	owner := dialWS(t, ctx, e.srv.URL, e.admin.Token, nil)
	viewer := dialWS(t, ctx, e.srv.URL, e.viewer.Token, nil)
	for _, c := range []*wsClient{owner, viewer} {
		c.subscribe("goals", goalChangedQuery, map[string]any{"s": tr.session, "after": after})
	}
	e.checkIn(e.adminCtx, tr.secretKR.ID, 5)
	e.checkIn(e.otherCtx, otr.kr.ID, 5)
	e.checkIn(e.adminCtx, tr.kr.ID, 5)

	ownerSaw := waitGoals(t, e, owner.next, tr.secret, tr.leaf, tr.mid)
	viewerSaw := waitGoals(t, e, viewer.next, tr.leaf, tr.mid)
	if !slices.Contains(ownerSaw, tr.secret.ID) {
		t.Errorf("the owner did not receive the private goal: %v", ownerSaw)
	}
	for _, id := range viewerSaw {
		if id == tr.secret.ID {
			t.Errorf("the viewer received the private goal %s", id)
		}
		for _, g := range []upstream.Goal{otr.root, otr.mid, otr.leaf} {
			if id == g.ID {
				t.Errorf("the viewer received goal %s of another account", id)
			}
		}
	}
	for _, id := range ownerSaw {
		for _, g := range []upstream.Goal{otr.root, otr.mid, otr.leaf} {
			if id == g.ID {
				t.Errorf("the owner received goal %s of another account", id)
			}
		}
	}
}

// TestRevokedTokenEndsSubscriptions revokes the subscriber's token: the
// next event ends its connection with close code 4403 instead of
// delivering anything.
func TestRevokedTokenEndsSubscriptions(t *testing.T) {
	e := newLiveEnv(t, &live.Hub{})
	tr := e.tree(e.adminCtx)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	vctx := e.as(e.viewer)
	tok, err := e.store.IssueToken(vctx, "", upstream.TokenInput{Name: "live"})
	if err != nil {
		t.Fatal(err)
	}
	c := dialWS(t, ctx, e.srv.URL, tok.Secret, nil)
	c.subscribe("1", goalChangedQuery, map[string]any{"s": tr.session, "after": e.head(e.adminCtx)})
	if err := e.store.RevokeToken(vctx, tok.ID); err != nil {
		t.Fatal(err)
	}
	e.checkIn(e.adminCtx, tr.kr.ID, 5)
	for {
		m, err := c.tryRead()
		if err != nil {
			if got := websocket.CloseStatus(err); got != 4403 {
				t.Fatalf("connection ended with %v (status %d), want close 4403", err, got)
			}
			return
		}
		if m.Type == "next" {
			t.Fatalf("a revoked token received %s", m.Payload)
		}
	}
}

// TestSlowConsumerDisconnected subscribes with a consumer that stops
// reading while 1,000 large updates are produced: the subscription is
// ended with close code 4008 once its buffer is full, what the server
// holds stays bounded, and the consumer, reading again, gets fewer than
// the 1,000 updates and then the close reason.
func TestSlowConsumerDisconnected(t *testing.T) {
	const buffer, events = 8, 1000
	hub := &live.Hub{Buffer: buffer, WriteGrace: 10 * time.Minute}
	e := newLiveEnv(t, hub)
	tr := e.tree(e.adminCtx)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	// 16 aliases of a 16 KiB description: 256 KiB per update, 256 MiB for
	// all of them, far beyond what socket buffers hold.
	desc := strings.Repeat("x", 16<<10)
	if _, err := e.store.UpdateGoal(e.adminCtx, tr.root.ID, upstream.GoalPatch{Description: &desc}); err != nil {
		t.Fatal(err)
	}
	var sel strings.Builder
	for i := range 16 {
		fmt.Fprintf(&sel, " d%d: description", i)
	}
	c := dialWS(t, ctx, e.srv.URL, e.admin.Token, nil)
	c.subscribe("1", `subscription($root: ID, $after: Int) { goalChanged(rootGoalId: $root, after: $after) { id`+sel.String()+` } }`,
		map[string]any{"root": tr.root.ID, "after": e.head(e.adminCtx)})

	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := range events {
		name := fmt.Sprintf("root %d", i)
		if _, err := e.store.UpdateGoal(e.adminCtx, tr.root.ID, upstream.GoalPatch{Name: &name}); err != nil {
			t.Fatal(err)
		}
	}
	// The subscription is ended as soon as its buffer overflows, which
	// the production above forces; wait for that without a clock.
	for hub.SlowConsumers() == 0 {
		select {
		case <-ctx.Done():
			t.Fatal("the slow consumer was not disconnected")
		case <-time.After(10 * time.Millisecond):
		}
	}
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	// Unbounded, the server would hold the 256 MiB of updates; bounded, a
	// buffer of 8 (2 MiB) and one update being written.
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 64<<20 {
		t.Errorf("heap grew by %d MiB while the consumer did not read", grew>>20)
	}

	got := 0
	for {
		m, err := c.tryRead()
		if err != nil {
			var ce websocket.CloseError
			if !errors.As(err, &ce) || ce.Code != 4008 || !strings.Contains(ce.Reason, "slow consumer") {
				t.Fatalf("connection ended with %v, want close 4008 slow consumer", err)
			}
			break
		}
		if m.Type == "next" {
			got++
		}
	}
	if got >= events {
		t.Errorf("the slow consumer received all %d updates", got)
	}
	if hub.Delivered() < int64(buffer) {
		t.Errorf("Delivered() = %d, want at least the buffer (%d)", hub.Delivered(), buffer)
	}
	for hub.Active() != 0 { // the metrics' gauge: the ended subscription is released
		select {
		case <-ctx.Done():
			t.Fatalf("Active() = %d after the disconnect", hub.Active())
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.Logf("the slow consumer received %d of %d updates before its close frame", got, events)
}

// TestSubscriptionLimits refuses a subscription over the connection's
// limit with TOO_MANY_SUBSCRIPTIONS, and the token's limit across
// connections, while the ones within keep working.
func TestSubscriptionLimits(t *testing.T) {
	e := newLiveEnv(t, &live.Hub{MaxPerConn: 1, MaxPerToken: 2})
	tr := e.tree(e.adminCtx)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// after 0 replays the setup's events: the first update shows the
	// subscription holds its place before the next one is asked for.
	vars := map[string]any{"s": tr.session, "after": 0}
	accepted := func(c *wsClient, id string) {
		t.Helper()
		c.subscribe(id, goalChangedQuery, vars)
		c.next()
	}
	refused := func(c *wsClient, id string) {
		t.Helper()
		c.subscribe(id, goalChangedQuery, vars)
		for {
			m := c.read()
			if m.ID != id {
				continue // an update of an accepted subscription
			}
			if m.Type != "error" && m.Type != "next" {
				t.Fatalf("subscription %s: %s %s, want an error", id, m.Type, m.Payload)
			}
			if !strings.Contains(string(m.Payload), live.CodeTooManySubscriptions) {
				t.Fatalf("subscription %s: %s, want %s", id, m.Payload, live.CodeTooManySubscriptions)
			}
			return
		}
	}
	a := dialWS(t, ctx, e.srv.URL, e.admin.Token, nil)
	accepted(a, "1")
	refused(a, "2") // over the connection's limit
	b := dialWS(t, ctx, e.srv.URL, e.admin.Token, nil)
	accepted(b, "1")
	c := dialWS(t, ctx, e.srv.URL, e.admin.Token, nil)
	refused(c, "1") // over the token's limit
	e.checkIn(e.adminCtx, tr.kr.ID, 5)
	for _, cl := range []*wsClient{a, b} {
		for {
			m := cl.read()
			if m.Type == "next" && m.ID == "1" && strings.Contains(string(m.Payload), tr.leaf.ID) && strings.Contains(string(m.Payload), `"attainment":0.5`) {
				break
			}
			if m.Type != "next" && m.ID == "1" {
				t.Fatalf("%s %s", m.Type, m.Payload)
			}
		}
	}
}

// TestCheckInAndTaskSubscriptions receives a check-in on a goal's key
// result, and a task created on that key result through the goal's
// taskChanged, but not a task of another goal.
func TestCheckInAndTaskSubscriptions(t *testing.T) {
	e := newLiveEnv(t, &live.Hub{})
	tr := e.tree(e.adminCtx)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	after := e.head(e.adminCtx)
	c := dialWS(t, ctx, e.srv.URL, e.admin.Token, nil)
	c.subscribe("ci", `subscription($g: ID, $after: Int) { checkInCreated(goalId: $g, after: $after) { id actual } }`,
		map[string]any{"g": tr.leaf.ID, "after": after})
	c.subscribe("task", `subscription($g: ID, $after: Int) { taskChanged(goalId: $g, after: $after) { id name } }`,
		map[string]any{"g": tr.leaf.ID, "after": after})
	if _, err := e.store.CreateTask(e.adminCtx, upstream.TaskInput{Name: "elsewhere", ParentID: tr.root.ID, ParentType: upstream.ParentGoal}); err != nil {
		t.Fatal(err)
	}
	e.checkIn(e.adminCtx, tr.kr.ID, 7)
	task, err := e.store.CreateTask(e.adminCtx, upstream.TaskInput{Name: "on the key result", ParentID: tr.kr.ID, ParentType: upstream.ParentMetric})
	if err != nil {
		t.Fatal(err)
	}
	var gotCheckIn, gotTask bool
	for !gotCheckIn || !gotTask {
		m := c.read()
		if m.Type != "next" {
			t.Fatalf("%s %s", m.Type, m.Payload)
		}
		p := string(m.Payload)
		switch m.ID {
		case "ci":
			gotCheckIn = strings.Contains(p, `"actual":7`)
		case "task":
			if strings.Contains(p, "elsewhere") {
				t.Fatalf("taskChanged(goalId: leaf) received a task of the root: %s", p)
			}
			gotTask = strings.Contains(p, task.ID)
		}
	}
}
