package rest_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
	"github.com/okrgate/okrgate/upstream/transport/rest"
)

func TestOKRFlow(t *testing.T) {
	e := newEnv(t)
	s := e.seed()

	// Check in 50 on 0 → 100 at_least: attainment 0.5 on the key result,
	// its goal and (average_children) the parent.
	ci := e.ok(req{method: "POST", path: "/api/v1/metrics/" + s.metric + "/checkin", body: map[string]any{
		"actual": 50, "comment": "halfway, thanks @[Bob:bob@acme.test:abc123]", "checkInDate": "2026-02-01"}}, 201)
	if num(ci, "actual") != 50 || num(ci, "attainment") != 0.5 || str(ci, "metricId") != s.metric {
		t.Errorf("check-in = %v", ci)
	}
	m := e.ok(req{method: "GET", path: "/api/v1/metrics/" + s.metric}, 200)
	if num(m, "actual") != 50 || num(m, "attainment") != 0.5 {
		t.Errorf("metric after check-in: actual %v attainment %v", m["actual"], m["attainment"])
	}
	if a := num(e.ok(req{method: "GET", path: "/api/v1/goals/" + s.child}, 200), "attainment"); a != 0.5 {
		t.Errorf("child attainment %v, want 0.5", a)
	}
	if a := num(e.ok(req{method: "GET", path: "/api/v1/goals/" + s.parent}, 200), "attainment"); a != 0.5 {
		t.Errorf("parent attainment %v, want 0.5", a)
	}

	// The check-in snapshot and the check-in list.
	snap := e.ok(req{method: "GET", path: "/api/v1/metrics/checkin/" + str(ci, "id")}, 200)
	if str(snap, "id") != s.metric || num(snap, "actual") != 50 {
		t.Errorf("snapshot = %v", snap)
	}
	cis := e.ok(req{method: "GET", path: "/api/v1/metrics/" + s.metric + "/checkins?skip=0&limit=10&sort=-checkInDate"}, 200)
	if num(cis, "totalCount") != 1 || len(items(cis)) != 1 {
		t.Errorf("check-ins = %v", cis)
	}

	// Listings with filter, sort, fields.
	ms := e.ok(req{method: "GET", path: "/api/v2/metrics?filter=" + filterQ(`{goalId:"`+s.child+`"}`) + "&sort=-name&limit=5"}, 200)
	if num(ms, "totalCount") != 1 || str(items(ms)[0], "id") != s.metric {
		t.Errorf("metrics of the child = %v", ms)
	}
	gs := e.ok(req{method: "GET", path: "/api/v2/integrations/goals?fields=name,closedStatus.status&sort=name&skip=0&limit=1"}, 200)
	if num(gs, "totalCount") != 2 || len(items(gs)) != 1 {
		t.Fatalf("goals page = %v", gs)
	}
	g0 := items(gs)[0]
	if str(g0, "name") != "Grow revenue" || g0["id"] == nil || g0["accountId"] != e.acct.AccountID {
		t.Errorf("first goal = %v", g0)
	}
	for k := range g0 {
		if k != "id" && k != "accountId" && k != "name" && k != "closedStatus" {
			t.Errorf("projection kept %q: %v", k, g0)
		}
	}
	if cs, _ := g0["closedStatus"].(map[string]any); len(cs) != 1 || cs["status"] != "active" {
		t.Errorf("closedStatus projection = %v", g0["closedStatus"])
	}
	one := e.ok(req{method: "GET", path: "/api/v1/goals/" + s.parent + "?fields=name"}, 200)
	if len(one) != 3 || str(one, "name") != "Grow revenue" {
		t.Errorf("goal with fields=name = %v", one)
	}

	// formatting: markup by default, plain text on request, nested too.
	if d := str(e.ok(req{method: "GET", path: "/api/v1/goals/" + s.parent}, 200), "description"); !strings.Contains(d, "@[Ann Lee:") {
		t.Errorf("default description %q", d)
	}
	if d := str(e.ok(req{method: "GET", path: "/api/v1/goals/" + s.parent + "?formatting=plainText"}, 200), "description"); d != "Ask @Ann Lee first" {
		t.Errorf("plainText description %q", d)
	}
	pl := e.ok(req{method: "GET", path: "/api/v2/integrations/goals?formatting=plainText&filter=" + filterQ(`{"_id":"`+s.parent+`"}`)}, 200)
	if d := str(items(pl)[0], "description"); d != "Ask @Ann Lee first" {
		t.Errorf("plainText in list: %q", d)
	}

	// Deprecated key results by owner.
	r := e.do(req{method: "GET", path: "/api/v1/metrics/owner/" + e.acct.UserID + "?formatting=mentionsMarkup"})
	if r.status != 200 || r.header.Get("Deprecation") != "@1647302400" ||
		r.header.Get("Link") != `</api/v2/metrics>; rel="successor-version"` {
		t.Errorf("deprecated route: %d %v", r.status, r.header)
	}
	byOwner := r.json(t)
	if _, has := byOwner["totalCount"]; has || len(items(byOwner)) != 1 {
		t.Errorf("by owner = %s", r.body)
	}
	if n := len(items(e.ok(req{method: "GET", path: "/api/v1/metrics/owner/" + e.other.UserID}, 200))); n != 0 {
		t.Errorf("another account's owner: %d items", n)
	}

	// Grouped by owners.
	grp := e.ok(req{method: "GET", path: "/api/v2/integrations/goals/groupBy/owners?ownerIds=" + e.acct.UserID +
		"&includeMetrics=true&attainment=" + url.QueryEscape(">=0.5") + "&sort=name&skip=0&take=10"}, 200)
	if _, ok := grp["totalCount"]; !ok || len(grp["items"].([]any)) == 0 {
		t.Errorf("groupBy = %v", grp)
	}
	e.ok(req{method: "GET", path: "/api/v2/integrations/goals/groupBy/owners?filter=past&confidence=" + url.QueryEscape("<0.3") +
		"&metricBefore=2026-12-31&metricAfter=2026-01-01&metricAttainment=0.5&metricOwnerId=" + e.acct.UserID + "&ids=" + s.child}, 200)

	// Tags: 201 the first time, 304 with no body when already there.
	tag := e.ok(req{method: "POST", path: "/api/v2/integrations/goals/" + s.child + "/tags", body: map[string]any{"title": "  Growth "}}, 201)
	if str(tag, "name") != "growth" {
		t.Errorf("tag = %v", tag)
	}
	r = e.do(req{method: "POST", path: "/api/v2/integrations/goals/" + s.child + "/tags", body: map[string]any{"title": "growth"}})
	if r.status != 304 || len(r.body) != 0 || r.header.Get("X-Message") == "" {
		t.Errorf("second tag: %d %q %v", r.status, r.body, r.header)
	}

	// goalsMet: check in 100 so both goals are met; tags narrow to the child.
	e.ok(req{method: "POST", path: "/api/v1/metrics/" + s.metric + "/checkin", body: map[string]any{"actual": 100}}, 201)
	met := e.ok(req{method: "GET", path: "/api/v1/sessions/" + s.session + "/stats/goalsMet"}, 200)
	if len(items(met)) != 2 {
		t.Errorf("goalsMet = %v", met)
	}
	met = e.ok(req{method: "GET", path: "/api/v1/sessions/" + s.session + "/stats/goalsMet?tags=" + url.QueryEscape("Growth, nosuch")}, 200)
	if got := items(met); len(got) != 1 || str(got[0], "id") != s.child {
		t.Errorf("goalsMet?tags = %v", met)
	}

	// Tasks CRUD.
	task := e.ok(req{method: "POST", path: "/api/v2/integrations/tasks", body: map[string]any{
		"name": "Call ACME", "description": "with @[Ann Lee:ann@acme.test:" + e.acct.UserID + "]",
		"dueDate": "2026-03-01", "parentId": s.child, "parentType": "goal", "status": "todo"}}, 201)
	tid := str(task, "id")
	if d := str(e.ok(req{method: "GET", path: "/api/v2/integrations/tasks/" + tid + "?formatting=plainText"}, 200), "description"); d != "with @Ann Lee" {
		t.Errorf("task plain description %q", d)
	}
	tl := e.ok(req{method: "GET", path: "/api/v2/integrations/tasks?filter=" + filterQ(`{parentId:"`+s.child+`"}`) + "&skip=0&limit=10&formatting=plainText&fields=name,status&sort=name"}, 200)
	if num(tl, "totalCount") != 1 || str(items(tl)[0], "name") != "Call ACME" {
		t.Errorf("tasks = %v", tl)
	}
	if st := str(e.ok(req{method: "PATCH", path: "/api/v2/integrations/tasks/" + tid, body: map[string]any{"status": "done"}}, 200), "status"); st != "done" {
		t.Errorf("patched task status %q", st)
	}
	e.ok(req{method: "DELETE", path: "/api/v2/integrations/tasks/" + tid}, 204)
	e.problem(req{method: "GET", path: "/api/v2/integrations/tasks/" + tid}, 404, "not_found")

	// Sessions.
	sl := e.ok(req{method: "GET", path: "/api/v2/sessions?includeDemo=false&fields=title&sort=title&limit=10"}, 200)
	if num(sl, "totalCount") != 1 || str(items(sl)[0], "title") != "2026 H1" {
		t.Errorf("sessions = %v", sl)
	}
	if ti := str(e.ok(req{method: "PATCH", path: "/api/v1/sessions/" + s.session, body: map[string]any{"title": "2026 first half"}}, 200), "title"); ti != "2026 first half" {
		t.Errorf("patched session title %q", ti)
	}
	if ti := str(e.ok(req{method: "GET", path: "/api/v1/sessions/" + s.session}, 200), "title"); ti != "2026 first half" {
		t.Errorf("session title %q", ti)
	}
	e.problem(req{method: "DELETE", path: "/api/v1/sessions/" + s.session}, 409, "conflict")

	// Goal update; metric update and delete; goal delete.
	if n := str(e.ok(req{method: "PATCH", path: "/api/v1/goals/" + s.child, body: map[string]any{"name": "Win EMEA and APAC"}}, 200), "name"); n != "Win EMEA and APAC" {
		t.Errorf("patched goal name %q", n)
	}
	if n := str(e.ok(req{method: "PATCH", path: "/api/v1/metrics/" + s.metric, body: map[string]any{"name": "Deals won"}}, 200), "name"); n != "Deals won" {
		t.Errorf("patched metric name %q", n)
	}
	e.ok(req{method: "DELETE", path: "/api/v1/metrics/" + s.metric}, 204)
	e.problem(req{method: "GET", path: "/api/v1/metrics/" + s.metric}, 404, "not_found")
	e.ok(req{method: "DELETE", path: "/api/v1/goals/" + s.child}, 204)
	e.problem(req{method: "GET", path: "/api/v1/goals/" + s.child}, 404, "not_found")

	// Teams and users.
	tm := e.ok(req{method: "GET", path: "/api/v2/teams?fields=name&sort=name&skip=0&limit=10&formatting=plainText"}, 200)
	if _, ok := tm["totalCount"]; !ok {
		t.Errorf("teams = %v", tm)
	}
	us := e.ok(req{method: "GET", path: "/api/v2/users?fields=email&sort=email&filter=" + filterQ(`{email:"ann@acme.test"}`)}, 200)
	if num(us, "totalCount") != 1 || str(items(us)[0], "id") != e.acct.UserID {
		t.Errorf("users = %v", us)
	}
	e.problem(req{method: "GET", path: "/api/v1/teams/" + s.session}, 404, "not_found")

	// Session states: a closed session refuses goal writes with 403.
	e.ok(req{method: "PATCH", path: "/api/v1/sessions/" + s.session, body: map[string]any{"status": "closed"}}, 200)
	e.problem(req{method: "POST", path: "/api/v1/goals", body: map[string]any{"name": "Late", "sessionId": s.session}}, 403, "session_closed")

	// The access log names the route pattern and the request id.
	if logs := e.logs.String(); !strings.Contains(logs, `"route":"/api/v1/goals/{id}"`) || !strings.Contains(logs, `"request_id"`) {
		t.Errorf("access log lacks route or request id:\n%s", logs)
	}
}

func TestBadInput(t *testing.T) {
	e := newEnv(t)
	s := e.seed()
	// A goal of the other account.
	oss := e.ok(req{method: "POST", path: "/api/v1/sessions", as: &e.other, body: map[string]any{
		"title": "Globex", "start": "2026-01-01", "end": "2026-12-31"}}, 201)
	og := e.ok(req{method: "POST", path: "/api/v1/goals", as: &e.other, body: map[string]any{"name": "Theirs", "sessionId": str(oss, "id")}}, 201)
	ogID := str(og, "id")

	before := e.counts(s)
	big := `{"name":"` + strings.Repeat("x", rest.MaxBodyBytes) + `","sessionId":"` + s.session + `"}`
	goal := map[string]any{"name": "New", "sessionId": s.session}
	xml := "application/xml"
	text := "text/plain"
	form := "name=New"

	tests := []struct {
		name   string
		q      req
		status int
		code   string
		field  string // errors[0].field, if checked
	}{
		{"malformed JSON", req{method: "POST", path: "/api/v1/goals", raw: ptr(`{"name":"x",`)}, 400, "invalid_input", ""},
		{"not an object", req{method: "POST", path: "/api/v1/goals", raw: ptr(`["x"]`)}, 400, "invalid_input", ""},
		{"empty body", req{method: "POST", path: "/api/v1/goals", raw: ptr(``)}, 400, "invalid_input", ""},
		{"trailing data", req{method: "POST", path: "/api/v1/goals", raw: ptr(`{"name":"x","sessionId":"` + s.session + `"} {}`)}, 400, "invalid_input", ""},
		{"wrong type", req{method: "POST", path: "/api/v1/goals", body: map[string]any{"name": 5, "sessionId": s.session}}, 400, "invalid_input", "name"},
		{"wrong nested type", req{method: "POST", path: "/api/v1/goals", body: map[string]any{"name": "x", "sessionId": s.session, "closedStatus": map[string]any{"status": 1}}}, 400, "invalid_input", "closedStatus.status"},
		{"unknown body field", req{method: "POST", path: "/api/v1/goals", body: map[string]any{"nmae": "x", "sessionId": s.session}}, 400, "invalid_input", "nmae"},
		{"check-in actual as string", req{method: "POST", path: "/api/v1/metrics/" + s.metric + "/checkin", body: map[string]any{"actual": "50"}}, 400, "invalid_input", "actual"},
		{"check-in without actual", req{method: "POST", path: "/api/v1/metrics/" + s.metric + "/checkin", body: map[string]any{"comment": "x"}}, 400, "invalid_input", ""},
		{"tag without title", req{method: "POST", path: "/api/v2/integrations/goals/" + s.child + "/tags", body: map[string]any{}}, 400, "invalid_input", "title"},
		{"bad due date", req{method: "POST", path: "/api/v2/integrations/tasks", body: map[string]any{"name": "t", "dueDate": "2026-13-45"}}, 400, "invalid_input", ""},
		{"bad session start", req{method: "POST", path: "/api/v1/sessions", body: map[string]any{"title": "t", "start": "yesterday", "end": "2026-12-31"}}, 400, "invalid_input", ""},
		{"bad goal dateFrom", req{method: "PATCH", path: "/api/v1/goals/" + s.child, body: map[string]any{"dateFrom": "31/12/2026"}}, 400, "invalid_input", ""},
		{"filter $where", req{method: "GET", path: "/api/v2/integrations/goals?filter=" + filterQ(`{"$where":"1"}`)}, 400, "invalid_filter", "filter"},
		{"filter unknown field", req{method: "GET", path: "/api/v2/metrics?filter=" + filterQ(`{"nosuch":1}`)}, 400, "invalid_filter", "filter"},
		{"filter not JSON", req{method: "GET", path: "/api/v2/integrations/tasks?filter=" + filterQ(`{name:`)}, 400, "invalid_filter", "filter"},
		{"sort unknown field", req{method: "GET", path: "/api/v2/sessions?sort=nosuch"}, 400, "invalid_filter", "sort"},
		{"fields sub-fields of a plain field", req{method: "GET", path: "/api/v2/teams?fields=name{id}"}, 400, "invalid_filter", "fields"},
		{"fields unbalanced", req{method: "GET", path: "/api/v2/teams?fields=nosuch{name"}, 400, "invalid_filter", "fields"},
		{"limit 5000", req{method: "GET", path: "/api/v2/integrations/goals?limit=5000"}, 400, "invalid_input", "limit"},
		{"limit abc", req{method: "GET", path: "/api/v2/metrics?limit=abc"}, 400, "invalid_input", "limit"},
		{"limit 0", req{method: "GET", path: "/api/v2/users?limit=0"}, 400, "invalid_input", "limit"},
		{"skip negative", req{method: "GET", path: "/api/v2/integrations/tasks?skip=-1"}, 400, "invalid_input", "skip"},
		{"take 5000", req{method: "GET", path: "/api/v2/integrations/goals/groupBy/owners?take=5000"}, 400, "invalid_input", "take"},
		{"groupBy bad comparison", req{method: "GET", path: "/api/v2/integrations/goals/groupBy/owners?confidence=high"}, 400, "invalid_input", "confidence"},
		{"groupBy bad date", req{method: "GET", path: "/api/v2/integrations/goals/groupBy/owners?metricBefore=2026-02-30"}, 400, "invalid_input", "metricBefore"},
		{"groupBy bad deadline", req{method: "GET", path: "/api/v2/integrations/goals/groupBy/owners?filter=someday"}, 400, "invalid_input", "filter"},
		{"groupBy bad bool", req{method: "GET", path: "/api/v2/integrations/goals/groupBy/owners?includeMetrics=maybe"}, 400, "invalid_input", "includeMetrics"},
		{"includeDemo not bool", req{method: "GET", path: "/api/v2/sessions?includeDemo=maybe"}, 400, "invalid_input", "includeDemo"},
		{"unknown query parameter", req{method: "GET", path: "/api/v2/integrations/goals?take=10&bogus=1"}, 400, "unknown_parameter", "bogus"},
		{"unknown parameter on a write", req{method: "POST", path: "/api/v1/goals?dryRun=true", body: goal}, 400, "unknown_parameter", "dryRun"},
		{"repeated parameter", req{method: "GET", path: "/api/v2/metrics?limit=1&limit=2"}, 400, "invalid_input", "limit"},
		{"formatting bogus", req{method: "GET", path: "/api/v1/goals/" + s.child + "?formatting=bogus"}, 400, "invalid_input", "formatting"},
		{"missing Authorization", req{method: "POST", path: "/api/v1/goals", body: goal, token: ptr("")}, 401, "unauthenticated", ""},
		{"missing Authorization on a read", req{method: "GET", path: "/api/v2/integrations/goals", token: ptr("")}, 401, "unauthenticated", ""},
		{"bad token", req{method: "POST", path: "/api/v1/goals", body: goal, token: ptr("not-a-token")}, 401, "unauthenticated", ""},
		{"basic auth", req{method: "GET", path: "/api/v2/sessions", authz: "Basic YW5uOnB3"}, 401, "unauthenticated", ""},
		{"empty bearer", req{method: "GET", path: "/api/v2/sessions", authz: "Bearer   "}, 401, "unauthenticated", ""},
		{"missing account header", req{method: "GET", path: "/api/v2/integrations/goals", acct: ptr("")}, 400, "account_header_missing", ""},
		{"missing account header on a write", req{method: "POST", path: "/api/v2/integrations/tasks", acct: ptr(""), body: map[string]any{"name": "t"}}, 400, "account_header_missing", ""},
		{"other account in header (Acct route)", req{method: "GET", path: "/api/v2/metrics", acct: ptr(e.other.AccountID)}, 403, "forbidden", ""},
		{"other account in header (write)", req{method: "POST", path: "/api/v1/goals", acct: ptr(e.other.AccountID), body: goal}, 403, "forbidden", ""},
		{"other account's goal by path", req{method: "GET", path: "/api/v1/goals/" + ogID}, 404, "not_found", ""},
		{"patch other account's goal", req{method: "PATCH", path: "/api/v1/goals/" + ogID, body: map[string]any{"name": "mine"}}, 404, "not_found", ""},
		{"delete other account's goal", req{method: "DELETE", path: "/api/v1/goals/" + ogID}, 404, "not_found", ""},
		{"tag other account's goal", req{method: "POST", path: "/api/v2/integrations/goals/" + ogID + "/tags", body: map[string]any{"title": "x"}}, 404, "not_found", ""},
		{"child of other account's goal", req{method: "POST", path: "/api/v1/goals", body: map[string]any{"name": "x", "sessionId": s.session, "parentId": ogID}}, 400, "invalid_input", ""},
		{"malformed path id", req{method: "GET", path: "/api/v1/goals/not-an-id"}, 404, "not_found", ""},
		{"upper-case path id", req{method: "DELETE", path: "/api/v1/metrics/" + strings.ToUpper(s.metric)}, 404, "not_found", ""},
		{"unknown check-in", req{method: "GET", path: "/api/v1/metrics/checkin/" + s.metric}, 404, "not_found", ""},
		{"body too large", req{method: "POST", path: "/api/v1/goals", raw: &big}, 413, "request_too_large", ""},
		{"wrong content type", req{method: "POST", path: "/api/v1/goals", body: goal, ctype: &xml}, 415, "unsupported_media_type", ""},
		{"text that is not JSON", req{method: "POST", path: "/api/v1/goals", raw: &form, ctype: &text}, 415, "unsupported_media_type", ""},
		{"form that is not JSON", req{method: "POST", path: "/api/v1/goals", raw: &form, ctype: ptr("application/x-www-form-urlencoded")}, 415, "unsupported_media_type", ""},
		{"wrong charset", req{method: "PATCH", path: "/api/v1/goals/" + s.child, body: map[string]any{"name": "y"}, ctype: ptr("application/json; charset=latin1")}, 415, "unsupported_media_type", ""},
		{"unknown route", req{method: "GET", path: "/api/v1/nothing"}, 404, "not_found", ""},
		{"method not allowed", req{method: "PUT", path: "/api/v1/goals/" + s.child, body: map[string]any{"name": "y"}}, 405, "method_not_allowed", ""},
		// Numbers that no JSON answer could carry back.
		{"check-in actual 1e297", req{method: "POST", path: "/api/v1/metrics/" + s.metric + "/checkin", raw: ptr(`{"actual":1e297}`)}, 400, "invalid_input", "actual"},
		{"check-in actual -1e16", req{method: "POST", path: "/api/v1/metrics/" + s.metric + "/checkin", raw: ptr(`{"actual":-1e16}`)}, 400, "invalid_input", "actual"},
		{"check-in actual 1e400", req{method: "POST", path: "/api/v1/metrics/" + s.metric + "/checkin", raw: ptr(`{"actual":1e400}`)}, 400, "invalid_input", "actual"},
		{"key result target 1e300", req{method: "POST", path: "/api/v1/metrics", raw: ptr(`{"name":"m","goalId":"` + s.child + `","target":1e300}`)}, 400, "invalid_input", "target"},
		{"key result initialValue 1e20", req{method: "PATCH", path: "/api/v1/metrics/" + s.metric, raw: ptr(`{"initialValue":1e20}`)}, 400, "invalid_input", "initialValue"},
		{"key result critical 1e20", req{method: "PATCH", path: "/api/v1/metrics/" + s.metric, raw: ptr(`{"critical":-1e20}`)}, 400, "invalid_input", "critical"},
		{"key result attainment overflow", req{method: "POST", path: "/api/v1/metrics", raw: ptr(`{"name":"m","goalId":"` + s.child + `","initialValue":0,"target":1e-300,"actual":1}`)}, 400, "invalid_input", "target"},
		{"KPI value 1e300", req{method: "POST", path: "/api/v1/kpis", raw: ptr(`{"name":"k","value":1e300}`)}, 400, "invalid_input", "value"},
		{"confidence 11", req{method: "POST", path: "/api/v1/metrics/" + s.metric + "/checkin", raw: ptr(`{"actual":1,"confidence":11}`)}, 400, "invalid_input", "confidence"},
		{"priority 1e18", req{method: "POST", path: "/api/v2/integrations/tasks", raw: ptr(`{"name":"t","priority":1000000000000000000}`)}, 400, "invalid_input", ""},
		{"priority beyond int64", req{method: "POST", path: "/api/v2/integrations/tasks", raw: ptr(`{"name":"t","priority":1e30}`)}, 400, "invalid_input", "priority"},
		{"session limit beyond int64", req{method: "PATCH", path: "/api/v1/sessions/" + s.session, raw: ptr(`{"settings":{"goalsPerOwnerLimit":99999999999999999999}}`)}, 400, "invalid_input", "settings.goalsPerOwnerLimit"},
		// Text is refused, never repaired.
		{"duplicate key", req{method: "POST", path: "/api/v1/goals", raw: ptr(`{"name":"a","name":"b","sessionId":"` + s.session + `"}`)}, 400, "invalid_input", "name"},
		{"duplicate key in another case", req{method: "POST", path: "/api/v1/goals", raw: ptr(`{"name":"a","NAME":"b","sessionId":"` + s.session + `"}`)}, 400, "invalid_input", "NAME"},
		{"nested duplicate key", req{method: "PATCH", path: "/api/v1/sessions/" + s.session, raw: ptr(`{"settings":{"goalsPerOwnerLimit":1,"goalsPerOwnerLimit":2}}`)}, 400, "invalid_input", "settings.goalsPerOwnerLimit"},
		{"NUL escape", req{method: "POST", path: "/api/v1/goals", raw: ptr(`{"name":"a\u0000b","sessionId":"` + s.session + `"}`)}, 400, "invalid_input", "name"},
		{"NUL in an array element", req{method: "POST", path: "/api/v1/goals", raw: ptr(`{"name":"a","sessionId":"` + s.session + `","tags":[{"title":"ok"},{"title":"\u0000"}]}`)}, 400, "invalid_input", "tags[1].title"},
		{"invalid UTF-8", req{method: "POST", path: "/api/v1/goals", raw: ptr("{\"name\":\"a\xff\",\"sessionId\":\"" + s.session + "\"}")}, 400, "invalid_input", "name"},
		{"unpaired surrogate", req{method: "PATCH", path: "/api/v1/goals/" + s.child, raw: ptr(`{"description":"x\ud800y"}`)}, 400, "invalid_input", "description"},
		{"invalid UTF-8 in a key", req{method: "POST", path: "/api/v1/goals", raw: ptr("{\"na\xffme\":\"a\"}")}, 400, "invalid_input", "body"},
		// Request size limits answer problem bodies.
		{"URL too long", req{method: "GET", path: "/api/v2/sessions?filter=" + strings.Repeat("x", rest.MaxURLBytes)}, 414, "uri_too_long", ""},
		{"header fields too large", req{method: "GET", path: "/api/v2/sessions", header: map[string]string{"X-Pad": strings.Repeat("x", rest.MaxHeaderBytes)}}, 431, "headers_too_large", ""},
		// Conditional and idempotent request headers where they do not apply.
		{"If-Match on a route without versions", req{method: "PATCH", path: "/api/v2/users/" + e.acct.UserID, body: map[string]any{"firstName": "A"}, header: map[string]string{"If-Match": `"abc"`}}, 400, "invalid_input", "If-Match"},
		{"If-Match on a GET", req{method: "GET", path: "/api/v1/goals/" + s.child, header: map[string]string{"If-Match": `"abc"`}}, 400, "invalid_input", "If-Match"},
		{"malformed If-Match", req{method: "PATCH", path: "/api/v1/goals/" + s.child, body: map[string]any{"name": "y"}, header: map[string]string{"If-Match": `abc`}}, 400, "invalid_input", "If-Match"},
		{"malformed If-None-Match", req{method: "GET", path: "/api/v1/goals/" + s.child, header: map[string]string{"If-None-Match": `abc`}}, 400, "invalid_input", "If-None-Match"},
		{"Idempotency-Key on a PATCH", req{method: "PATCH", path: "/api/v1/goals/" + s.child, body: map[string]any{"name": "y"}, header: map[string]string{"Idempotency-Key": "k1"}}, 400, "invalid_input", "Idempotency-Key"},
		{"Idempotency-Key too long", req{method: "POST", path: "/api/v1/goals", body: goal, header: map[string]string{"Idempotency-Key": strings.Repeat("k", 256)}}, 400, "invalid_input", "Idempotency-Key"},
		{"Idempotency-Key on a token mint", req{method: "POST", path: "/api/v2/users/" + e.acct.UserID + "/tokens", body: map[string]any{}, header: map[string]string{"Idempotency-Key": "k1"}}, 400, "invalid_input", "Idempotency-Key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := e.problem(tt.q, tt.status, tt.code)
			if p != nil && tt.field != "" {
				errs, _ := p["errors"].([]any)
				if len(errs) == 0 || errs[0].(map[string]any)["field"] != tt.field {
					t.Errorf("errors = %v, want field %s", p["errors"], tt.field)
				}
			}
			if p != nil && strings.Contains(str(p, "detail"), strings.Repeat("x", 100)) {
				t.Errorf("the problem echoes the request: %.200s", str(p, "detail"))
			}
			if after := e.counts(s); fmt.Sprint(after) != fmt.Sprint(before) {
				t.Errorf("a rejected request changed data:\nbefore %v\nafter  %v", before, after)
			}
		})
	}

	// A JSON body is accepted without a Content-Type, and under the types
	// clients send by default for a string body.
	for _, ct := range []string{"", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "application/merge-patch+json"} {
		e.ok(req{method: "POST", path: "/api/v1/goals", body: goal, ctype: ptr(ct)}, 201)
	}
}

func TestHeadersAndRequestID(t *testing.T) {
	e := newEnv(t)
	// A sane incoming request id is kept, a bad one replaced.
	r := e.do(req{method: "GET", path: "/api/v2/sessions", header: map[string]string{"X-Request-Id": "trace-42_a"}})
	if r.header.Get("X-Request-Id") != "trace-42_a" {
		t.Errorf("X-Request-Id = %q", r.header.Get("X-Request-Id"))
	}
	r = e.do(req{method: "GET", path: "/api/v2/sessions", header: map[string]string{"X-Request-Id": "bad id; drop table"}})
	if !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(r.header.Get("X-Request-Id")) {
		t.Errorf("generated X-Request-Id = %q", r.header.Get("X-Request-Id"))
	}
	r = e.do(req{method: "GET", path: "/api/v2/sessions", header: map[string]string{"X-Request-Id": strings.Repeat("a", 65)}})
	if len(r.header.Get("X-Request-Id")) != 32 {
		t.Errorf("overlong X-Request-Id kept: %q", r.header.Get("X-Request-Id"))
	}
	// A route without Acct takes a missing header, and the header when it
	// names the caller's account.
	e.ok(req{method: "GET", path: "/api/v2/sessions", acct: ptr("")}, 200)
	e.ok(req{method: "GET", path: "/api/v2/sessions"}, 200)
	e.problem(req{method: "GET", path: "/api/v2/teams", acct: ptr(e.other.AccountID)}, 403, "forbidden")
	// The other account's token with its own header works.
	e.ok(req{method: "GET", path: "/api/v2/integrations/goals", as: &e.other}, 200)
}

// TestInternalError closes the store under the server: the real failure
// becomes a 500 that says only "internal error", with a request id that the
// log carries next to the real error.
func TestInternalError(t *testing.T) {
	e := newEnv(t)
	if err := e.store.Close(); err != nil {
		t.Fatal(err)
	}
	r := e.do(req{method: "GET", path: "/api/v2/sessions"})
	if r.status != 500 {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	p := checkProblem(t, r, 500, "internal")
	if p["detail"] != "internal error" || strings.Contains(string(r.body), "sql") {
		t.Errorf("500 body leaks: %s", r.body)
	}
	logs := e.logs.String()
	if !strings.Contains(logs, `"request_id":"`+str(p, "requestId")+`"`) || !strings.Contains(logs, "closed") {
		t.Errorf("log lacks the request id or the real error:\n%s", logs)
	}
}

// panicky injects a fault into a real store: ListTeams panics.
type panicky struct{ *sqlstore.Store }

func (panicky) ListTeams(context.Context, upstream.ListQuery) (upstream.Page[upstream.Team], error) {
	panic("boom")
}

func TestPanicRecovered(t *testing.T) {
	e := newEnvWith(t, func(s *sqlstore.Store) upstream.API { return panicky{s} })
	r := e.do(req{method: "GET", path: "/api/v2/teams"})
	if r.status != 500 {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	if p := checkProblem(t, r, 500, "internal"); p["detail"] != "internal error" || strings.Contains(string(r.body), "boom") {
		t.Errorf("panic body: %s", r.body)
	}
	if logs := e.logs.String(); !strings.Contains(logs, "boom") || !strings.Contains(logs, "goroutine") {
		t.Errorf("panic not logged with its stack:\n%s", logs)
	}
	// The server still serves.
	e.ok(req{method: "GET", path: "/api/v2/sessions"}, 200)
}

// TestRoutesServed checks every route of the table is served: an
// unauthenticated request gets 401 (not 404 or 405) with a problem body.
func TestRoutesServed(t *testing.T) {
	e := newEnv(t)
	id := "5f1a2b3c4d5e6f7a8b9c0d1e"
	for _, rt := range rest.Routes() {
		path := regexp.MustCompile(`\{[^}]+\}`).ReplaceAllString(rt.Pattern, id)
		r := e.do(req{method: rt.Method, path: path, token: ptr("")})
		if r.status != 401 {
			t.Errorf("%s %s: status %d, want 401", rt.Method, rt.Pattern, r.status)
			continue
		}
		checkProblem(t, r, 401, "unauthenticated")
	}
}

func TestSuspendedAccountIs402(t *testing.T) {
	e := newEnv(t)
	if err := e.store.SetAccountActive(context.Background(), e.acct.AccountID, false); err != nil {
		t.Fatal(err)
	}
	r := e.do(req{method: "GET", path: "/api/v2/integrations/goals"})
	if r.status != http.StatusPaymentRequired || r.json(t)["code"] != "account_suspended" {
		t.Fatalf("suspended account: %d %s", r.status, r.body)
	}
	// The other account is unaffected.
	if r := e.do(req{method: "GET", path: "/api/v2/integrations/goals", as: &e.other}); r.status != http.StatusOK {
		t.Fatalf("other account: %d %s", r.status, r.body)
	}
}
