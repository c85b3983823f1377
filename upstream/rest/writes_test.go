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
// result's snapshot (a different resource by contract), so it is not here.
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
