package rest_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/okrgate/okrgate/upstream"
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
	grant := e.ok(req{method: "POST", path: "/api/v1/permissions", body: map[string]any{"action": "goals:read", "principals": []string{e.acct.UserID}}}, 201)
	gf := url.QueryEscape(`{"id":{"$in":["` + str(grant, "id") + `","` + unknownID + `"]}}`)
	if got := items(e.ok(req{method: "GET", path: "/api/v2/permissions?filter=" + gf}, 200)); len(got) != 1 || str(got[0], "id") != str(grant, "id") {
		t.Errorf("permissions by id: %v", got)
	}
}

// TestIncludeParameter: include passes a projection through as
// upstream.ListQuery means one: every stored field comes back, and of the
// enrichments and embedded objects only those named; not with fields.
func TestIncludeParameter(t *testing.T) {
	e := newEnv(t)
	s := e.seed()
	e.ok(req{method: "POST", path: "/api/v2/integrations/goals/" + s.child + "/tags", body: map[string]any{"title": "Gateway"}}, 201)
	list := func(params string) map[string]any {
		t.Helper()
		got := items(e.ok(req{method: "GET", path: "/api/v2/integrations/goals?filter=" + filterQ(`{"id":"`+s.child+`"}`) + params}, 200))
		if len(got) != 1 || str(got[0], "name") != "Win EMEA" || str(got[0], "sessionId") != s.session || str(got[0], "parentId") != s.parent {
			t.Fatalf("goals%s: %v, want the child with its stored fields", params, got)
		}
		return got[0]
	}
	count := func(g map[string]any, k string) int { a, _ := g[k].([]any); return len(a) }
	whole := list("")
	if count(whole, "tags") != 1 || count(whole, "currentUserAllowedActions") == 0 {
		t.Fatalf("default shape: tags %v, actions %v", whole["tags"], whole["currentUserAllowedActions"])
	}
	if g := list("&include="); count(g, "tags") != 0 || count(g, "currentUserAllowedActions") != 0 || count(g, "metrics") != 0 {
		t.Errorf("include= computed enrichments: %v", g)
	}
	if g := list("&include=tags"); count(g, "tags") != 1 || count(g, "currentUserAllowedActions") != 0 {
		t.Errorf("include=tags: tags %v, actions %v", g["tags"], g["currentUserAllowedActions"])
	}
	g := list("&include=" + url.QueryEscape("metrics{currentUserAllowedActions}"))
	ms, _ := g["metrics"].([]any)
	if len(ms) != 1 || str(ms[0].(map[string]any), "name") != "Deals" || count(ms[0].(map[string]any), "currentUserAllowedActions") == 0 || count(g, "tags") != 0 {
		t.Errorf("include=metrics{currentUserAllowedActions}: %v", g)
	}
	if r := e.do(req{method: "GET", path: "/api/v2/integrations/goals?fields=name&include=tags"}); r.status != 400 || !strings.Contains(string(r.body), "include") {
		t.Errorf("fields with include: %d %s", r.status, r.body)
	}
	if r := e.do(req{method: "GET", path: "/api/v2/metrics?include=nope"}); r.status != 400 || !strings.Contains(string(r.body), "include") {
		t.Errorf("include=nope: %d %s", r.status, r.body)
	}
	e.ok(req{method: "GET", path: "/api/v2/integrations/tasks?include=assignee"}, 200)
	e.problem(req{method: "GET", path: "/api/v2/sessions?include=id"}, 400, string(upstream.CodeUnknownParam))
}
