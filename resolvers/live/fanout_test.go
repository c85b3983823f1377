package live_test

import (
	"context"
	"fmt"
	"maps"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/okrgate/okrgate/resolvers/live"
	"github.com/okrgate/okrgate/resolvers/transport/graphqlhttp"
	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
)

// countingAPI is the store, counting its reads of goals: each call of
// GetGoal or ListGoals, and how many times each goal was read.
type countingAPI struct {
	*sqlstore.Store
	mu    sync.Mutex
	calls int
	reads map[string]int
}

func (c *countingAPI) GetGoal(ctx context.Context, id string) (upstream.Goal, error) {
	g, err := c.Store.GetGoal(ctx, id)
	c.mu.Lock()
	c.calls++
	if err == nil {
		c.reads[id]++
	}
	c.mu.Unlock()
	return g, err
}

func (c *countingAPI) ListGoals(ctx context.Context, q upstream.ListQuery) (upstream.Page[upstream.Goal], error) {
	p, err := c.Store.ListGoals(ctx, q)
	c.mu.Lock()
	c.calls++
	for _, g := range p.Items {
		c.reads[g.ID]++
	}
	c.mu.Unlock()
	return p, err
}

// counts returns the calls so far and the reads of each goal.
func (c *countingAPI) counts() (int, map[string]int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls, maps.Clone(c.reads)
}

// user creates a user of the account with role and returns it with a token.
func (e *liveEnv) user(email, role string) sqlstore.BootstrapResult {
	e.t.Helper()
	u, err := e.store.CreateUser(e.adminCtx, upstream.UserInput{Email: email, FirstName: email, Role: role})
	if err != nil {
		e.t.Fatal(err)
	}
	tok, err := e.store.CreateToken(e.adminCtx, u.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	return sqlstore.BootstrapResult{AccountID: e.admin.AccountID, UserID: u.ID, Token: tok}
}

// waitJoined waits until n subscriptions are served by their account's
// reader, so that what follows is read by it alone.
func waitJoined(t *testing.T, hub *live.Hub, n int64) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for hub.Joined() != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d subscriptions joined, want %d", hub.Joined(), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestFanoutReadsEachItemOncePerGroup subscribes eight connections in two
// visibility classes — three viewers (users no item names) with two
// connections each, and the admin with two — to the same view, checks in,
// and counts the store's reads of each changed goal: one per class, not
// one per subscriber, while every subscriber receives every change.
func TestFanoutReadsEachItemOncePerGroup(t *testing.T) {
	hub := &live.Hub{}
	e := newLiveEnv(t, hub)
	api := &countingAPI{Store: e.store, reads: map[string]int{}}
	srv := httptest.NewServer(graphqlhttp.NewHandler(graphqlhttp.Config{API: api, Auth: e.store, Live: hub}))
	t.Cleanup(srv.Close)
	tr := e.tree(e.adminCtx)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var clients []*wsClient
	for _, b := range []sqlstore.BootstrapResult{e.viewer, e.user("v2@acme.test", "viewer"), e.user("v3@acme.test", "viewer"), e.admin} {
		for range 2 {
			c := dialWS(t, ctx, srv.URL, b.Token, nil)
			c.subscribe("goals", goalChangedQuery, map[string]any{"s": tr.session})
			clients = append(clients, c)
		}
	}
	waitJoined(t, hub, int64(len(clients)))
	e.checkIn(e.adminCtx, tr.kr.ID, 5)
	for _, c := range clients {
		waitGoals(t, e, c.next, tr.leaf, tr.mid)
	}
	calls, reads := api.counts()
	if calls != 2 {
		t.Errorf("%d reads of goals for one check-in's batch, want one per class (2)", calls)
	}
	for _, g := range []upstream.Goal{tr.leaf, tr.mid} {
		if reads[g.ID] != 2 {
			t.Errorf("goal %s read %d times for %d subscribers in 2 classes, want 2", g.Name, reads[g.ID], len(clients))
		}
	}
	for id, n := range reads {
		if n != 2 {
			t.Errorf("goal %s read %d times, want once per class (2)", id, n)
		}
	}
}

// TestFanoutKeepsClassesApart subscribes a member of the team that owns a
// private goal, a member outside it and a viewer, two connections each, to
// one view: only the team's member receives the private goal. Then the
// member leaves the team; from the next event on it no longer receives it.
func TestFanoutKeepsClassesApart(t *testing.T) {
	hub := &live.Hub{}
	e := newLiveEnv(t, hub)
	tr := e.tree(e.adminCtx)
	inTeam, outside := e.user("in@acme.test", "member"), e.user("out@acme.test", "member")
	team, err := e.store.CreateTeam(e.adminCtx, sqlstore.TeamInput{Name: "Planning", Members: []string{inTeam.UserID}})
	if err != nil {
		t.Fatal(err)
	}
	target := 10.0
	plan, err := e.store.CreateGoal(e.adminCtx, upstream.GoalInput{Name: "team plan", SessionID: tr.session, ParentID: tr.root.ID, Private: true, OwnerIDs: []string{team.ID}})
	if err != nil {
		t.Fatal(err)
	}
	planKR, err := e.store.CreateMetric(e.adminCtx, upstream.MetricInput{Name: "plan kr", GoalID: plan.ID, Target: &target})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	clients := map[string][]*wsClient{}
	for name, b := range map[string]sqlstore.BootstrapResult{"team member": inTeam, "member outside the team": outside, "viewer": e.viewer} {
		for range 2 {
			c := dialWS(t, ctx, e.srv.URL, b.Token, nil)
			c.subscribe("goals", goalChangedQuery, map[string]any{"s": tr.session})
			clients[name] = append(clients[name], c)
		}
	}
	waitJoined(t, hub, 6)
	// round checks in on the private goal, then on the leaf (a fence every
	// subscriber receives), and returns whether each saw the private goal.
	round := func(private, fence float64) map[string]bool {
		e.checkIn(e.adminCtx, planKR.ID, private)
		e.checkIn(e.adminCtx, tr.kr.ID, fence)
		saw := map[string]bool{}
		for name, cs := range clients {
			for _, c := range cs {
				seen := waitGoals(t, e, c.next, tr.leaf)
				saw[name] = saw[name] || slices.Contains(seen, plan.ID)
			}
		}
		return saw
	}
	saw := round(3, 4)
	if !saw["team member"] {
		t.Error("the team's member did not receive its team's private goal")
	}
	for _, name := range []string{"member outside the team", "viewer"} {
		if saw[name] {
			t.Errorf("the %s received the team's private goal", name)
		}
	}
	if err := e.store.RemoveTeamMember(e.adminCtx, team.ID, inTeam.UserID); err != nil {
		t.Fatal(err)
	}
	for name, saw := range round(6, 7) {
		if saw {
			t.Errorf("the %s received the private goal after leaving the team", name)
		}
	}
}

// TestFanoutReadsABatchOnce checks in at the leaf of a chain six levels
// deep — one event per goal of the path, in one read of the log — with a
// viewer and an admin subscribed: the fan-out reads goals once per group
// for the batch (2 store calls), not once per goal per group (14), and
// each subscriber receives all seven.
func TestFanoutReadsABatchOnce(t *testing.T) {
	hub := &live.Hub{}
	e := newLiveEnv(t, hub)
	api := &countingAPI{Store: e.store, reads: map[string]int{}}
	srv := httptest.NewServer(graphqlhttp.NewHandler(graphqlhttp.Config{API: api, Auth: e.store, Live: hub}))
	t.Cleanup(srv.Close)
	ss, err := e.store.CreateSession(e.adminCtx, upstream.SessionInput{Title: "Deep", Start: "2026-01-01", End: "2026-03-31"})
	if err != nil {
		t.Fatal(err)
	}
	var chain []upstream.Goal
	parent := ""
	for i := range 7 {
		g, err := e.store.CreateGoal(e.adminCtx, upstream.GoalInput{Name: fmt.Sprintf("level %d", i), SessionID: ss.ID, ParentID: parent})
		if err != nil {
			t.Fatal(err)
		}
		chain, parent = append(chain, g), g.ID
	}
	target := 10.0
	kr, err := e.store.CreateMetric(e.adminCtx, upstream.MetricInput{Name: "kr", GoalID: parent, Target: &target})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var clients []*wsClient
	for _, b := range []sqlstore.BootstrapResult{e.viewer, e.admin} {
		c := dialWS(t, ctx, srv.URL, b.Token, nil)
		c.subscribe("goals", goalChangedQuery, map[string]any{"s": ss.ID})
		clients = append(clients, c)
	}
	waitJoined(t, hub, int64(len(clients)))
	e.checkIn(e.adminCtx, kr.ID, 5)
	for _, c := range clients {
		waitGoals(t, e, c.next, chain...)
	}
	calls, reads := api.counts()
	if calls != 2 {
		t.Errorf("%d reads of goals for a check-in six levels deep and 2 groups, want 2 (one per group per batch)", calls)
	}
	for _, g := range chain {
		if reads[g.ID] != 2 {
			t.Errorf("goal %s read %d times, want once per group (2)", g.Name, reads[g.ID])
		}
	}
}
