package main_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

// TestGatewaySubscriptionsHiddenFromReader: a gateway reads its upstream's
// event feed for an account as one subscriber (the oldest), and the feed
// gives that subscriber an event it may not read only as its position. A
// viewer subscribes first, an admin second; a check-in on a private goal
// reaches the admin, whose group reads the hidden position again as
// itself, and not the viewer.
func TestGatewaySubscriptionsHiddenFromReader(t *testing.T) {
	_, gw, admin, viewer, sid := gatewayWithViewer(t)
	secret := admin.must("POST", "/api/v1/goals", map[string]any{"name": "Secret", "sessionId": sid, "attainmentTypeString": "average_kr", "private": true}, 201)["id"].(string)
	secretKR := admin.must("POST", "/api/v1/metrics", map[string]any{"name": "Secret KR", "goalId": secret, "initialValue": 0, "target": 100, "targetOperator": "at_least"}, 201)["id"].(string)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	vars := map[string]any{"s": sid, "after": 0}
	// until reads ws's updates up to the goal named name and returns the
	// ids and attainments it received.
	until := func(who string, ws *wsClient, name string) map[string]float64 {
		t.Helper()
		got := map[string]float64{}
		for {
			m, err := ws.read()
			if err != nil {
				t.Fatalf("%s: %v after %v", who, err, got)
			}
			var u liveUpdate
			if m.Type != "next" || json.Unmarshal(m.Payload, &u) != nil || len(u.Errors) > 0 {
				t.Fatalf("%s: %s %s", who, m.Type, m.Payload)
			}
			got[u.Data.GoalChanged.ID] = u.Data.GoalChanged.Attainment
			if u.Data.GoalChanged.Name == name {
				return got
			}
		}
	}
	marker := func(name string) {
		admin.must("POST", "/api/v1/goals", map[string]any{"name": name, "sessionId": sid}, 201)
	}

	// The viewer subscribes first: once it has an update, the account's
	// reader on the gateway reads as the viewer.
	vws := dialWS(t, ctx, gw.base, viewer)
	vws.operation("1", liveQuery, vars)
	marker("Viewer live")
	until("viewer", vws, "Viewer live")
	aws := dialWS(t, ctx, gw.base, admin.token)
	aws.operation("1", liveQuery, vars)
	marker("Admin live")
	until("viewer", vws, "Admin live")
	if got := until("admin", aws, "Admin live"); len(got) == 0 {
		t.Fatal("the admin received nothing")
	}

	admin.must("POST", "/api/v1/metrics/"+secretKR+"/checkin", map[string]any{"actual": 50}, 201)
	marker("Last")
	if got := until("admin", aws, "Last"); got[secret] != 0.5 {
		t.Errorf("the admin through the gateway did not receive the private goal's check-in: %v", got)
	}
	if got := until("viewer", vws, "Last"); len(got) != 1 {
		t.Errorf("the viewer received more than the last goal: %v", got)
	}
}
