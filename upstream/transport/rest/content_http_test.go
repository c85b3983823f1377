package rest_test

import (
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/okrgate/okrgate/upstream/transport/rest"
)

const unknownID = "5f1a2b3c4d5e6f7a8b9c0d1e"

// TestContractWalk is the end-to-end walk: a real SQLite file, the store,
// the facade on 127.0.0.1, every response checked against the OpenAPI
// document. Every route of the table gets invalid input (an unknown query
// parameter, and route-specific mistakes); the OKR core and the rest of the
// contract also get valid input; at the end each route must have answered
// both ways.
func TestContractWalk(t *testing.T) {
	e := newEnv(t)
	conf := e.conf
	s := e.seed()

	// Invalid input on every route: an unknown query parameter is a 400
	// naming it (the account header is sent, so authentication passes).
	for _, rt := range rest.Routes() {
		path := regexp.MustCompile(`\{[^}]+\}`).ReplaceAllString(rt.Pattern, unknownID)
		p := e.problem(req{method: rt.Method, path: path + "?bogus=1"}, 400, "unknown_parameter")
		if p != nil && !strings.Contains(str(p, "detail"), "bogus") {
			t.Errorf("%s %s: unknown parameter not named: %v", rt.Method, rt.Pattern, p)
		}
	}

	walkCore(t, e, s)
	walkOrg(t, e)
	walkContent(t, e, s)
	walkGateway(t, e, s)
	walkWebhooks(t, e)  // webhooks_http_test.go
	walkEvents(t, e)    // events_http_test.go
	walkLegacy(t, e, s) // compat_http_test.go
	walkIntegrations(t, e, s)
	walkAvatars(t, e)     // avatars_http_test.go
	walkComments(t, e, s) // comments_http_test.go
	walkProjections(t, e, s)

	for _, rt := range rest.Routes() {
		key := rt.Method + " " + rt.Pattern
		if rt.Method == "GET" && slices.Contains(rt.Params, "fields") && !conf.Projected(rt.Method, rt.Pattern) {
			t.Errorf("%s: takes fields= but never answered a projection", key)
		}
		ok, bad := conf.Exercised(rt.Method, rt.Pattern)
		if !bad {
			t.Errorf("%s: never answered invalid input with a 4xx", key)
		}
		if !ok {
			if isOrgRoute(rt.Pattern) {
				t.Logf("%s (organisation): no success in this walk; covered by the organisation tests", key)
				continue
			}
			t.Errorf("%s: never answered valid input with a success", key)
		}
	}
}

func isOrgRoute(p string) bool {
	for _, prefix := range []string{"/api/v1/accounts", "/api/v2/users", "/api/v2/employees", "/api/v1/employees",
		"/api/v1/teams", "/api/v2/teams", "/api/v2/roles", "/api/v1/roles", "/api/v1/permissions"} {
		if strings.HasPrefix(p, prefix) {
			return true
		}
	}
	return false
}

// walkCore exercises the goal, key-result, task and session routes.
func walkCore(t *testing.T, e *env, s seed) {
	e.ok(req{method: "GET", path: "/api/v2/integrations/goals?sort=name&limit=5&fields=name,tags"}, 200)
	e.ok(req{method: "GET", path: "/api/v2/integrations/goals/groupBy/owners?includeMetrics=true&take=5"}, 200)
	e.ok(req{method: "POST", path: "/api/v2/integrations/goals/" + s.child + "/tags", body: map[string]any{"title": "Growth"}}, 201)
	e.ok(req{method: "POST", path: "/api/v2/integrations/goals/" + s.child + "/tags", body: map[string]any{"title": " growth "}}, 304)
	e.problem(req{method: "POST", path: "/api/v2/integrations/goals/" + s.child + "/tags", body: map[string]any{}}, 400, "invalid_input")
	e.ok(req{method: "GET", path: "/api/v1/goals/" + s.child + "?formatting=plainText"}, 200)
	e.ok(req{method: "PATCH", path: "/api/v1/goals/" + s.child, body: map[string]any{"name": "Win EMEA"}}, 200)
	e.problem(req{method: "PATCH", path: "/api/v1/goals/" + s.child, body: map[string]any{"name": ""}}, 400, "invalid_input")
	e.ok(req{method: "GET", path: "/api/v2/metrics?filter=" + filterQ(`{goalId:"`+s.child+`"}`)}, 200)
	ci := e.ok(req{method: "POST", path: "/api/v1/metrics/" + s.metric + "/checkin", body: map[string]any{"actual": 40}}, 201)
	e.problem(req{method: "POST", path: "/api/v1/metrics/" + s.metric + "/checkin", body: map[string]any{"actual": "x"}}, 400, "invalid_input")
	e.ok(req{method: "GET", path: "/api/v1/metrics/checkin/" + str(ci, "id")}, 200)
	if sn := items(e.ok(req{method: "GET", path: "/api/v2/checkins/snapshots?limit=5&filter=" + filterQ(`{metricId:"`+s.metric+`"}`)}, 200)); len(sn) != 1 || str(sn[0], "id") != str(ci, "id") || num(sn[0]["keyResult"].(map[string]any), "actual") != 40 {
		t.Errorf("check-ins with snapshots = %v", sn)
	}
	e.ok(req{method: "GET", path: "/api/v1/metrics/owner/" + e.acct.UserID}, 200)
	e.ok(req{method: "GET", path: "/api/v1/metrics/" + s.metric}, 200)
	e.ok(req{method: "GET", path: "/api/v1/metrics/" + s.metric + "/checkins?limit=5"}, 200)
	e.ok(req{method: "PATCH", path: "/api/v1/metrics/" + s.metric, body: map[string]any{"name": "Deals won"}}, 200)
	task := e.ok(req{method: "POST", path: "/api/v2/integrations/tasks", body: map[string]any{"name": "Call", "parentId": s.child, "parentType": "goal", "status": "todo"}}, 201)
	e.problem(req{method: "POST", path: "/api/v2/integrations/tasks", body: map[string]any{"name": ""}}, 400, "invalid_input")
	e.ok(req{method: "GET", path: "/api/v2/integrations/tasks?limit=5"}, 200)
	e.ok(req{method: "GET", path: "/api/v2/integrations/tasks/" + str(task, "id")}, 200)
	e.ok(req{method: "PATCH", path: "/api/v2/integrations/tasks/" + str(task, "id"), body: map[string]any{"status": "done"}}, 200)
	e.ok(req{method: "DELETE", path: "/api/v2/integrations/tasks/" + str(task, "id")}, 204)
	e.ok(req{method: "GET", path: "/api/v2/sessions?includeDemo=true"}, 200)
	e.ok(req{method: "GET", path: "/api/v1/sessions/" + s.session + "/stats/goalsMet?tags=growth"}, 200)
	e.ok(req{method: "GET", path: "/api/v1/sessions/" + s.session}, 200)
	e.ok(req{method: "PATCH", path: "/api/v1/sessions/" + s.session, body: map[string]any{"title": "H1"}}, 200)
	empty := e.ok(req{method: "POST", path: "/api/v1/sessions", body: map[string]any{"title": "Empty", "start": "2026-07-01", "end": "2026-12-31"}}, 201)
	e.problem(req{method: "DELETE", path: "/api/v1/sessions/" + s.session}, 409, "conflict")
	e.ok(req{method: "DELETE", path: "/api/v1/sessions/" + str(empty, "id")}, 204)
	m2 := e.ok(req{method: "POST", path: "/api/v1/metrics", body: map[string]any{"name": "Spare", "goalId": s.parent, "target": 10}}, 201)
	e.ok(req{method: "DELETE", path: "/api/v1/metrics/" + str(m2, "id")}, 204)
	g2 := e.ok(req{method: "POST", path: "/api/v1/goals", body: map[string]any{"name": "Spare", "sessionId": s.session}}, 201)
	e.ok(req{method: "DELETE", path: "/api/v1/goals/" + str(g2, "id")}, 204)
}

// walkOrg exercises the organisation reads that need no setup.
func walkOrg(t *testing.T, e *env) {
	team := e.ok(req{method: "POST", path: "/api/v1/teams", body: map[string]any{"name": "Sales", "members": []string{e.acct.UserID}}}, 201)
	e.ok(req{method: "GET", path: "/api/v2/teams"}, 200)
	e.ok(req{method: "GET", path: "/api/v1/teams/" + str(team, "id")}, 200)
	e.ok(req{method: "GET", path: "/api/v2/users"}, 200)
	e.ok(req{method: "GET", path: "/api/v2/users/" + e.acct.UserID}, 200)
	e.ok(req{method: "GET", path: "/api/v1/accounts/" + e.acct.AccountID}, 200)
	e.ok(req{method: "GET", path: "/api/v2/employees"}, 200)
	e.ok(req{method: "GET", path: "/api/v1/employees/" + e.acct.UserID}, 200)
	e.ok(req{method: "GET", path: "/api/v2/roles"}, 200)
	e.ok(req{method: "GET", path: "/api/v1/permissions/actions"}, 200)
	e.ok(req{method: "GET", path: "/api/v1/permissions/effective"}, 200)
}

// walkContent exercises the rest of the contract with valid and invalid input.
func walkContent(t *testing.T, e *env, s seed) {
	// Announcements (deprecated): headers, authorID → authorId, react.
	r := e.do(req{method: "POST", path: "/api/v1/announcements", body: map[string]any{
		"announcementTargetId": s.session, "announcementType": "news", "authorID": e.acct.UserID,
		"comment": "Hello @[Ann Lee:ann@acme.test:" + e.acct.UserID + "]", "notificationStrategy": "email", "notify": []string{e.acct.UserID}}})
	if r.status != 201 || r.header.Get("Deprecation") != "@1647302400" || !strings.Contains(r.header.Get("Link"), `rel="deprecation"`) {
		t.Fatalf("create announcement: %d %v %s", r.status, r.header, r.body)
	}
	an := r.json(t)
	if str(an, "authorId") != e.acct.UserID || an["authorID"] != nil || str(an["author"].(map[string]any), "email") != "ann@acme.test" {
		t.Errorf("announcement = %v", an)
	}
	aid := str(an, "id")
	e.problem(req{method: "POST", path: "/api/v1/announcements", body: map[string]any{"comment": " "}}, 400, "invalid_input")
	e.problem(req{method: "POST", path: "/api/v1/announcements", body: map[string]any{"comment": "x", "authorID": unknownID}}, 400, "invalid_input")
	if n := len(items(e.ok(req{method: "GET", path: "/api/v1/announcements?fields=comment&formatting=plainText"}, 200))); n != 1 {
		t.Errorf("announcements: %d", n)
	}
	if c := str(e.ok(req{method: "GET", path: "/api/v1/announcements/" + aid + "?formatting=plainText"}, 200), "comment"); c != "Hello @Ann Lee" {
		t.Errorf("plain comment %q", c)
	}
	e.problem(req{method: "GET", path: "/api/v1/announcements/" + aid, acct: ptr("")}, 400, "account_header_missing")
	re := e.ok(req{method: "POST", path: "/api/v1/announcements/" + aid + "/react", body: map[string]any{"reactionId": "like"}}, 200)
	e.ok(req{method: "POST", path: "/api/v1/announcements/" + aid + "/react", body: map[string]any{"reactionId": "like"}}, 200)
	if n := len(re["reactions"].([]any)); n != 1 {
		t.Errorf("reactions %v", re["reactions"])
	}
	e.problem(req{method: "POST", path: "/api/v1/announcements/" + aid + "/react", body: map[string]any{}}, 400, "invalid_input")
	e.ok(req{method: "PATCH", path: "/api/v1/announcements/" + aid, body: map[string]any{"comment": "Edited"}}, 200)
	e.problem(req{method: "PATCH", path: "/api/v1/announcements/" + aid, body: map[string]any{"comment": ""}}, 400, "invalid_input")
	e.problem(req{method: "GET", path: "/api/v1/announcements/" + aid, as: &e.other}, 404, "not_found")
	e.ok(req{method: "DELETE", path: "/api/v1/announcements/" + aid}, 204)
	e.problem(req{method: "DELETE", path: "/api/v1/announcements/" + aid}, 404, "not_found")

	// KPI groups and KPIs.
	grp := e.ok(req{method: "POST", path: "/api/v1/kpis/groups", body: map[string]any{"name": "Finance"}}, 201)
	gid := str(grp, "id")
	e.ok(req{method: "POST", path: "/api/v1/kpis/groups", body: map[string]any{"name": "Ops"}}, 201)
	e.problem(req{method: "POST", path: "/api/v1/kpis/groups", body: map[string]any{"name": ""}}, 400, "invalid_input")
	kpi := e.ok(req{method: "POST", path: "/api/v1/kpis", body: map[string]any{"name": "ARR", "value": 12.5}}, 201)
	kid := str(kpi, "id")
	e.problem(req{method: "POST", path: "/api/v1/kpis", body: map[string]any{"name": "X", "groupIds": []string{unknownID}}}, 400, "invalid_input")
	e.problem(req{method: "POST", path: "/api/v1/kpis", body: map[string]any{"name": "X", "ownerId": unknownID}}, 400, "invalid_input")
	e.ok(req{method: "PUT", path: "/api/v1/kpis/" + kid + "/groups/" + gid}, 204)
	e.ok(req{method: "PUT", path: "/api/v1/kpis/" + kid + "/groups/" + gid}, 204) // idempotent
	e.problem(req{method: "PUT", path: "/api/v1/kpis/" + kid + "/groups/" + unknownID}, 404, "not_found")
	held := e.ok(req{method: "GET", path: "/api/v1/kpis?filter=" + filterQ(`{groupIds:{$in:["`+gid+`"]}}`)}, 200)
	if num(held, "totalCount") != 1 {
		t.Errorf("KPIs of the group: %v", held)
	}
	e.ok(req{method: "PUT", path: "/api/v1/kpis/groups/" + gid + "/favorite", acct: ptr("")}, 204)
	e.problem(req{method: "PUT", path: "/api/v1/kpis/groups/" + unknownID + "/favorite"}, 404, "not_found")
	gl := e.ok(req{method: "GET", path: "/api/v1/kpis/groups?sort=name"}, 200)
	if num(gl, "count") != 2 || num(gl, "totalCount") != 2 || items(gl)[0]["favorite"] != true || items(gl)[1]["favorite"] != false {
		t.Errorf("KPI groups = %v", gl)
	}
	// The listing takes its query from a JSON body too.
	gb := e.ok(req{method: "GET", path: "/api/v1/kpis/groups", body: map[string]any{"filter": map[string]any{"name": "Ops"}, "fields": "name", "limit": 1}}, 200)
	if num(gb, "totalCount") != 1 || str(items(gb)[0], "name") != "Ops" {
		t.Errorf("KPI groups by body = %v", gb)
	}
	e.problem(req{method: "GET", path: "/api/v1/kpis/groups", body: map[string]any{"filter": map[string]any{"nosuch": 1}}}, 400, "invalid_filter")
	e.problem(req{method: "GET", path: "/api/v1/kpis/groups?limit=5", body: map[string]any{"limit": 1}}, 400, "invalid_input")
	if f := e.ok(req{method: "GET", path: "/api/v1/kpis/groups/" + gid}, 200)["favorite"]; f != true {
		t.Errorf("favorite %v", f)
	}
	e.problem(req{method: "GET", path: "/api/v1/kpis/groups/" + gid, as: &e.other}, 404, "not_found")
	e.ok(req{method: "DELETE", path: "/api/v1/kpis/groups/" + gid + "/favorite", acct: ptr("")}, 204)
	e.ok(req{method: "PATCH", path: "/api/v1/kpis/groups/" + gid, body: map[string]any{"name": "Money"}}, 200)
	e.problem(req{method: "PATCH", path: "/api/v1/kpis/groups/" + gid, body: map[string]any{"nme": "Money"}}, 400, "invalid_input")
	e.ok(req{method: "GET", path: "/api/v1/kpis/" + kid + "?fields=name,groupIds"}, 200)
	e.ok(req{method: "PATCH", path: "/api/v1/kpis/" + kid, body: map[string]any{"value": 13}}, 200)
	e.problem(req{method: "PATCH", path: "/api/v1/kpis/" + kid, body: map[string]any{"value": "13"}}, 400, "invalid_input")
	e.ok(req{method: "DELETE", path: "/api/v1/kpis/" + kid + "/groups/" + gid}, 204)
	e.ok(req{method: "PUT", path: "/api/v1/kpis/" + kid + "/groups/" + gid}, 204)
	e.ok(req{method: "DELETE", path: "/api/v1/kpis/groups/" + gid}, 204)
	if g := e.ok(req{method: "GET", path: "/api/v1/kpis/" + kid}, 200)["groupIds"].([]any); len(g) != 0 {
		t.Errorf("deleted group still holds the KPI: %v", g)
	}
	e.problem(req{method: "DELETE", path: "/api/v1/kpis/groups/" + gid}, 404, "not_found")
	e.problem(req{method: "DELETE", path: "/api/v1/kpis/" + kid + "/groups/" + gid}, 404, "not_found")

	// Lists.
	types := e.ok(req{method: "GET", path: "/api/v1/lists/supported-types"}, 200)
	if !strings.Contains(strings.Join(anyStrings(types["supportedTypes"]), ","), "goal") {
		t.Errorf("supported types %v", types)
	}
	schema := e.ok(req{method: "GET", path: "/api/v1/lists/goal/schema"}, 200)
	if num(schema, "totalCount") < 10 || str(schema, "type") != "goal" {
		t.Errorf("schema %v", schema)
	}
	for _, f := range schema["fields"].([]any) {
		fp := f.(map[string]any)
		if fp["fieldName"] == "attainment" && (fp["dataType"] != "number" || fp["isSortable"] != true || !strings.Contains(strings.Join(anyStrings(fp["supportedOperators"]), ","), "$gt")) {
			t.Errorf("attainment property %v", fp)
		}
	}
	e.problem(req{method: "GET", path: "/api/v1/lists/nosuch/schema"}, 400, "invalid_input")
	lst := e.ok(req{method: "POST", path: "/api/v1/lists", body: map[string]any{"title": "Big goals", "listType": "goal",
		"filter": map[string]any{"name": map[string]any{"$regex": "^win", "$options": "i"}}, "sort": "-name", "fields": "name",
		"columns": []any{map[string]any{"fieldName": "name", "type": "text", "width": 200}}}}, 201)
	lid := str(lst, "id")
	e.problem(req{method: "POST", path: "/api/v1/lists", body: map[string]any{"title": "X", "listType": "nosuch"}}, 400, "invalid_input")
	e.problem(req{method: "POST", path: "/api/v1/lists", body: map[string]any{"title": "X", "listType": "goal", "filter": map[string]any{"nosuch": 1}}}, 400, "invalid_filter")
	e.problem(req{method: "POST", path: "/api/v1/lists", body: map[string]any{"title": "X", "listType": "goal", "columns": []any{map[string]any{"fieldName": "nosuch"}}}}, 400, "invalid_input")
	if n := num(e.ok(req{method: "GET", path: "/api/v1/lists?sort=title"}, 200), "totalCount"); n != 1 {
		t.Errorf("lists %v", n)
	}
	e.ok(req{method: "GET", path: "/api/v1/lists/" + lid}, 200)
	lr := e.do(req{method: "POST", path: "/api/v1/lists/" + lid + "/load"})
	if lr.status != 200 || lr.header.Get("Link") != `</api/v2/integrations/goals>; rel="successor-version"` {
		t.Fatalf("load: %d %v %s", lr.status, lr.header, lr.body)
	}
	ld := lr.json(t)
	if num(ld, "totalCount") != 1 || str(items(ld)[0], "name") != "Win EMEA" || len(items(ld)[0]) != 3 {
		t.Errorf("load with the saved filter = %v", ld)
	}
	ld = e.ok(req{method: "POST", path: "/api/v1/lists/" + lid + "/load", body: map[string]any{"filter": map[string]any{}, "sort": "name"}}, 200)
	if num(ld, "totalCount") != 2 || str(items(ld)[0], "name") != "Grow revenue" {
		t.Errorf("load with a given filter = %v", ld)
	}
	e.problem(req{method: "POST", path: "/api/v1/lists/" + lid + "/load", body: map[string]any{"sort": "nosuch"}}, 400, "invalid_filter")
	cl := e.ok(req{method: "POST", path: "/api/v1/lists/" + lid + "/clone"}, 201)
	if str(cl, "title") != "Big goals (copy)" || str(cl, "id") == lid {
		t.Errorf("clone %v", cl)
	}
	e.problem(req{method: "POST", path: "/api/v1/lists/" + unknownID + "/clone"}, 404, "not_found")
	e.ok(req{method: "PATCH", path: "/api/v1/lists/" + lid, body: map[string]any{"title": "Goals", "sort": "name"}}, 200)
	e.problem(req{method: "PATCH", path: "/api/v1/lists/" + lid, body: map[string]any{"listType": "task"}}, 400, "invalid_input")
	e.ok(req{method: "DELETE", path: "/api/v1/lists/" + str(cl, "id")}, 204)
	e.problem(req{method: "GET", path: "/api/v1/lists/" + str(cl, "id")}, 404, "not_found")

	// Dashboard parameters.
	par := e.ok(req{method: "POST", path: "/api/v1/dashboards/parameters", body: map[string]any{"key": "region", "title": "Region", "predefinedValues": []string{"EMEA", "APAC"}}}, 201)
	pid := str(par, "id")
	e.problem(req{method: "POST", path: "/api/v1/dashboards/parameters", body: map[string]any{"key": "region", "title": "Again"}}, 400, "invalid_input")
	e.problem(req{method: "POST", path: "/api/v1/dashboards/parameters", body: map[string]any{"key": "k", "title": "T", "selectorType": "wheel"}}, 400, "invalid_input")
	e.ok(req{method: "GET", path: "/api/v1/dashboards/parameters?limit=10"}, 200)
	e.ok(req{method: "GET", path: "/api/v1/dashboards/parameters/" + pid}, 200)
	e.ok(req{method: "PUT", path: "/api/v1/dashboards/parameters/" + pid, body: map[string]any{"key": "region", "title": "Sales region", "selectorType": "multiple"}}, 200)
	e.problem(req{method: "PUT", path: "/api/v1/dashboards/parameters/" + pid, body: map[string]any{"title": "No key"}}, 400, "invalid_input")

	// Dashboards, tags on dashboards and insights, usages, reports.
	insight := "6a1b2c3d4e5f6a7b8c9d0e1f"
	db := e.ok(req{method: "POST", path: "/api/v1/dashboards", body: map[string]any{"name": "Sales board", "layout": "grid",
		"parameterIds": []string{pid}, "tags": []any{map[string]any{"title": "Q3"}},
		"insights": []any{map[string]any{"insightId": insight, "insightName": "pipeline", "col": 0, "row": 0, "sizeX": 2, "sizeY": 1}}}}, 201)
	did := str(db, "id")
	if num(db, "insightsCount") != 1 || len(db["parameters"].([]any)) != 1 || len(db["tags"].([]any)) != 1 || len(anyStrings(db["currentUserAllowedActions"])) == 0 {
		t.Errorf("dashboard = %v", db)
	}
	e.problem(req{method: "POST", path: "/api/v1/dashboards", body: map[string]any{"name": "X", "parameterIds": []string{unknownID}}}, 400, "invalid_input")
	e.problem(req{method: "POST", path: "/api/v1/dashboards", body: map[string]any{"name": ""}}, 400, "invalid_input")
	e.ok(req{method: "POST", path: "/api/v1/dashboards", body: map[string]any{"name": "Quarterly report", "isReport": true}}, 201)
	e.ok(req{method: "GET", path: "/api/v1/dashboards/" + did}, 200)
	e.problem(req{method: "GET", path: "/api/v1/dashboards/" + did, as: &e.other}, 404, "not_found")
	e.ok(req{method: "PATCH", path: "/api/v1/dashboards/" + did, body: map[string]any{"name": "Sales"}}, 200)
	e.problem(req{method: "PATCH", path: "/api/v1/dashboards/" + did, body: map[string]any{"insights": []any{map[string]any{"col": -1}}}}, 400, "invalid_input")
	dt := e.ok(req{method: "POST", path: "/api/v1/dashboards/" + did + "/tags", body: map[string]any{"title": " Growth "}}, 200)
	if str(dt, "name") != "growth" {
		t.Errorf("dashboard tag %v", dt)
	}
	e.ok(req{method: "POST", path: "/api/v1/dashboards/" + did + "/tags", body: map[string]any{"title": "growth"}}, 200)
	e.problem(req{method: "POST", path: "/api/v1/dashboards/" + unknownID + "/tags", body: map[string]any{"title": "x"}}, 404, "not_found")
	e.problem(req{method: "POST", path: "/api/v1/dashboards/" + did + "/tags", body: map[string]any{"title": "  "}}, 400, "invalid_input")
	e.ok(req{method: "POST", path: "/api/v2/integrations/insights/" + insight + "/tags", body: map[string]any{"title": "Pipeline"}}, 201)
	e.ok(req{method: "POST", path: "/api/v2/integrations/insights/" + insight + "/tags", body: map[string]any{"title": "pipeline"}}, 200)
	e.problem(req{method: "POST", path: "/api/v2/integrations/insights/" + unknownID + "/tags", body: map[string]any{"title": "x"}}, 404, "not_found")
	dl := e.ok(req{method: "GET", path: "/api/v2/dashboards?sort=name&fields=name,tags"}, 200)
	if num(dl, "count") != 2 || num(dl, "totalCount") != 2 || str(items(dl)[1], "name") != "Sales" {
		t.Errorf("dashboards = %v", dl)
	}
	dl = e.ok(req{method: "GET", path: "/api/v2/dashboards", body: map[string]any{"filter": `{isReport:true}`, "limit": 5}}, 200)
	if num(dl, "totalCount") != 1 {
		t.Errorf("dashboards by body filter = %v", dl)
	}
	e.problem(req{method: "GET", path: "/api/v2/dashboards?filter=" + filterQ(`{$where:"1"}`)}, 400, "invalid_filter")
	byTag := e.do(req{method: "GET", path: "/api/v1/dashboards/tag/" + url.PathEscape("GROWTH")})
	if byTag.status != 200 || !strings.Contains(string(byTag.body), did) {
		t.Errorf("by tag: %d %s", byTag.status, byTag.body)
	}
	if r := e.do(req{method: "GET", path: "/api/v1/dashboards/tag/nosuch"}); r.status != 200 || strings.TrimSpace(string(r.body)) != "[]" {
		t.Errorf("by unknown tag: %d %s", r.status, r.body)
	}
	us := e.ok(req{method: "GET", path: "/api/v1/dashboards/tags/usages?fields=tagName,dashboardsCount"}, 200)
	if n := len(items(us)); n != 2 || str(items(us)[0], "tagName") != "growth" || num(items(us)[0], "dashboardsCount") != 1 {
		t.Errorf("usages = %v", us)
	}
	if n := len(items(e.ok(req{method: "GET", path: "/api/v1/dashboards/tags/usages", as: &e.other}, 200))); n != 0 {
		t.Errorf("another account sees %d usages", n)
	}
	if r := e.do(req{method: "GET", path: "/api/v1/dashboards/tags/usages?fields=tagName,nosuch"}); r.status != 200 || r.header.Get("OKR-Ignored-Fields") != "fields.nosuch" {
		t.Errorf("an unknown projected name: %d, OKR-Ignored-Fields %q: %s", r.status, r.header.Get("OKR-Ignored-Fields"), r.body)
	}
	e.problem(req{method: "GET", path: "/api/v1/dashboards/tags/usages?fields=tagName{x}"}, 400, "invalid_filter")
	rep := e.do(req{method: "GET", path: "/api/v1/dashboards/reports"})
	if rep.status != 200 || !strings.Contains(string(rep.body), "Quarterly report") || strings.Contains(string(rep.body), "Sales") {
		t.Errorf("reports: %d %s", rep.status, rep.body)
	}
	e.problem(req{method: "GET", path: "/api/v1/dashboards/reports", acct: ptr(e.other.AccountID)}, 403, "forbidden")

	// Tags: listing by partial name, ordered by last use; create.
	tl := e.ok(req{method: "GET", path: "/api/v2/integrations/tags?name=GRO&take=10", acct: ptr("")}, 200)
	tags, _ := tl["tags"].([]any)
	if num(tl, "totalCount") != 1 || len(tags) != 1 {
		t.Fatalf("tags ?name=GRO = %v", tl)
	}
	g := tags[0].(map[string]any)
	if g["name"] != "growth" || num(g, "goalsTaggedCount") != 1 || num(g, "dashboardsTaggedCount") != 1 || num(g, "itemsTaggedCount") != 2 {
		t.Errorf("growth = %v", g)
	}
	all := e.ok(req{method: "GET", path: "/api/v2/integrations/tags?name="}, 200)
	if first := all["tags"].([]any)[0].(map[string]any); first["name"] != "pipeline" { // the last one used
		t.Errorf("tags by last use: %v", all)
	}
	e.ok(req{method: "GET", path: "/api/v2/integrations/tags?name=&sort=name&fields=name&filter=" + filterQ(`{isActive:true}`) + "&skip=1&take=1"}, 200)
	e.problem(req{method: "GET", path: "/api/v2/integrations/tags"}, 400, "invalid_input")
	e.problem(req{method: "GET", path: "/api/v2/integrations/tags?name=x&limit=5"}, 400, "unknown_parameter")
	ct := e.ok(req{method: "POST", path: "/api/v1/tags", body: map[string]any{"title": "Retention", "titles": []string{"retention ", "Churn"}}}, 200)
	if num(ct, "totalCount") != 2 || len(ct["tags"].([]any)) != 2 {
		t.Errorf("create tags = %v", ct)
	}
	e.problem(req{method: "POST", path: "/api/v1/tags", body: map[string]any{}}, 400, "invalid_input")
	churn := str(ct["tags"].([]any)[1].(map[string]any), "id")
	e.ok(req{method: "POST", path: "/api/v1/tags/deactivate", body: map[string]any{"tagIds": []string{churn}}}, 200)
	e.ok(req{method: "POST", path: "/api/v1/tags/activate", body: map[string]any{"tagIds": []string{churn}}}, 200)
	e.problem(req{method: "POST", path: "/api/v1/tags", body: map[string]any{"titles": []string{"ok", " "}}}, 400, "invalid_input")

	// Badges.
	bdg := e.ok(req{method: "POST", path: "/api/v1/badges", body: map[string]any{"name": "Closer", "summary": "closed a deal", "icon": "star"}}, 201)
	bid := str(bdg, "id")
	e.problem(req{method: "POST", path: "/api/v1/badges", body: map[string]any{"summary": "no name"}}, 400, "invalid_input")
	e.ok(req{method: "GET", path: "/api/v1/badges?filter=" + filterQ(`{name:"Closer"}`) + "&fields=name"}, 200)
	e.ok(req{method: "GET", path: "/api/v1/badges/" + bid}, 200)
	e.problem(req{method: "GET", path: "/api/v1/badges/" + bid, as: &e.other}, 404, "not_found")
	e.ok(req{method: "PATCH", path: "/api/v1/badges/" + bid, body: map[string]any{"summary": "closed a big deal"}}, 204)
	e.problem(req{method: "PATCH", path: "/api/v1/badges/" + bid, body: map[string]any{"name": ""}}, 400, "invalid_input")
	teams := items(e.ok(req{method: "GET", path: "/api/v2/teams"}, 200))
	asg := e.ok(req{method: "POST", path: "/api/v1/badges/assign", body: map[string]any{"badgeId": bid, "assigneeIds": []string{e.acct.UserID, str(teams[0], "id")}, "comment": "well done"}}, 200)
	if str(asg, "status") != "pending" || str(asg, "badgeId") != bid {
		t.Errorf("assignment = %v", asg)
	}
	e.problem(req{method: "POST", path: "/api/v1/badges/assign", body: map[string]any{"badgeId": bid, "assigneeIds": []string{unknownID}}}, 400, "invalid_input")
	e.problem(req{method: "POST", path: "/api/v1/badges/assign", body: map[string]any{"badgeId": unknownID, "assigneeIds": []string{e.acct.UserID}}}, 400, "invalid_input")
	e.problem(req{method: "POST", path: "/api/v1/badges/assign", body: map[string]any{"badgeId": bid}}, 400, "invalid_input")
	if n := num(e.ok(req{method: "GET", path: "/api/v1/badges/approve?limit=10"}, 200), "totalCount"); n != 1 {
		t.Errorf("approval list: %v", n)
	}
	cur := e.ok(req{method: "GET", path: "/api/v1/badges/current"}, 200)
	if it := items(cur); len(it) != 1 || it[0]["badge"] == nil || it[0]["badgeId"] != nil {
		t.Errorf("current badges = %v", cur)
	}
	e.ok(req{method: "GET", path: "/api/v1/badges/assign?skip=0&limit=5"}, 200)
	e.ok(req{method: "POST", path: "/api/v1/badges/approve/" + str(asg, "id")}, 200)
	ha := e.ok(req{method: "GET", path: "/api/v1/badges/assign/" + bid}, 200)
	if len(ha["Teams"].([]any)) != 1 || len(ha["Users"].([]any)) != 1 {
		t.Errorf("assignees = %v", ha)
	}
	e.problem(req{method: "GET", path: "/api/v1/badges/assign/" + unknownID}, 404, "not_found")
	asg2 := e.ok(req{method: "POST", path: "/api/v1/badges/assign", body: map[string]any{"badgeId": bid, "assigneeIds": []string{e.acct.UserID}}}, 200)
	e.ok(req{method: "DELETE", path: "/api/v1/badges/approve/" + str(asg2, "id")}, 204)
	e.problem(req{method: "DELETE", path: "/api/v1/badges/approve/" + unknownID}, 404, "not_found")
	e.problem(req{method: "POST", path: "/api/v1/badges/approve/" + unknownID}, 404, "not_found")
	e.ok(req{method: "DELETE", path: "/api/v1/badges/" + bid}, 204)
	e.problem(req{method: "GET", path: "/api/v1/badges/" + bid}, 404, "not_found")

	// Deletions last: dashboards, parameters.
	e.ok(req{method: "DELETE", path: "/api/v1/dashboards/parameters/" + pid}, 204)
	if ps := e.ok(req{method: "GET", path: "/api/v1/dashboards/" + did}, 200)["parameters"].([]any); len(ps) != 0 {
		t.Errorf("deleted parameter still on the dashboard: %v", ps)
	}
	e.problem(req{method: "DELETE", path: "/api/v1/dashboards/parameters/" + pid}, 404, "not_found")
	e.ok(req{method: "DELETE", path: "/api/v1/dashboards/" + did}, 204)
	e.problem(req{method: "DELETE", path: "/api/v1/dashboards/" + did}, 404, "not_found")
	e.ok(req{method: "DELETE", path: "/api/v1/lists/" + lid}, 204)
	e.problem(req{method: "DELETE", path: "/api/v1/kpis/" + unknownID}, 404, "not_found")
	e.ok(req{method: "DELETE", path: "/api/v1/kpis/" + kid}, 204)
}

// TestTagActivationTransitions walks the tag state table both ways,
// including the 304 when nothing changes, and checks a rejected request
// writes nothing.
func TestTagActivationTransitions(t *testing.T) {
	e := newEnv(t)

	ct := e.ok(req{method: "POST", path: "/api/v1/tags", body: map[string]any{"titles": []string{"alpha", "beta"}}}, 200)
	var ids []string
	for _, x := range ct["tags"].([]any) {
		ids = append(ids, str(x.(map[string]any), "id"))
	}
	active := func(id string) bool {
		for _, x := range e.ok(req{method: "GET", path: "/api/v2/integrations/tags?name="}, 200)["tags"].([]any) {
			if m := x.(map[string]any); m["id"] == id {
				return m["isActive"] == true
			}
		}
		t.Fatalf("tag %s not listed", id)
		return false
	}
	// active → active: nothing changed, 304 without a body.
	r := e.do(req{method: "POST", path: "/api/v1/tags/activate", body: map[string]any{"tagIds": ids}})
	if r.status != http.StatusNotModified || len(r.body) != 0 || r.header.Get("X-Message") == "" {
		t.Fatalf("activate active tags: %d %q %v", r.status, r.body, r.header)
	}
	// active → inactive for one.
	if m := e.ok(req{method: "POST", path: "/api/v1/tags/deactivate", body: map[string]any{"tagIds": ids[:1]}}, 200); num(m, "modifiedCount") != 1 {
		t.Errorf("deactivate = %v", m)
	}
	if active(ids[0]) || !active(ids[1]) {
		t.Errorf("after deactivate: %v %v", active(ids[0]), active(ids[1]))
	}
	e.ok(req{method: "POST", path: "/api/v1/tags/deactivate", body: map[string]any{"tagIds": ids[:1]}}, 304)
	// Both: only the active one changes.
	if m := e.ok(req{method: "POST", path: "/api/v1/tags/deactivate", body: map[string]any{"tagIds": ids}}, 200); num(m, "modifiedCount") != 1 {
		t.Errorf("deactivate both = %v", m)
	}
	// inactive → active.
	if m := e.ok(req{method: "POST", path: "/api/v1/tags/activate", body: map[string]any{"tagIds": ids}}, 200); num(m, "modifiedCount") != 2 {
		t.Errorf("activate = %v", m)
	}
	if !active(ids[0]) || !active(ids[1]) {
		t.Error("tags not active after activate")
	}
	// Bad input changes nothing: an unknown id among known ones, a malformed
	// id, no ids, another account's tags.
	e.ok(req{method: "POST", path: "/api/v1/tags/deactivate", body: map[string]any{"tagIds": ids[:1]}}, 200)
	e.problem(req{method: "POST", path: "/api/v1/tags/activate", body: map[string]any{"tagIds": []string{ids[0], unknownID}}}, 400, "invalid_input")
	if active(ids[0]) {
		t.Error("a rejected activation wrote")
	}
	e.problem(req{method: "POST", path: "/api/v1/tags/activate", body: map[string]any{"tagIds": []string{"nope"}}}, 400, "invalid_input")
	e.problem(req{method: "POST", path: "/api/v1/tags/activate", body: map[string]any{"tagIds": []string{}}}, 400, "invalid_input")
	e.problem(req{method: "POST", path: "/api/v1/tags/activate", body: map[string]any{}}, 400, "invalid_input")
	e.problem(req{method: "POST", path: "/api/v1/tags/activate", as: &e.other, body: map[string]any{"tagIds": ids[:1]}}, 400, "invalid_input")
	e.problem(req{method: "POST", path: "/api/v1/tags/activate", acct: ptr(""), body: map[string]any{"tagIds": ids[:1]}}, 400, "account_header_missing")
}

// TestBadgeApprovalTransitions walks the badge-assignment state table:
// pending → approved and pending → rejected; deciding again the same way is
// 304, the other way 409.
func TestBadgeApprovalTransitions(t *testing.T) {
	e := newEnv(t)

	bid := str(e.ok(req{method: "POST", path: "/api/v1/badges", body: map[string]any{"name": "Helper"}}, 201), "id")
	assign := func() string {
		a := e.ok(req{method: "POST", path: "/api/v1/badges/assign", body: map[string]any{"badgeId": bid, "assigneeIds": []string{e.acct.UserID}}}, 200)
		if str(a, "status") != "pending" {
			t.Fatalf("new assignment %v", a)
		}
		return str(a, "id")
	}
	pending := func() int {
		return int(num(e.ok(req{method: "GET", path: "/api/v1/badges/approve"}, 200), "totalCount"))
	}
	a1, a2 := assign(), assign()
	if pending() != 2 {
		t.Fatalf("pending = %d", pending())
	}
	// pending → approved.
	ap := e.ok(req{method: "POST", path: "/api/v1/badges/approve/" + a1}, 200)
	if str(ap, "status") != "approved" || str(ap, "approvedBy") != e.acct.UserID {
		t.Errorf("approved = %v", ap)
	}
	e.ok(req{method: "POST", path: "/api/v1/badges/approve/" + a1}, 304)
	e.problem(req{method: "DELETE", path: "/api/v1/badges/approve/" + a1}, 409, "conflict")
	// pending → rejected.
	e.ok(req{method: "DELETE", path: "/api/v1/badges/approve/" + a2}, 204)
	e.ok(req{method: "DELETE", path: "/api/v1/badges/approve/" + a2}, 304)
	e.problem(req{method: "POST", path: "/api/v1/badges/approve/" + a2}, 409, "conflict")
	if pending() != 0 {
		t.Errorf("pending after decisions = %d", pending())
	}
	// The approved one counts for the holder; the rejected one nowhere.
	cur := items(e.ok(req{method: "GET", path: "/api/v1/badges/current"}, 200))
	if len(cur) != 1 || str(cur[0], "id") != a1 {
		t.Errorf("current = %v", cur)
	}
	ha := e.ok(req{method: "GET", path: "/api/v1/badges/assign/" + bid}, 200)
	if len(ha["Users"].([]any)) != 1 {
		t.Errorf("assignees = %v", ha)
	}
	// Another account cannot decide.
	a3 := assign()
	e.problem(req{method: "POST", path: "/api/v1/badges/approve/" + a3, as: &e.other}, 404, "not_found")
	if pending() != 1 {
		t.Errorf("pending = %d", pending())
	}
}

func anyStrings(v any) []string {
	var out []string
	xs, _ := v.([]any)
	for _, x := range xs {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}
