package rest_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/okrgate/okrgate/upstream"
)

// TestRequiredInputFields holds the server to the `required` lists of the
// OpenAPI document's request bodies (upstream.RequiredInputFields): a body
// with exactly the required fields is accepted (nothing else is required),
// and leaving out any one of them is a 400 invalid_input naming it.
func TestRequiredInputFields(t *testing.T) {
	e := newEnv(t)
	doc := documentJSON(t)
	ids := map[string]string{}
	cases := []struct {
		path, schema, idName string
		body                 func() map[string]any
	}{
		{"/api/v1/sessions", "SessionInput", "session", func() map[string]any {
			return map[string]any{"title": "Q1", "start": "2027-01-01", "end": "2027-03-31"}
		}},
		{"/api/v1/goals", "GoalInput", "goal", func() map[string]any {
			return map[string]any{"name": "Grow", "sessionId": ids["session"]}
		}},
		{"/api/v1/metrics", "MetricInput", "metric", func() map[string]any {
			return map[string]any{"name": "ARR", "goalId": ids["goal"], "target": 10}
		}},
		{"/api/v1/metrics/{metric}/checkin", "CheckInInput", "", func() map[string]any { return map[string]any{"actual": 3} }},
		{"/api/v2/integrations/tasks", "TaskInput", "", func() map[string]any { return map[string]any{"name": "Call"} }},
		{"/api/v1/teams", "TeamInput", "", func() map[string]any { return map[string]any{"name": "Sales"} }},
		{"/api/v2/users", "UserInput", "", func() map[string]any { return map[string]any{"email": "bo@acme.test"} }},
		{"/api/v1/roles/account", "RoleInput", "", func() map[string]any { return map[string]any{"name": "Editors"} }},
		{"/api/v1/badges", "BadgeInput", "badge", func() map[string]any { return map[string]any{"name": "Star"} }},
		{"/api/v1/badges/assign", "AssignBadgeInput", "", func() map[string]any {
			return map[string]any{"badgeId": ids["badge"], "assigneeIds": []string{e.acct.UserID}}
		}},
		{"/api/v1/dashboards", "DashboardInput", "", func() map[string]any { return map[string]any{"name": "Board"} }},
		{"/api/v1/dashboards/parameters", "DashboardParameterInput", "", func() map[string]any {
			return map[string]any{"key": "fx", "title": "FX rate"}
		}},
		{"/api/v1/kpis/groups", "KPIGroupInput", "", func() map[string]any { return map[string]any{"name": "Finance"} }},
		{"/api/v1/kpis", "KPIInput", "", func() map[string]any { return map[string]any{"name": "Churn"} }},
		{"/api/v1/lists", "ListInput", "", func() map[string]any { return map[string]any{"title": "Mine", "listType": "goal"} }},
		{"/api/v1/announcements", "AnnouncementInput", "", func() map[string]any { return map[string]any{"comment": "Hello"} }},
	}
	for _, c := range cases {
		path := c.path
		if id, ok := ids["metric"]; ok {
			path = strings.ReplaceAll(path, "{metric}", id)
		}
		required := upstream.RequiredInputFields(c.schema)
		if got := schemaRequired(t, doc, c.schema); !slices.Equal(got, sorted(required)) {
			t.Errorf("%s: the document requires %v, RequiredInputFields says %v", c.schema, got, required)
		}
		body := c.body()
		if keys := sorted(slices.Collect(maps.Keys(body))); !slices.Equal(keys, sorted(required)) {
			t.Fatalf("%s: the test body has %v, the required fields are %v", c.schema, keys, required)
		}
		for _, f := range required {
			partial := maps.Clone(body)
			delete(partial, f)
			p := e.problem(req{method: "POST", path: path, body: partial}, 400, "invalid_input")
			if !namesField(p, f) {
				t.Errorf("POST %s without %s: the problem does not name it: %v", path, f, p)
			}
		}
		status := 201
		if c.schema == "AssignBadgeInput" {
			status = 200 // the route table's success status of a badge request
		}
		created := e.ok(req{method: "POST", path: path, body: body}, status)
		if c.idName != "" {
			ids[c.idName] = fmt.Sprint(created["id"])
		}
	}
}

func sorted(s []string) []string { s = slices.Clone(s); slices.Sort(s); return s }

// namesField reports whether a problem body names field in errors[].field.
func namesField(problem map[string]any, field string) bool {
	errs, _ := problem["errors"].([]any)
	for _, fe := range errs {
		if m, _ := fe.(map[string]any); m["field"] == field {
			return true
		}
	}
	return false
}
