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

// TestPayloadMutationsAnswerWhatQueriesWould: the mutations that answer
// a payload, a settings structure or a type without a query of its own
// (tagGoal, checkIn, setItemAccess, assignBadge, createRoleMapping,
// createPermission, the dashboard parameters, cloneList, the account's)
// answer what the read that follows answers: node(id:) for the objects,
// itemAccess, account, and the key result's checkins edge for a check-in.
func TestPayloadMutationsAnswerWhatQueriesWould(t *testing.T) {
	o := newOrgFixture(t, "payloads")
	fillNodes(t, o, 1)
	ids := nodeIDs(t, o)
	goal, team := ids["Goal"][0], ids["Team"][0]
	same := func(name string, written, read json.RawMessage) {
		t.Helper()
		if len(written) == 0 || string(written) == "null" || string(written) != string(read) {
			t.Errorf("%s answers\n%s\nthe read that follows\n%s", name, written, read)
		}
	}
	// mutate runs a mutation and returns its data by top-level field.
	mutate := func(q string, vars map[string]any) map[string]json.RawMessage {
		t.Helper()
		var w map[string]json.RawMessage
		o.do(t, q, vars).mustData(t, &w)
		return w
	}
	fields := func(raw json.RawMessage) map[string]json.RawMessage {
		t.Helper()
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	// node reads the object of the global id in raw with the selection sel.
	node := func(name, typ, sel string, raw json.RawMessage) {
		t.Helper()
		var id string
		if err := json.Unmarshal(fields(raw)["id"], &id); err != nil {
			t.Fatalf("%s: no id in %s", name, raw)
		}
		r := mutate("query($id: ID!) { node(id: $id) { ... on "+typ+" { "+sel+" } } }", map[string]any{"id": id})
		same(name, raw, r["node"])
	}
	const (
		goalSel   = "id name attainment currentUserAllowedActions tags { id name title } access { inherits }"
		metricSel = "id name actual attainment currentUserAllowedActions checkins { id actual comment confidence }"
		ciSel     = "id metricId goalId actual previousActual attainment comment confidence createdById"
	)

	w := mutate(`mutation($g: ID!) { tagGoal(goalId: $g, title: "Stretch") { tag { id name title isActive } added goal { `+goalSel+` } } }`, map[string]any{"g": goal})
	p := fields(w["tagGoal"])
	node("tagGoal.tag", "Tag", "id name title isActive", p["tag"])
	node("tagGoal.goal", "Goal", goalSel, p["goal"])

	var mid string
	w = mutate(`mutation($g: ID!) { createMetric(input: {name: "Deals", goalId: $g, target: 10}) { id } }`, map[string]any{"g": goal})
	if err := json.Unmarshal(fields(w["createMetric"])["id"], &mid); err != nil {
		t.Fatal(err)
	}
	w = mutate(`mutation($m: ID!) { checkIn(metricId: $m, input: {actual: 7, comment: "on track", confidence: 8}) {
  checkIn { `+ciSel+` } metric { `+metricSel+` } goal { `+goalSel+` } } }`, map[string]any{"m": mid})
	p = fields(w["checkIn"])
	node("checkIn.checkIn", "CheckIn", ciSel, p["checkIn"])
	node("checkIn.metric", "Metric", metricSel, p["metric"])
	node("checkIn.goal", "Goal", goalSel, p["goal"])
	// The check-in is the entry of the key result's checkins edge.
	r := mutate(`query($m: ID!) { metric(id: $m) { checkins(first: 1, orderBy: [{field: DATE_CREATED, direction: DESC}]) { `+ciSel+` } } }`, map[string]any{"m": mid})
	var edge struct {
		Checkins []json.RawMessage `json:"checkins"`
	}
	if err := json.Unmarshal(r["metric"], &edge); err != nil || len(edge.Checkins) != 1 {
		t.Fatalf("checkins edge: %s (%v)", r["metric"], err)
	}
	same("checkIn.checkIn (the metric's checkins edge)", p["checkIn"], edge.Checkins[0])

	const accessSel = "inherits ownerPermissions { grant deny } permissions { principalId principalKind grant deny }"
	w = mutate(`mutation($g: ID!, $u: ID!) { setItemAccess(itemType: "goal", id: $g, access: {inherits: false,
  permissions: [{principalId: $u, principalKind: "user", grant: ["goals:read"], deny: ["goals:delete"]}]}) { `+accessSel+` } }`,
		map[string]any{"g": goal, "u": o.memberID})
	r = mutate(`query($g: ID!) { itemAccess(itemType: "goal", id: $g) { `+accessSel+` } }`, map[string]any{"g": goal})
	same("setItemAccess", w["setItemAccess"], r["itemAccess"])

	const badgeSel = "id badgeId assignedById assigneeIds approvedBy comment notificationStrategy notify status badge { id name } assignees { id name }"
	w = mutate(`mutation($b: ID!, $u: ID!) { assignBadge(input: {badgeId: $b, assigneeIds: [$u], comment: "Thanks"}) { `+badgeSel+` } }`,
		map[string]any{"b": ids["Badge"][0], "u": o.memberID})
	node("assignBadge", "AssignedBadge", badgeSel, w["assignBadge"])

	const mappingSel = "id roleId teamId name description role { id name } team { id name }"
	w = mutate(`mutation { createRole(input: {name: "Mapped"}) { id } }`, nil)
	var rid string
	if err := json.Unmarshal(fields(w["createRole"])["id"], &rid); err != nil {
		t.Fatal(err)
	}
	w = mutate(`mutation($r: ID!, $t: ID!) { createRoleMapping(roleId: $r, teamId: $t) { `+mappingSel+` } }`, map[string]any{"r": rid, "t": team})
	node("createRoleMapping", "RoleMapping", mappingSel, w["createRoleMapping"])

	const permSel = "id accountId action principals"
	w = mutate(`mutation($u: ID!) { createPermission(action: "goals:read", principals: [$u]) { `+permSel+` } }`, map[string]any{"u": o.memberID})
	node("createPermission", "Permission", permSel, w["createPermission"])

	const paramSel = "id key title defaultValue entityName entityTitleField entityValueField predefinedValues selectorType"
	w = mutate(`mutation { createDashboardParameter(input: {key: "region", title: "Region", selectorType: "single"}) { `+paramSel+` } }`, nil)
	node("createDashboardParameter", "DashboardParameter", paramSel, w["createDashboardParameter"])
	var pid string
	if err := json.Unmarshal(fields(w["createDashboardParameter"])["id"], &pid); err != nil {
		t.Fatal(err)
	}
	w = mutate(`mutation($p: ID!) { replaceDashboardParameter(id: $p, input: {key: "region", title: "Region 2", selectorType: "multiple", predefinedValues: ["emea", "apac"]}) { `+paramSel+` } }`,
		map[string]any{"p": pid})
	node("replaceDashboardParameter", "DashboardParameter", paramSel, w["replaceDashboardParameter"])

	const listSel = "id title listType columns { fieldName type width } filter"
	w = mutate(`mutation($l: ID!) { cloneList(id: $l) { `+listSel+` } }`, map[string]any{"l": ids["List"][0]})
	node("cloneList", "List", listSel, w["cloneList"])

	const accountSel = "id name domain language isActive confidenceSettings { confidenceType } notifications { cadence timezone checkinDeadline { dayOfTheWeek } }"
	w = mutate(`mutation { updateAccount(input: {accountName: "Payloads 2", language: "de"}) { `+accountSel+` } }`, nil)
	node("updateAccount", "Account", accountSel, w["updateAccount"])
	w = mutate(`mutation { setNotifications(input: {cadence: "weekly", timezone: "Europe/Berlin", checkinDeadline: {dayOfTheWeek: "friday"}}) { cadence timezone checkinDeadline { dayOfTheWeek } } }`, nil)
	r = mutate(`{ account { notifications { cadence timezone checkinDeadline { dayOfTheWeek } } } }`, nil)
	same("setNotifications", w["setNotifications"], fields(r["account"])["notifications"])
}
