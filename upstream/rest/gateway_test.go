package rest_test

import (
	"net/url"
	"testing"
)

// walkGateway exercises the designed listings of gateway.go with valid
// input: the caller, check-ins of several key results in one call, and the
// filtered listings.
func walkGateway(t *testing.T, e *env, s seed) {
	me := e.ok(req{method: "GET", path: "/api/v2/users/me"}, 200)
	if str(me, "userId") != e.acct.UserID || str(me, "accountId") != e.acct.AccountID {
		t.Errorf("me = %v", me)
	}
	e.ok(req{method: "POST", path: "/api/v1/metrics/" + s.metric + "/checkin", body: map[string]any{"actual": 10}}, 201)
	f := url.QueryEscape(`{"metricId":{"$in":["` + s.metric + `","` + unknownID + `"]}}`)
	if n := len(items(e.ok(req{method: "GET", path: "/api/v2/checkins?sort=-id&filter=" + f}, 200))); n < 1 {
		t.Errorf("check-ins: %d", n)
	}
	e.problem(req{method: "GET", path: "/api/v2/checkins?filter=" + url.QueryEscape(`{"nope":1}`)}, 400, "invalid_filter")
	e.ok(req{method: "POST", path: "/api/v2/integrations/goals/" + s.child + "/tags", body: map[string]any{"title": "Gateway"}}, 201)
	tf := url.QueryEscape(`{"itemType":"goal"}`)
	if n := len(items(e.ok(req{method: "GET", path: "/api/v2/integrations/taggings?filter=" + tf}, 200))); n != 2 {
		t.Errorf("taggings: %d, want 2 (the walk tagged the child before)", n)
	}
	e.ok(req{method: "GET", path: "/api/v2/badges/assignments?filter=" + url.QueryEscape(`{"status":"approved"}`)}, 200)
	e.ok(req{method: "GET", path: "/api/v2/dashboards/parameters?sort=-id&limit=5"}, 200)
	e.ok(req{method: "GET", path: "/api/v2/announcements?sort=-id&limit=5"}, 200)
}
