package resolvers_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestMutationsAnswerWhatQueriesWould: every create and update mutation of
// the OKR, team and content types answers what the query of the same item
// that follows answers, for the same selection (currentUserAllowedActions
// included where the type has it).
func TestMutationsAnswerWhatQueriesWould(t *testing.T) {
	o := newOrgFixture(t, "writes")
	sel := map[string]string{
		"Session":      "id title status start end currentUserAllowedActions settings { goalsPerOwnerLimit } tags { name }",
		"Goal":         "id name attainment currentUserAllowedActions closedStatus { status } owners { id name } assignees { id } tags { name } access { inherits }",
		"Metric":       "id name target actual attainment currentUserAllowedActions assignees { id } owners { id }",
		"Task":         "id name status priority parentId parentType owner { id }",
		"Team":         "id name memberIds members { id }",
		"Dashboard":    "id name currentUserAllowedActions tags { name }",
		"Kpi":          "id name value groups { id }",
		"List":         "id title listType",
		"User":         "id name email firstName isActive teamIds",
		"Role":         "id name description userCount builtIn",
		"Badge":        "id name",
		"KpiGroup":     "id name favorite kpis { id }",
		"Announcement": "id comment reactions { reactionId }",
	}
	read := map[string]string{"Session": "session", "Goal": "goal", "Metric": "metric", "Task": "task", "Team": "team", "Dashboard": "dashboard", "Kpi": "kpi", "List": "list",
		"User": "user", "Role": "role", "Badge": "badge", "KpiGroup": "kpiGroup", "Announcement": "announcement"}
	check := func(typ, mutation, q string, vars map[string]any) string {
		t.Helper()
		var decl []string
		if strings.Contains(q, "$id") {
			decl = append(decl, "$id: ID!")
		}
		if strings.Contains(q, "$s") {
			decl = append(decl, "$s: ID!")
		}
		op := "mutation"
		if len(decl) > 0 {
			op += "(" + strings.Join(decl, ", ") + ")"
		}
		var w map[string]json.RawMessage
		o.do(t, op+" { "+mutation+"("+q+") { "+sel[typ]+" } }", vars).mustData(t, &w)
		var written struct{ ID string }
		if err := json.Unmarshal(w[mutation], &written); err != nil {
			t.Fatal(err)
		}
		var r map[string]json.RawMessage
		o.do(t, "query($id: ID!) { "+read[typ]+"(id: $id) { "+sel[typ]+" } }", map[string]any{"id": written.ID}).mustData(t, &r)
		if string(w[mutation]) != string(r[read[typ]]) {
			t.Errorf("%s answers\n%s\nthe query that follows\n%s", mutation, w[mutation], r[read[typ]])
		}
		return written.ID
	}
	v := func(kv ...any) map[string]any {
		m := map[string]any{"s": o.sessionID}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	sid := check("Session", "createSession", `input: {title: "Q9", start: "2026-07-01", end: "2026-09-30"}`, v())
	check("Session", "updateSession", `id: $id, input: {title: "Q9 renamed"}`, v("id", sid))
	gid := check("Goal", "createGoal", `input: {name: "Grow", sessionId: $s}`, v())
	check("Goal", "updateGoal", `id: $id, input: {name: "Grow more"}`, v("id", gid))
	mid := check("Metric", "createMetric", `input: {name: "Deals", goalId: $id, target: 10}`, v("id", gid))
	check("Metric", "updateMetric", `id: $id, input: {name: "Deals won"}`, v("id", mid))
	tid := check("Task", "createTask", `input: {name: "Call", parentId: $id, parentType: "goal"}`, v("id", gid))
	check("Task", "updateTask", `id: $id, input: {status: "done"}`, v("id", tid))
	tmid := check("Team", "createTeam", `input: {name: "Sales"}`, v())
	check("Team", "updateTeam", `id: $id, input: {name: "Sales EMEA"}`, v("id", tmid))
	did := check("Dashboard", "createDashboard", `input: {name: "Board"}`, v())
	check("Dashboard", "updateDashboard", `id: $id, input: {name: "Board 2"}`, v("id", did))
	kid := check("Kpi", "createKpi", `input: {name: "Revenue", value: 3}`, v())
	check("Kpi", "updateKpi", `id: $id, input: {value: 4}`, v("id", kid))
	lid := check("List", "createList", `input: {title: "Mine", listType: "goal"}`, v())
	check("List", "updateList", `id: $id, input: {title: "Mine 2"}`, v("id", lid))
	uid := check("User", "createUser", `input: {email: "bo@writes.test", firstName: "Bo", lastName: "Li"}`, v())
	check("User", "updateUser", `id: $id, input: {firstName: "Bob"}`, v("id", uid))
	rid := check("Role", "createRole", `input: {name: "Auditor"}`, v())
	check("Role", "updateRole", `id: $id, input: {description: "Reads everything"}`, v("id", rid))
	bid := check("Badge", "createBadge", `input: {name: "Star"}`, v())
	check("Badge", "updateBadge", `id: $id, input: {name: "Star 2"}`, v("id", bid))
	gr := check("KpiGroup", "createKpiGroup", `name: "Finance"`, v())
	check("KpiGroup", "renameKpiGroup", `id: $id, name: "Finance 2"`, v("id", gr))
	an := check("Announcement", "createAnnouncement", `input: {comment: "Hello"}`, v())
	check("Announcement", "updateAnnouncement", `id: $id, comment: "Hello again"`, v("id", an))
}
