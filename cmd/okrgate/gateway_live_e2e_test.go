package main_test

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestGatewaySubscriptions runs a store server and a gateway (serve
// --upstream) as two processes: subscriptions on the gateway receive the
// check-ins made on the store server, with the authorization of a
// subscription on the store server itself — a viewer receives the public
// goals' changes in the same order as directly, and never the private
// goal, which the admin receives.
func TestGatewaySubscriptions(t *testing.T) {
	store, gw, admin, viewer, sid := gatewayWithViewer(t)
	root := admin.must("POST", "/api/v1/goals", map[string]any{"name": "Company", "sessionId": sid, "attainmentTypeString": "average_children"}, 201)
	goal := func(name string, private bool) (string, string) {
		g := admin.must("POST", "/api/v1/goals", map[string]any{"name": name, "sessionId": sid, "parentId": root["id"], "attainmentTypeString": "average_kr", "private": private}, 201)
		m := admin.must("POST", "/api/v1/metrics", map[string]any{"name": name + " KR", "goalId": g["id"], "initialValue": 0, "target": 100, "targetOperator": "at_least"}, 201)
		return g["id"].(string), m["id"].(string)
	}
	public, publicKR := goal("Public", false)
	secret, secretKR := goal("Secret", true)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// after: 0 replays the log from its start, so nothing written before
	// the subscriptions run is missed.
	vars := map[string]any{"s": sid, "after": 0}
	subscribe := func(base, token string) *wsClient {
		ws := dialWS(t, ctx, base, token)
		ws.operation("1", liveQuery, vars)
		return ws
	}
	subs := map[string]*wsClient{
		"viewer through the gateway": subscribe(gw.base, viewer),
		"viewer directly":            subscribe(store.base, viewer),
		"admin through the gateway":  subscribe(gw.base, admin.token),
	}
	checkIn := time.Now()
	admin.must("POST", "/api/v1/metrics/"+secretKR+"/checkin", map[string]any{"actual": 50}, 201)
	admin.must("POST", "/api/v1/metrics/"+publicKR+"/checkin", map[string]any{"actual": 50}, 201)
	// The last event: every subscriber has seen all the others when it
	// receives this goal.
	last := admin.must("POST", "/api/v1/goals", map[string]any{"name": "Last", "sessionId": sid}, 201)["id"].(string)

	got := map[string][]liveGoal{}
	for name, ws := range subs {
		for {
			m, err := ws.read()
			if err != nil {
				t.Fatalf("%s: %v after %v", name, err, got[name])
			}
			var u liveUpdate
			if m.Type != "next" || json.Unmarshal(m.Payload, &u) != nil || len(u.Errors) > 0 {
				t.Fatalf("%s: %s %s", name, m.Type, m.Payload)
			}
			got[name] = append(got[name], u.Data.GoalChanged)
			if u.Data.GoalChanged.ID == last {
				break
			}
		}
		t.Logf("%s: %d updates, the last %v after the first check-in", name, len(got[name]), time.Since(checkIn))
	}
	has := func(name, id string, attainment float64) bool {
		return slices.ContainsFunc(got[name], func(g liveGoal) bool { return g.ID == id && g.Attainment == attainment })
	}
	ids := func(name string) []string {
		var out []string
		for _, g := range got[name] {
			out = append(out, g.ID)
		}
		return out
	}
	for _, name := range []string{"viewer through the gateway", "viewer directly"} {
		if slices.Contains(ids(name), secret) {
			t.Errorf("%s received the private goal: %v", name, got[name])
		}
		if !has(name, public, 0.5) {
			t.Errorf("%s did not receive the checked-in goal at 0.5: %v", name, got[name])
		}
	}
	if a, b := ids("viewer through the gateway"), ids("viewer directly"); !slices.Equal(a, b) {
		t.Errorf("the viewer received through the gateway %v\nand directly %v", a, b)
	}
	if !has("admin through the gateway", secret, 0.5) || !has("admin through the gateway", public, 0.5) {
		t.Errorf("the admin through the gateway did not receive both check-ins' goals: %v", got["admin through the gateway"])
	}

	// The gateway's REST facade serves the upstream's feed, as the caller
	// may see it.
	req, _ := http.NewRequest("GET", gw.base+"/api/v2/events?after=0&limit=500", nil)
	req.Header.Set("Authorization", "Bearer "+viewer)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var feed struct {
		Items []struct {
			ItemID string `json:"itemId"`
			Hidden bool   `json:"hidden"`
		} `json:"items"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&feed); err != nil || resp.StatusCode != 200 || len(feed.Items) == 0 {
		t.Fatalf("GET /api/v2/events through the gateway: %d %v", resp.StatusCode, err)
	}
	for _, it := range feed.Items {
		if it.ItemID == secret || it.ItemID == secretKR {
			t.Errorf("the viewer's feed through the gateway names the private goal or its key result: %+v", it)
		}
	}
}

// gatewayWithViewer starts a store server with a bootstrapped account and
// a gateway over it that polls the upstream's event feed every 100 ms; it
// returns both, the admin's client on the store server, a viewer's token
// and a new session's id.
func gatewayWithViewer(t *testing.T) (store, gw *server, admin client, viewer, sid string) {
	t.Helper()
	db := filepath.Join(t.TempDir(), "store.db")
	boot := bootstrapDB(t, db, "Acme", "admin@acme.test")
	store = startServer(t, db)
	gw = startServer(t, filepath.Join(t.TempDir(), "unused.db"), "--upstream", store.base, "--upstream-events-poll", "100ms")
	admin = client{t: t, hc: conformingClient(t), base: store.base, token: boot.Token, acct: boot.AccountID}
	viewerRole := ""
	for _, r := range admin.must("GET", "/api/v2/roles?limit=100", nil, 200)["items"].([]any) {
		if r.(map[string]any)["name"] == "viewer" {
			viewerRole = r.(map[string]any)["id"].(string)
		}
	}
	u := admin.must("POST", "/api/v2/users", map[string]any{"email": "viewer@acme.test", "firstName": "Vi", "roleIds": []any{viewerRole}}, 201)
	viewer = admin.must("POST", "/api/v2/users/"+u["id"].(string)+"/tokens", nil, 201)["token"].(string)

	sess := admin.must("POST", "/api/v1/sessions", map[string]any{"title": "Q1", "start": "2027-01-01", "end": "2027-03-31"}, 201)
	sid = sess["id"].(string)
	return store, gw, admin, viewer, sid
}
