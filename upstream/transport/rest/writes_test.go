package rest_test

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestWritesAnswerWhatReadsWould: the body of every create and update is
// the body of the GET of the same item that follows it (the same fields,
// currentUserAllowedActions included, the same values). A check-in answers
// the check-in, while GET /api/v1/metrics/checkin/{id} answers the key
// result's snapshot (a different resource by contract): it is compared
// with its entry in the key result's check-in listing (TestReplacesAnswerWhatReadsWould).
func TestWritesAnswerWhatReadsWould(t *testing.T) {
	e := newEnv(t)
	s := e.seed()
	id := func(m map[string]any) string { return str(m, "id") }
	type step struct {
		name   string
		method string
		path   string
		body   any
		status int
		get    func(resp map[string]any) string // the GET path of the written item
	}
	var created = map[string]map[string]any{}
	byID := func(prefix string) func(map[string]any) string {
		return func(m map[string]any) string { return prefix + id(m) }
	}
	steps := []step{
		{"create session", "POST", "/api/v1/sessions", map[string]any{"title": "Q3", "start": "2026-07-01T00:00:00.000Z", "end": "2026-09-30T00:00:00.000Z"}, 201, byID("/api/v1/sessions/")},
		{"update session", "PATCH", "/api/v1/sessions/" + s.session, map[string]any{"title": "2026 H1 (renamed)"}, 200, byID("/api/v1/sessions/")},
		{"create goal", "POST", "/api/v1/goals", map[string]any{"name": "Hire", "sessionId": s.session, "parentId": s.parent}, 201, byID("/api/v1/goals/")},
		{"update goal", "PATCH", "/api/v1/goals/" + s.child, map[string]any{"name": "Win EMEA and APAC"}, 200, byID("/api/v1/goals/")},
		{"create key result", "POST", "/api/v1/metrics", map[string]any{"name": "Hires", "goalId": s.child, "target": 5}, 201, byID("/api/v1/metrics/")},
		{"update key result", "PATCH", "/api/v1/metrics/" + s.metric, map[string]any{"name": "Deals closed"}, 200, byID("/api/v1/metrics/")},
		{"create task", "POST", "/api/v2/integrations/tasks", map[string]any{"name": "Call", "parentId": s.child, "parentType": "goal"}, 201, byID("/api/v2/integrations/tasks/")},
		{"create team", "POST", "/api/v1/teams", map[string]any{"name": "Sales", "members": []string{e.acct.UserID}}, 201, byID("/api/v1/teams/")},
		{"create user", "POST", "/api/v2/users", map[string]any{"email": "bo@acme.test", "firstName": "Bo", "lastName": "Li"}, 201, byID("/api/v2/users/")},
		{"create role", "POST", "/api/v1/roles/account", map[string]any{"name": "Auditor"}, 201, byID("/api/v1/roles/")},
		{"create dashboard", "POST", "/api/v1/dashboards", map[string]any{"name": "Board"}, 201, byID("/api/v1/dashboards/")},
		{"create dashboard parameter", "POST", "/api/v1/dashboards/parameters", map[string]any{"key": "region", "title": "Region", "selectorType": "single"}, 201, byID("/api/v1/dashboards/parameters/")},
		{"create badge", "POST", "/api/v1/badges", map[string]any{"name": "Star"}, 201, byID("/api/v1/badges/")},
		{"create KPI group", "POST", "/api/v1/kpis/groups", map[string]any{"name": "Finance"}, 201, byID("/api/v1/kpis/groups/")},
		{"create KPI", "POST", "/api/v1/kpis", map[string]any{"name": "Revenue", "value": 3}, 201, byID("/api/v1/kpis/")},
		{"create list", "POST", "/api/v1/lists", map[string]any{"title": "Mine", "listType": "goal"}, 201, byID("/api/v1/lists/")},
		{"create announcement", "POST", "/api/v1/announcements", map[string]any{"comment": "Hello"}, 201, byID("/api/v1/announcements/")},
	}
	for _, st := range steps {
		got := e.ok(req{method: st.method, path: st.path, body: st.body}, st.status)
		created[st.name] = got
		read := e.ok(req{method: "GET", path: st.get(got)}, 200)
		if !reflect.DeepEqual(got, read) {
			a, _ := json.Marshal(got)
			b, _ := json.Marshal(read)
			t.Errorf("%s: %s %s answers\n%s\nthe GET that follows\n%s", st.name, st.method, st.path, a, b)
		}
	}
	// Updates of the created items (the paths need their ids).
	for _, st := range []step{
		{"update task", "PATCH", "/api/v2/integrations/tasks/" + id(created["create task"]), map[string]any{"status": "done"}, 200, byID("/api/v2/integrations/tasks/")},
		{"update team", "PATCH", "/api/v1/teams/" + id(created["create team"]), map[string]any{"name": "Sales EMEA"}, 200, byID("/api/v1/teams/")},
		{"update user", "PATCH", "/api/v2/users/" + id(created["create user"]), map[string]any{"firstName": "Bob"}, 200, byID("/api/v2/users/")},
		{"update dashboard", "PATCH", "/api/v1/dashboards/" + id(created["create dashboard"]), map[string]any{"name": "Board 2"}, 200, byID("/api/v1/dashboards/")},
		{"update KPI group", "PATCH", "/api/v1/kpis/groups/" + id(created["create KPI group"]), map[string]any{"name": "Finance 2"}, 200, byID("/api/v1/kpis/groups/")},
		{"update KPI", "PATCH", "/api/v1/kpis/" + id(created["create KPI"]), map[string]any{"value": 4}, 200, byID("/api/v1/kpis/")},
		{"update list", "PATCH", "/api/v1/lists/" + id(created["create list"]), map[string]any{"title": "Mine 2"}, 200, byID("/api/v1/lists/")},
		{"update announcement", "PATCH", "/api/v1/announcements/" + id(created["create announcement"]), map[string]any{"comment": "Hello again"}, 200, byID("/api/v1/announcements/")},
	} {
		got := e.ok(req{method: st.method, path: st.path, body: st.body}, st.status)
		read := e.ok(req{method: "GET", path: st.get(got)}, 200)
		if !reflect.DeepEqual(got, read) {
			a, _ := json.Marshal(got)
			b, _ := json.Marshal(read)
			t.Errorf("%s: %s %s answers\n%s\nthe GET that follows\n%s", st.name, st.method, st.path, a, b)
		}
	}
}

// TestReplacesAnswerWhatReadsWould: the rest of the writes that answer the
// item: the PUTs (account, notifications, role, dashboard parameter, item
// access) against the GET that follows, a check-in against its entry in
// the key result's check-in listing; and the badge PATCH, which answers
// 204, is what the badge's GET shows after it.
func TestReplacesAnswerWhatReadsWould(t *testing.T) {
	e := newEnv(t)
	s := e.seed()
	acct := "/api/v1/accounts/" + e.acct.AccountID
	role := e.ok(req{method: "POST", path: "/api/v1/roles/account", body: map[string]any{"name": "Auditor"}}, 201)
	param := e.ok(req{method: "POST", path: "/api/v1/dashboards/parameters", body: map[string]any{"key": "region", "title": "Region", "selectorType": "single"}}, 201)
	same := func(name string, got, read any) {
		t.Helper()
		if !reflect.DeepEqual(got, read) {
			a, _ := json.Marshal(got)
			b, _ := json.Marshal(read)
			t.Errorf("%s answers\n%s\nthe read that follows\n%s", name, a, b)
		}
	}
	for _, st := range []struct {
		name, path string
		body       any
		get        string
		part       string // the part of the GET's body that is the written item; "" for all
	}{
		{"PUT account", acct, map[string]any{"accountName": "Acme 2", "language": "de"}, acct, ""},
		{"PUT notifications", acct + "/notifications", map[string]any{"cadence": "weekly", "timezone": "Europe/Berlin",
			"checkinDeadline": map[string]any{"dayOfTheWeek": "friday"}}, acct, "notifications"},
		{"PUT role", "/api/v1/roles/account/" + str(role, "id"), map[string]any{"name": "Auditor 2", "description": "Reads"}, "/api/v1/roles/" + str(role, "id"), ""},
		{"PUT dashboard parameter", "/api/v1/dashboards/parameters/" + str(param, "id"), map[string]any{"key": "region", "title": "Region 2", "selectorType": "multiple",
			"predefinedValues": []string{"emea", "apac"}}, "/api/v1/dashboards/parameters/" + str(param, "id"), ""},
		{"PUT goal access", "/api/v1/permissions/default-access/goal/" + s.child, map[string]any{"inherits": false,
			"permissions": []any{map[string]any{"principalKind": "user", "principalId": e.acct.UserID, "grant": map[string]any{"goals:read": 1}}}},
			"/api/v1/permissions/default-access/goal/" + s.child, ""},
	} {
		got := e.ok(req{method: "PUT", path: st.path, body: st.body}, 200)
		var read any = e.ok(req{method: "GET", path: st.get}, 200)
		if st.part != "" {
			read = read.(map[string]any)[st.part]
		}
		same(st.name, got, read)
	}

	// A check-in and its entry in the listing of the key result's check-ins.
	ci := e.ok(req{method: "POST", path: "/api/v1/metrics/" + s.metric + "/checkin", body: map[string]any{"actual": 7, "comment": "on track", "confidence": 8}}, 201)
	list := e.ok(req{method: "GET", path: "/api/v1/metrics/" + s.metric + "/checkins?limit=100"}, 200)
	var entry any
	for _, it := range list["items"].([]any) {
		if str(it.(map[string]any), "id") == str(ci, "id") {
			entry = it
		}
	}
	if entry == nil {
		t.Fatalf("check-in %s not in the listing %v", str(ci, "id"), list)
	}
	same("POST check-in", ci, entry)

	// The badge PATCH answers 204: the GET that follows shows the change.
	badge := e.ok(req{method: "POST", path: "/api/v1/badges", body: map[string]any{"name": "Star"}}, 201)
	e.ok(req{method: "PATCH", path: "/api/v1/badges/" + str(badge, "id"), body: map[string]any{"name": "Superstar", "icon": "star"}}, 204)
	want := map[string]any{}
	for k, v := range badge {
		want[k] = v
	}
	want["name"], want["icon"] = "Superstar", "star"
	same("PATCH badge (with its two changes applied to the created badge)", want, e.ok(req{method: "GET", path: "/api/v1/badges/" + str(badge, "id")}, 200))
}
