package resolvers_test

import (
	"testing"

	"github.com/okrgate/okrgate/upstream"
)

// TestContent runs every content query and mutation against real data, as
// the admin (and myBadges as the member).
func TestContent(t *testing.T) {
	o := newOrgFixture(t, "content")
	vars := func(kv ...any) map[string]any {
		m := map[string]any{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	g, err := o.store.CreateGoal(o.ctx, upstream.GoalInput{Name: "Grow revenue", SessionID: o.sessionID})
	if err != nil {
		t.Fatal(err)
	}

	// Tags.
	d := o.run(t, `mutation { createTags(titles: ["Growth", "Ops", "growth"]) { id name title } }`, nil)
	wantAt(t, d, "createTags.#", 2)
	opsID := str(t, d, "createTags.1.id")
	d = o.run(t, `mutation($ids: [ID!]!) { off: setTagsActive(ids: $ids, active: false) }`, vars("ids", []string{opsID}))
	wantAt(t, d, "off", 1)
	d = o.run(t, `mutation($ids: [ID!]!) { again: setTagsActive(ids: $ids, active: false) }`, vars("ids", []string{opsID}))
	wantAt(t, d, "again", 0)
	o.run(t, `mutation($g: ID!) { tagGoal(goalId: $g, title: "Growth") { added } }`, vars("g", g.ID))

	// Dashboards and parameters.
	d = o.run(t, `mutation { createDashboardParameter(input: {key: "region", title: "Region", selectorType: "single", predefinedValues: ["EU", "US"]}) { id key predefinedValues } }`, nil)
	paramID := str(t, d, "createDashboardParameter.id")
	d = o.run(t, `mutation($id: ID!) { replaceDashboardParameter(id: $id, input: {key: "region", title: "Sales region"}) { title predefinedValues } }`, vars("id", paramID))
	wantAt(t, d, "replaceDashboardParameter.title", "Sales region")
	d = o.run(t, `{ dashboardParameters { totalCount nodes { key } } }`, nil)
	wantAt(t, d, "dashboardParameters.nodes.0.key", "region")
	d = o.run(t, `mutation($p: ID!) { createDashboard(input: {name: "Board", tags: [{title: "Growth"}], parameterIds: [$p], source: {sourceApplication: "okrgate"}, insights: [{insightId: "0123456789abcdef01234567", insightName: "Revenue", col: 1, row: 2, sizeX: 3, sizeY: 4}]}) { id name tags { name } parameters { key } source { sourceApplication } insights { insightId row } } }`, vars("p", paramID))
	dashID := str(t, d, "createDashboard.id")
	wantAt(t, d, "createDashboard.tags.0.name", "growth")
	wantAt(t, d, "createDashboard.parameters.0.key", "region")
	wantAt(t, d, "createDashboard.insights.0.row", 2)
	d = o.run(t, `mutation($id: ID!) { updateDashboard(id: $id, input: {layout: "grid", readOnly: true}) { layout readOnly } }`, vars("id", dashID))
	wantAt(t, d, "updateDashboard.layout", "grid")
	d = o.run(t, `mutation($id: ID!) { tagDashboard(dashboardId: $id, title: "Reporting") { added tag { name } dashboard { tags { name } } } }`, vars("id", dashID))
	wantAt(t, d, "tagDashboard.added", true)
	wantAt(t, d, "tagDashboard.dashboard.tags.#", 2)
	d = o.run(t, `mutation { tagInsight(insightId: "0123456789abcdef01234567", title: "Revenue") { added tag { title } } }`, nil)
	wantAt(t, d, "tagInsight.tag.title", "Revenue")
	d = o.run(t, `query($id: ID!) { dashboards(filter: {name: {eq: "Board"}}) { totalCount nodes { id currentUserAllowedActions } } dashboard(id: $id) { name access { inherits } } }`, vars("id", dashID))
	wantAt(t, d, "dashboards.totalCount", 1)
	wantAt(t, d, "dashboard.name", "Board")
	d = o.run(t, `{ tags(name: "GRO") { totalCount nodes { name goalsTaggedCount dashboardsTaggedCount goals { name } dashboards { name } } } }`, nil)
	wantAt(t, d, "tags.totalCount", 1)
	wantAt(t, d, "tags.nodes.0.goals.0.name", "Grow revenue")
	wantAt(t, d, "tags.nodes.0.dashboards.0.name", "Board")
	d = o.run(t, `query($g: ID!) { goal(id: $g) { tags { name goals { id } dashboards { id } } } }`, vars("g", g.ID))
	wantAt(t, d, "goal.tags.0.goals.0.id", g.ID)
	wantAt(t, d, "goal.tags.0.dashboards.0.id", dashID)

	// Badges.
	d = o.run(t, `mutation { createBadge(input: {name: "Star", icon: "star"}) { id name } }`, nil)
	badgeID := str(t, d, "createBadge.id")
	d = o.run(t, `mutation($id: ID!) { updateBadge(id: $id, input: {summary: "shines"}) { summary } }`, vars("id", badgeID))
	wantAt(t, d, "updateBadge.summary", "shines")
	team, err := o.store.CreateTeam(o.ctx, upstream.TeamInput{Name: "Stars", Members: []string{o.memberID}})
	if err != nil {
		t.Fatal(err)
	}
	d = o.run(t, `mutation($b: ID!, $u: ID!, $t: ID!) { assignBadge(input: {badgeId: $b, assigneeIds: [$u, $t], comment: "well done"}) { id status badge { name } assignees { __typename ... on User { id } ... on Team { id } } assignedBy { id } } }`,
		vars("b", badgeID, "u", o.memberID, "t", team.ID))
	asgID := str(t, d, "assignBadge.id")
	wantAt(t, d, "assignBadge.status", "pending")
	wantAt(t, d, "assignBadge.badge.name", "Star")
	wantAt(t, d, "assignBadge.assignees.1.__typename", "Team")
	wantAt(t, d, "assignBadge.assignedBy.id", o.adminID)
	d = o.run(t, `{ badgeApprovals { totalCount nodes { id comment } } }`, nil)
	wantAt(t, d, "badgeApprovals.nodes.0.id", asgID)
	d = o.run(t, `mutation($id: ID!) { decideBadge(id: $id, approve: true) { status } }`, vars("id", asgID))
	wantAt(t, d, "decideBadge.status", "approved")
	if r := o.do(t, `mutation($id: ID!) { decideBadge(id: $id, approve: true) { status } }`, vars("id", asgID)); r.code() != "NOT_MODIFIED" {
		t.Fatalf("deciding twice: %v", r.Errors)
	}
	d = o.run(t, `query($u: ID!, $t: ID!, $b: ID!) { badgeApprovals { totalCount } badges { totalCount } badge(id: $b) { name } user(id: $u) { badges { badge { name } } } team(id: $t) { badges { status } } employee(id: $u) { badges { id } } }`,
		vars("u", o.memberID, "t", team.ID, "b", badgeID))
	wantAt(t, d, "badgeApprovals.totalCount", 0)
	wantAt(t, d, "badges.totalCount", 1)
	wantAt(t, d, "user.badges.0.badge.name", "Star")
	wantAt(t, d, "team.badges.0.status", "approved")
	wantAt(t, d, "employee.badges.0.id", asgID)
	var mine any
	o.doAs(t, o.memberToken, `{ myBadges { totalCount nodes { id badge { name } } } }`, nil).mustData(t, &mine)
	wantAt(t, mine, "myBadges.nodes.0.badge.name", "Star")
	d = o.run(t, `mutation { createBadge(input: {name: "Temp"}) { id } }`, nil)
	temp := str(t, d, "createBadge.id")
	d = o.run(t, `mutation($id: ID!) { deleteBadge(id: $id) }`, vars("id", temp))
	wantAt(t, d, "deleteBadge", temp)

	// KPI groups and KPIs.
	d = o.run(t, `mutation { createKpiGroup(name: "Finance") { id name } }`, nil)
	grpID := str(t, d, "createKpiGroup.id")
	d = o.run(t, `mutation($id: ID!) { renameKpiGroup(id: $id, name: "Money") { name } }`, vars("id", grpID))
	wantAt(t, d, "renameKpiGroup.name", "Money")
	d = o.run(t, `mutation($g: ID!) { createKpi(input: {name: "Revenue", value: 3, groupIds: [$g]}) { id groups { name } owner { id } } }`, vars("g", grpID))
	kpiID := str(t, d, "createKpi.id")
	wantAt(t, d, "createKpi.groups.0.name", "Money")
	wantAt(t, d, "createKpi.owner.id", o.adminID)
	d = o.run(t, `mutation { createKpi(input: {name: "Costs"}) { id } }`, nil)
	kpi2 := str(t, d, "createKpi.id")
	d = o.run(t, `mutation($k: ID!, $g: ID!) { setKpiInGroup(kpiId: $k, groupId: $g, member: true) { groupIds } }`, vars("k", kpi2, "g", grpID))
	wantAt(t, d, "setKpiInGroup.groupIds", []any{grpID})
	d = o.run(t, `mutation($g: ID!) { setKpiGroupFavorite(groupId: $g, favorite: true) { favorite } }`, vars("g", grpID))
	wantAt(t, d, "setKpiGroupFavorite.favorite", true)
	d = o.run(t, `mutation($id: ID!) { updateKpi(id: $id, input: {value: 5.5}) { value } }`, vars("id", kpiID))
	wantAt(t, d, "updateKpi.value", 5.5)
	d = o.run(t, `query($g: ID!, $k: ID!) { kpiGroups { totalCount nodes { name favorite kpis { name } createdBy { id } } } kpiGroup(id: $g) { name } kpis(orderBy: [{field: name}]) { totalCount nodes { name } } kpi(id: $k) { value } }`, vars("g", grpID, "k", kpiID))
	if got := names(t, d, "kpiGroups.nodes.0.kpis", "name"); len(got) != 2 {
		t.Fatalf("kpis of the group: %v", got)
	}
	wantAt(t, d, "kpiGroups.nodes.0.createdBy.id", o.adminID)
	wantAt(t, d, "kpis.nodes.0.name", "Costs")
	d = o.run(t, `mutation($k: ID!, $g: ID!) { a: deleteKpi(id: $k) b: deleteKpiGroup(id: $g) }`, vars("k", kpi2, "g", grpID))
	wantAt(t, d, "a", kpi2)
	wantAt(t, d, "b", grpID)
	d = o.run(t, `{ kpiGroups { totalCount } kpis { totalCount } }`, nil)
	wantAt(t, d, "kpiGroups.totalCount", 0)
	wantAt(t, d, "kpis.totalCount", 1)

	// Lists.
	d = o.run(t, `{ listTypes listSchema(type: "goal") { type totalCount fields { fieldName isFilterable supportedOperators } } }`, nil)
	if !contains(names2(at(t, d, "listTypes").([]any)), "goal") {
		t.Fatalf("listTypes = %v", at(t, d, "listTypes"))
	}
	if got := names(t, d, "listSchema.fields", "fieldName"); !contains(got, "attainment") {
		t.Fatalf("listSchema fields: %v", got)
	}
	d = o.run(t, `mutation($f: JSON) { createList(input: {title: "Good goals", listType: "goal", filter: $f, columns: [{fieldName: "name", width: 200}], sort: "-attainment"}) { id filter columns { fieldName width } createdBy { id } } }`,
		vars("f", map[string]any{"attainment": map[string]any{"$gte": 0.5}}))
	listID := str(t, d, "createList.id")
	wantAt(t, d, "createList.filter", map[string]any{"attainment": map[string]any{"$gte": 0.5}})
	wantAt(t, d, "createList.createdBy.id", o.adminID)
	d = o.run(t, `mutation($id: ID!) { updateList(id: $id, input: {title: "Great goals"}) { title } }`, vars("id", listID))
	wantAt(t, d, "updateList.title", "Great goals")
	d = o.run(t, `mutation($id: ID!) { cloneList(id: $id) { id title } }`, vars("id", listID))
	wantAt(t, d, "cloneList.title", "Great goals (copy)")
	cloneID := str(t, d, "cloneList.id")
	if r := o.do(t, `mutation($f: JSON) { createList(input: {title: "Bad", listType: "goal", filter: $f}) { id } }`, vars("f", map[string]any{"nope": 1})); r.code() != "BAD_USER_INPUT" {
		t.Fatalf("a filter on an unknown field: %v", r.Errors)
	}
	d = o.run(t, `mutation($id: ID!) { deleteList(id: $id) }`, vars("id", cloneID))
	wantAt(t, d, "deleteList", cloneID)
	d = o.run(t, `query($id: ID!) { lists { totalCount nodes { title } } list(id: $id) { title listType } }`, vars("id", listID))
	wantAt(t, d, "lists.totalCount", 1)
	wantAt(t, d, "list.listType", "goal")

	// Announcements.
	d = o.run(t, `mutation($a: ID!) { createAnnouncement(input: {comment: "Hello", authorId: $a}) { id authorId author { id } } }`, vars("a", o.memberID))
	annID := str(t, d, "createAnnouncement.id")
	wantAt(t, d, "createAnnouncement.author.id", o.memberID)
	d = o.run(t, `mutation($id: ID!) { updateAnnouncement(id: $id, comment: "Hello all") { comment } }`, vars("id", annID))
	wantAt(t, d, "updateAnnouncement.comment", "Hello all")
	d = o.run(t, `mutation($id: ID!) { reactToAnnouncement(id: $id, reactionId: "like") { reactions { reactionId userId } } }`, vars("id", annID))
	wantAt(t, d, "reactToAnnouncement.reactions.0.userId", o.adminID)
	d = o.run(t, `query($id: ID!) { announcements { totalCount nodes { author { email } } } announcement(id: $id) { comment } }`, vars("id", annID))
	wantAt(t, d, "announcements.nodes.0.author.email", "member@content.test")
	wantAt(t, d, "announcement.comment", "Hello all")

	// Deletes.
	d = o.run(t, `mutation($d: ID!, $p: ID!, $a: ID!) { a: deleteDashboard(id: $d) b: deleteDashboardParameter(id: $p) c: deleteAnnouncement(id: $a) }`, vars("d", dashID, "p", paramID, "a", annID))
	wantAt(t, d, "a", dashID)
	wantAt(t, d, "b", paramID)
	wantAt(t, d, "c", annID)
	d = o.run(t, `query($d: ID!) { dashboard(id: $d) { id } dashboards { totalCount } dashboardParameters { totalCount } announcements { totalCount } }`, vars("d", dashID))
	wantAt(t, d, "dashboard", nil)
	wantAt(t, d, "dashboards.totalCount", 0)
	wantAt(t, d, "dashboardParameters.totalCount", 0)
	wantAt(t, d, "announcements.totalCount", 0)
}
