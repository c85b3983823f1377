package main_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"
)

// TestLiveSSEDemotion runs the binary and opens an event stream of goal
// changes as an admin, who receives a private goal's changes; the admin is
// then demoted to viewer while the stream stays open, and from the next
// event on the stream no longer carries the private goal (each event is
// judged by the subscriber's rights of that moment, not those of when the
// stream opened).
func TestLiveSSEDemotion(t *testing.T) {
	db := t.TempDir() + "/demote.db"
	boot := bootstrapDB(t, db, "Acme", "admin@acme.test")
	s := startServer(t, db)
	c := client{t: t, hc: http.DefaultClient, base: s.base, token: boot.Token, acct: boot.AccountID}
	roles := map[string]any{}
	for _, r := range c.must("GET", "/api/v2/roles?limit=100", nil, 200)["items"].([]any) {
		roles[r.(map[string]any)["name"].(string)] = r.(map[string]any)["id"]
	}
	// A token is issued to a viewer (an admin issues its tokens itself),
	// then the user is promoted.
	u := c.must("POST", "/api/v2/users", map[string]any{"email": "boss@acme.test", "firstName": "Boss", "roleIds": []any{roles["viewer"]}}, 201)
	token := c.must("POST", "/api/v2/users/"+u["id"].(string)+"/tokens", nil, 201)["token"].(string)
	c.must("PATCH", "/api/v2/users/"+u["id"].(string), map[string]any{"roleIds": []any{roles["admin"]}}, 200)

	sid := c.must("POST", "/api/v1/sessions", map[string]any{"title": "Q1", "start": "2027-01-01", "end": "2027-03-31"}, 201)["id"].(string)
	goal := func(name string, private bool) (goalID, krID string) {
		g := c.must("POST", "/api/v1/goals", map[string]any{"name": name, "sessionId": sid, "private": private, "attainmentTypeString": "average_kr"}, 201)
		kr := c.must("POST", "/api/v1/metrics", map[string]any{"name": name + " KR", "goalId": g["id"], "initialValue": 0, "target": 100, "targetOperator": "at_least"}, 201)
		return g["id"].(string), kr["id"].(string)
	}
	secret, secretKR := goal("Secret plan", true)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	next := sseNext(t, ctx, s.base, token, liveQuery, map[string]any{"s": sid, "after": 0})
	// round checks in on the private goal, then creates a new public goal
	// (the fence), and reads the stream up to the fence: whether the
	// private goal came before it. The fence is a goal that did not exist
	// before, so its event comes after the check-in's in the log, and an
	// older event read late (the stream starts at position 0, and each
	// item is read as it is when delivered) cannot stand for it.
	fences := 0
	round := func(secretActual float64) bool {
		c.must("POST", "/api/v1/metrics/"+secretKR+"/checkin", map[string]any{"actual": secretActual}, 201)
		fences++
		fence := c.must("POST", "/api/v1/goals", map[string]any{"name": fmt.Sprintf("Fence %d", fences), "sessionId": sid}, 201)["id"].(string)
		saw := false
		for {
			g := next().Data.GoalChanged
			if g.ID == secret && g.Attainment == secretActual/100 {
				saw = true
			}
			if g.ID == fence {
				return saw
			}
		}
	}
	if !round(30) {
		t.Fatal("the admin's stream did not carry the private goal's change")
	}
	c.must("PATCH", "/api/v2/users/"+u["id"].(string), map[string]any{"roleIds": []any{roles["viewer"]}}, 200)
	if round(60) {
		t.Error("after the demotion to viewer the open stream still carried the private goal's change")
	}
}
