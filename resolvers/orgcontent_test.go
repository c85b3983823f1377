package resolvers_test

import (
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/okrgate/okrgate/resolvers"
	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/instrument"
)

// orgFixture is a fresh account with an admin (the fixture's token), a
// member and a viewer, each with a token, and one open session.
type orgFixture struct {
	*fixture
	adminID, memberID, viewerID string
	memberToken, viewerToken    string
	sessionID                   string
	permissionIDs               []string // grants fillNodes made
}

func newOrgFixture(t *testing.T, name string) *orgFixture {
	t.Helper()
	return newOrgFixtureCfg(t, name, resolvers.Config{})
}

func newOrgFixtureCfg(t *testing.T, name string, cfg resolvers.Config) *orgFixture {
	t.Helper()
	o := &orgFixture{}
	o.fixture = newFixture(t, name, cfg, nil)
	t.Cleanup(func() { o.noStrays(t); o.srv.Close(); o.store.Close() })
	st, ctx := o.store, o.ctx
	c, _ := upstream.CallerFrom(ctx)
	o.adminID = c.UserID
	mk := func(email, role string) (string, string) {
		u, err := st.CreateUser(ctx, upstream.UserInput{Email: email, FirstName: role, LastName: "User", Role: role})
		if err != nil {
			t.Fatal(err)
		}
		tok, err := st.CreateToken(ctx, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		return u.ID, tok
	}
	o.memberID, o.memberToken = mk("member@"+name+".test", "member")
	o.viewerID, o.viewerToken = mk("viewer@"+name+".test", "viewer")
	s, err := st.CreateSession(ctx, upstream.SessionInput{Title: "Q1", Start: "2026-01-01", End: "2026-03-31"})
	if err != nil {
		t.Fatal(err)
	}
	o.sessionID = s.ID
	return o
}

// doAs posts a GraphQL request with token.
func (f *fixture) doAs(tb testing.TB, token, q string, vars map[string]any) gqlResponse {
	tb.Helper()
	return f.doWith(tb, http.MethodPost, q, vars, map[string]string{"Authorization": "Bearer " + token, "Content-Type": "application/json"})
}

// run posts q as the admin and returns the data as generic JSON, failing on
// any error.
func (f *fixture) run(tb testing.TB, q string, vars map[string]any) any {
	tb.Helper()
	var out any
	f.do(tb, q, vars).mustData(tb, &out)
	return out
}

// at walks a generic JSON value by a dotted path; numbers index lists and
// "#" is the length of a list.
func at(tb testing.TB, v any, path string) any {
	tb.Helper()
	for _, p := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[p]; !ok {
				tb.Fatalf("path %s: no %q in %v", path, p, x)
			}
		case []any:
			if p == "#" {
				return float64(len(x))
			}
			i, err := strconv.Atoi(p)
			if err != nil || i >= len(x) {
				tb.Fatalf("path %s: bad index %q into %d items", path, p, len(x))
			}
			v = x[i]
		default:
			tb.Fatalf("path %s: cannot index %T with %q", path, v, p)
		}
	}
	return v
}

func str(tb testing.TB, v any, path string) string {
	tb.Helper()
	s, ok := at(tb, v, path).(string)
	if !ok {
		tb.Fatalf("%s is %v, not a string", path, at(tb, v, path))
	}
	return s
}

func wantAt(tb testing.TB, v any, path string, want any) {
	tb.Helper()
	got := at(tb, v, path)
	if w, ok := want.(int); ok {
		want = float64(w)
	}
	if !reflect.DeepEqual(got, want) {
		tb.Fatalf("%s = %#v, want %#v", path, got, want)
	}
}

// names collects the values of field over a list.
func names(tb testing.TB, v any, path, field string) []string {
	tb.Helper()
	var out []string
	for _, it := range at(tb, v, path).([]any) {
		out = append(out, fmt.Sprint(it.(map[string]any)[field]))
	}
	return out
}

func contains(xs []string, x string) bool {
	for _, s := range xs {
		if s == x {
			return true
		}
	}
	return false
}

// TestOrganisation runs every organisation query and mutation against real
// data, as the admin.
func TestOrganisation(t *testing.T) {
	o := newOrgFixture(t, "org")
	vars := func(kv ...any) map[string]any {
		m := map[string]any{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}

	// Account.
	d := o.run(t, `{ account { id name domain language owner { id } confidenceSettings { confidenceType } edition { name } subscriptions { type } trackingProperties { shouldTrack } } }`, nil)
	wantAt(t, d, "account.name", "Acme org")
	wantAt(t, d, "account.owner.id", o.adminID)
	d = o.run(t, `mutation { updateAccount(input: {language: "de"}) { language name } }`, nil)
	wantAt(t, d, "updateAccount.language", "de")
	d = o.run(t, `mutation { setConfidence(input: {confidenceType: "custom", confidenceMapping: [{color: "#ff0000", name: "low", range: {from: 0, to: 3}}, {color: "#00ff00", name: "high", range: {from: 4, to: 10}}]}) { confidenceSettings { confidenceType confidenceMapping { name range { from to } } } } }`, nil)
	wantAt(t, d, "setConfidence.confidenceSettings.confidenceType", "custom")
	wantAt(t, d, "setConfidence.confidenceSettings.confidenceMapping.1.range.to", 10)
	d = o.run(t, `mutation { setNotifications(input: {cadence: "weekly", timezone: "Europe/Berlin", checkinDeadline: {dayOfTheWeek: "monday", remindAt: {hour: 9, minute: 30}, reportChannels: {email: true}}}) { cadence timezone checkinDeadline { dayOfTheWeek remindAt { hour minute } reportChannels { email } } } }`, nil)
	wantAt(t, d, "setNotifications.timezone", "Europe/Berlin")
	wantAt(t, d, "setNotifications.checkinDeadline.remindAt.minute", 30)
	d = o.run(t, `{ account { notifications { cadence } } }`, nil)
	wantAt(t, d, "account.notifications.cadence", "weekly")
	d = o.run(t, `mutation { checkDomain(accountName: "Somebody Else", domain: "somebody-else") { accountNameAvailable domainAvailable } }`, nil)
	wantAt(t, d, "checkDomain.domainAvailable", true)

	// Users.
	d = o.run(t, `mutation { createUser(input: {email: "new@org.test", firstName: "New", lastName: "Person"}) { id email roles { name } } }`, nil)
	newID := str(t, d, "createUser.id")
	wantAt(t, d, "createUser.roles.0.name", "member")
	d = o.run(t, `mutation($id: ID!) { updateUser(id: $id, input: {firstName: "Renamed"}) { firstName } }`, vars("id", newID))
	wantAt(t, d, "updateUser.firstName", "Renamed")
	d = o.run(t, `mutation($id: ID!) { createUserToken(id: $id) { token } }`, vars("id", newID))
	if tok := str(t, d, "createUserToken.token"); tok == "" {
		t.Fatal("empty token")
	} else if r := o.doAs(t, tok, `{ viewer { id } }`, nil); r.code() != "" || !strings.Contains(string(r.Data), newID) {
		t.Fatalf("the new token does not authenticate as the new user: %s %v", r.Data, r.Errors)
	}

	// Teams.
	d = o.run(t, `mutation($m: ID!, $u: ID!) { createTeam(input: {name: "Team A", manager: $m, members: [$u]}) { id name manager { id } members { id } } }`, vars("m", o.adminID, "u", newID))
	teamID := str(t, d, "createTeam.id")
	wantAt(t, d, "createTeam.manager.id", o.adminID)
	if got := names(t, d, "createTeam.members", "id"); !contains(got, newID) {
		t.Fatalf("members = %v", got)
	}
	d = o.run(t, `mutation($p: ID!) { createTeam(input: {name: "Team A.1", parentId: $p}) { id parent { id } } }`, vars("p", teamID))
	childID := str(t, d, "createTeam.id")
	wantAt(t, d, "createTeam.parent.id", teamID)
	d = o.run(t, `mutation($id: ID!) { updateTeam(id: $id, input: {description: "the first"}) { description children { id } } }`, vars("id", teamID))
	wantAt(t, d, "updateTeam.description", "the first")
	wantAt(t, d, "updateTeam.children.0.id", childID)
	d = o.run(t, `mutation($t: ID!, $u: ID!) { addTeamMember(teamId: $t, userId: $u) { memberIds } }`, vars("t", teamID, "u", o.memberID))
	if ids := names2(at(t, d, "addTeamMember.memberIds").([]any)); !contains(ids, o.memberID) {
		t.Fatalf("memberIds after add = %v", ids)
	}
	d = o.run(t, `mutation($t: ID!, $u: ID!) { removeTeamMember(teamId: $t, userId: $u) { memberIds } }`, vars("t", teamID, "u", o.memberID))
	if ids := names2(at(t, d, "removeTeamMember.memberIds").([]any)); contains(ids, o.memberID) || !contains(ids, newID) {
		t.Fatalf("memberIds after remove = %v", ids)
	}

	// Roles and mappings.
	d = o.run(t, `mutation { createRole(input: {name: "Auditor"}) { id name builtIn } }`, nil)
	roleID := str(t, d, "createRole.id")
	wantAt(t, d, "createRole.builtIn", false)
	d = o.run(t, `mutation($id: ID!) { updateRole(id: $id, input: {description: "reads everything"}) { description } }`, vars("id", roleID))
	wantAt(t, d, "updateRole.description", "reads everything")
	d = o.run(t, `mutation($r: ID!, $t: ID!) { createRoleMapping(roleId: $r, teamId: $t) { id roleId teamId name role { id name } team { name } } }`, vars("r", roleID, "t", teamID))
	mappingID := str(t, d, "createRoleMapping.id")
	wantAt(t, d, "createRoleMapping.roleId", roleID)
	wantAt(t, d, "createRoleMapping.role.name", "Auditor")
	wantAt(t, d, "createRoleMapping.team.name", "Team A")
	d = o.run(t, `{ roleMappings { id roleId team { id } } }`, nil)
	wantAt(t, d, "roleMappings.0.id", mappingID)
	d = o.run(t, `query($t: ID!, $u: ID!) { team(id: $t) { roles { name } } user(id: $u) { direct: roles { name } all: roles(includeTeamRoles: true) { name team { id } } } }`, vars("t", teamID, "u", newID))
	wantAt(t, d, "team.roles.0.name", "Auditor")
	wantAt(t, d, "user.direct.#", 1)
	wantAt(t, d, "user.all.1.name", "Auditor")
	wantAt(t, d, "user.all.1.team.id", teamID)
	d = o.run(t, `query($id: ID!) { roles(first: 10, orderBy: [{field: name}]) { totalCount nodes { name builtIn } } role(id: $id) { name } }`, vars("id", roleID))
	if got := names(t, d, "roles.nodes", "name"); !reflect.DeepEqual(got, []string{"Auditor", "admin", "member", "viewer"}) {
		t.Fatalf("roles = %v", got)
	}
	wantAt(t, d, "role.name", "Auditor")
	d = o.run(t, `{ roles(filter: {builtIn: {eq: false}}) { totalCount } }`, nil)
	wantAt(t, d, "roles.totalCount", 1)

	// Permissions.
	d = o.run(t, `{ actions { name title } effectivePermissions { userId roles actions } }`, nil)
	if n := at(t, d, "actions.#").(float64); n < 10 {
		t.Fatalf("%v actions", n)
	}
	wantAt(t, d, "effectivePermissions.userId", o.adminID)
	d = o.run(t, `mutation($r: ID!) { createPermission(action: "goals:read", principals: [$r]) { id action principals } }`, vars("r", roleID))
	permID := str(t, d, "createPermission.id")
	d = o.run(t, `query($id: ID!) { permission(id: $id) { action principals } missing: permission(id: "nope") { id } }`, vars("id", permID))
	wantAt(t, d, "permission.action", "goals:read")
	wantAt(t, d, "missing", nil)
	d = o.run(t, `mutation($p: ID!) { setPrincipalPermissions(principalId: $p, actions: ["kpis:manage"]) { principalKind actions } }`, vars("p", newID))
	wantAt(t, d, "setPrincipalPermissions.principalKind", "user")
	if acts := names2(at(t, d, "setPrincipalPermissions.actions").([]any)); !contains(acts, "kpis:manage") {
		t.Fatalf("actions after set: %v", acts)
	}
	d = o.run(t, `query($p: ID!) { principalPermissions(principalId: $p) { actions } }`, vars("p", newID))
	if acts := names2(at(t, d, "principalPermissions.actions").([]any)); !contains(acts, "kpis:manage") {
		t.Fatalf("principalPermissions: %v", acts)
	}

	// Access.
	g, err := o.store.CreateGoal(o.ctx, upstream.GoalInput{Name: "Grow", SessionID: o.sessionID})
	if err != nil {
		t.Fatal(err)
	}
	d = o.run(t, `query($g: ID!, $s: ID!) { allowedActions(targetType: "goal", id: $g) defaultAccess(itemType: "session") { inherits permissions { principalId } } itemAccess(itemType: "session", id: $s) { inherits } goal(id: $g) { currentUserAllowedActions } }`, vars("g", g.ID, "s", o.sessionID))
	if acts := at(t, d, "allowedActions").([]any); !contains(names2(acts), "goals:update") {
		t.Fatalf("allowedActions = %v", acts)
	}
	if acts := at(t, d, "goal.currentUserAllowedActions").([]any); len(acts) == 0 {
		t.Fatal("goal.currentUserAllowedActions is empty for the admin")
	}
	d = o.run(t, `mutation($s: ID!, $u: ID!) { setItemAccess(itemType: "session", id: $s, access: {inherits: false, permissions: [{principalId: $u, principalKind: "user", grant: ["goals:read"], deny: ["goals:delete"]}]}) { inherits permissions { principalId principalKind grant deny } } }`, vars("s", o.sessionID, "u", o.memberID))
	wantAt(t, d, "setItemAccess.permissions.0.principalId", o.memberID)
	wantAt(t, d, "setItemAccess.permissions.0.grant", []any{"goals:read"})
	d = o.run(t, `query($s: ID!) { itemAccess(itemType: "session", id: $s) { permissions { deny } } }`, vars("s", o.sessionID))
	wantAt(t, d, "itemAccess.permissions.0.deny", []any{"goals:delete"})

	// Employees.
	d = o.run(t, `query($id: ID!) { employees(first: 10, orderBy: [{field: email}]) { totalCount nodes { id: userId email isManager teams { name } managedTeams { name } user { id } badges { id } } } employee(id: $id) { isManager managedTeamIds managedTeams { id } } }`, vars("id", o.adminID))
	wantAt(t, d, "employees.totalCount", 4)
	wantAt(t, d, "employee.isManager", true)
	wantAt(t, d, "employee.managedTeams.0.id", teamID)
	for i, e := range at(t, d, "employees.nodes").([]any) {
		if at(t, e, "id") != at(t, e, "user.id") {
			t.Fatalf("employee %d: user edge %v", i, at(t, e, "user"))
		}
		if at(t, e, "id") == newID && str(t, e, "teams.0.name") != "Team A" {
			t.Fatalf("new user's teams: %v", at(t, e, "teams"))
		}
	}
	d = o.run(t, `query($id: ID!) { user(id: $id) { employee { teamIds } } }`, vars("id", newID))
	wantAt(t, d, "user.employee.teamIds", []any{teamID})

	// Deletes.
	d = o.run(t, `mutation($m: ID!, $r: ID!, $t: ID!) { a: deleteRoleMapping(id: $m) b: deleteRole(id: $r) c: deleteTeam(id: $t) }`, vars("m", mappingID, "r", roleID, "t", childID))
	wantAt(t, d, "b", roleID)
	d = o.run(t, `query($t: ID!) { roleMappings { id } team(id: $t) { id } }`, vars("t", childID))
	wantAt(t, d, "roleMappings.#", 0)
	wantAt(t, d, "team", nil)
}

func names2(xs []any) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = fmt.Sprint(x)
	}
	return out
}

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

// TestOrgContentForbidden: authorization is the store's; GraphQL reports a
// refused mutation as FORBIDDEN, for a viewer trying any write and for a
// member trying an admin-only one, and nothing is written.
func TestOrgContentForbidden(t *testing.T) {
	o := newOrgFixture(t, "forbidden")
	b, err := o.store.CreateBadge(o.ctx, upstream.BadgeInput{Name: "Star"})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		who, token, q string
	}{
		{"viewer", o.viewerToken, `mutation { createBadge(input: {name: "X"}) { id } }`},
		{"viewer", o.viewerToken, `mutation { createKpiGroup(name: "X") { id } }`},
		{"viewer", o.viewerToken, `mutation { createTags(titles: ["X"]) { id } }`},
		{"viewer", o.viewerToken, `mutation { createDashboard(input: {name: "X"}) { id } }`},
		{"viewer", o.viewerToken, `mutation { createList(input: {title: "X", listType: "goal"}) { id } }`},
		{"viewer", o.viewerToken, `mutation { createAnnouncement(input: {comment: "X"}) { id } }`},
		{"viewer", o.viewerToken, `mutation { createTeam(input: {name: "X"}) { id } }`},
		{"viewer", o.viewerToken, `mutation { assignBadge(input: {badgeId: "` + b.ID + `", assigneeIds: ["` + o.viewerID + `"]}) { id } }`},
		{"member", o.memberToken, `mutation { createRole(input: {name: "X"}) { id } }`},
		{"member", o.memberToken, `mutation { createUser(input: {email: "x@forbidden.test"}) { id } }`},
		{"member", o.memberToken, `mutation { updateAccount(input: {language: "fr"}) { id } }`},
		{"member", o.memberToken, `mutation { setConfidence(input: {confidenceType: "x", confidenceMapping: []}) { id } }`},
		{"member", o.memberToken, `mutation { setPrincipalPermissions(principalId: "` + o.memberID + `", actions: ["roles:manage"]) { actions } }`},
		{"member", o.memberToken, `mutation { createPermission(action: "roles:manage", principals: ["` + o.memberID + `"]) { id } }`},
		{"member", o.memberToken, `mutation { createBadge(input: {name: "X"}) { id } }`},
		{"member", o.memberToken, `mutation { deleteBadge(id: "` + b.ID + `") }`},
		{"member", o.memberToken, `mutation { createUserToken(id: "` + o.viewerID + `") { token } }`},
		{"member", o.memberToken, `mutation { setItemAccess(itemType: "session", id: "` + o.sessionID + `", access: {inherits: false}) { inherits } }`},
	}
	for _, c := range cases {
		r := o.doAs(t, c.token, c.q, nil)
		if r.code() != "FORBIDDEN" {
			t.Errorf("%s: %s\n  got %s %+v, want FORBIDDEN", c.who, c.q, r.Data, r.Errors)
		}
	}
	d := o.run(t, `{ badges { totalCount } kpiGroups { totalCount } roles(filter: {builtIn: {eq: false}}) { totalCount } account { language } }`, nil)
	wantAt(t, d, "badges.totalCount", 1)
	wantAt(t, d, "kpiGroups.totalCount", 0)
	wantAt(t, d, "roles.totalCount", 0)
	wantAt(t, d, "account.language", at(t, o.run(t, `{ account { language } }`, nil), "account.language"))
	// Reads stay allowed.
	var v any
	o.doAs(t, o.viewerToken, `{ badges { totalCount } }`, nil).mustData(t, &v)
	wantAt(t, v, "badges.totalCount", 1)
}

// TestPrivateGoalNeverLeaks: a private goal of the admin, between a visible
// parent and a visible child and carrying a tag, never shows its name to a
// member, whatever path the query takes.
func TestPrivateGoalNeverLeaks(t *testing.T) {
	o := newOrgFixture(t, "private")
	const secret = "Top secret acquisition"
	mk := func(in upstream.GoalInput) upstream.Goal {
		in.SessionID = o.sessionID
		g, err := o.store.CreateGoal(o.ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	top := mk(upstream.GoalInput{Name: "Grow", OwnerID: o.adminID})
	hidden := mk(upstream.GoalInput{Name: secret, ParentID: top.ID, OwnerID: o.adminID, Private: true, Tags: []upstream.TagInput{{Title: "Deals"}}})
	below := mk(upstream.GoalInput{Name: "Close deal", ParentID: hidden.ID, OwnerID: o.memberID, Tags: []upstream.TagInput{{Title: "Deals"}}})
	// The admin sees it (the test would prove nothing otherwise).
	if r := o.do(t, `{ goals(first: 100) { nodes { name } } }`, nil); !strings.Contains(string(r.Data), secret) {
		t.Fatalf("the admin does not see the private goal: %s", r.Data)
	}
	vars := map[string]any{"s": o.sessionID, "top": top.ID, "hidden": hidden.ID, "below": below.ID, "admin": o.adminID}
	queries := []string{
		`{ goals(first: 100) { nodes { id name obfuscated parent { name } children { name children { name } } } } }`,
		`{ goals(first: 100, filter: {name: {regex: "(?i)secret"}}) { totalCount nodes { name } } }`,
		`query($s: ID!) { session(id: $s) { goals { name children { name } } roots: goals(roots: true) { name children { name children { name } } } } }`,
		`query($top: ID!) { goal(id: $top) { name children { id name obfuscated children { name } } } }`,
		`query($below: ID!) { goal(id: $below) { name parent { id name obfuscated parent { name } } } }`,
		`query($hidden: ID!) { goal(id: $hidden) { name } }`,
		`{ tags(first: 100) { nodes { name goals { name parent { name } } } } }`,
		`query($below: ID!) { goal(id: $below) { tags { name goals { name } } } }`,
		`query($admin: ID!) { user(id: $admin) { goals { name } } viewer { goals { name parent { name } } } }`,
		`{ sessions { nodes { goals { name } } } }`,
	}
	for _, q := range queries {
		used := map[string]any{}
		for k, v := range vars {
			if strings.Contains(q, "$"+k) {
				used[k] = v
			}
		}
		r := o.doAs(t, o.memberToken, q, used)
		if strings.Contains(string(r.Data), secret) || strings.Contains(fmt.Sprint(r.Errors), secret) {
			t.Errorf("a member sees the private goal's name: %s\n  %s %v", q, r.Data, r.Errors)
		}
		if r.code() != "" && r.code() != "NOT_FOUND" && r.code() != "FORBIDDEN" {
			t.Errorf("%s: unexpected error %v", q, r.Errors)
		}
	}
	// The visible child is there, and its parent appears obfuscated.
	var d any
	o.doAs(t, o.memberToken, `query($below: ID!) { goal(id: $below) { name parent { obfuscated } } }`, map[string]any{"below": below.ID}).mustData(t, &d)
	wantAt(t, d, "goal.name", "Close deal")
}

// TestOrgContentEdgesBatch: a query over N tags, users, teams, employees, KPI
// groups, badge assignments and announcements with every new edge costs the
// same upstream calls for N = 3 and N = 40.
func TestOrgContentEdgesBatch(t *testing.T) {
	const q = `{
  tags(first: 100) { nodes { name goals { name tags { name } } dashboards { name tags { name } } } }
  users(first: 100) { nodes { name badges { status badge { name } assignees { __typename } } roles(includeTeamRoles: true) { name team { name } } employee { teams { name } managedTeams { name } } } }
  teams(first: 100) { nodes { name badges { badge { name } assignedBy { name } } roles { name role { userCount } team { name } } members { name } } }
  employees(first: 100) { nodes { badges { badge { name } } teams { name } managedTeams { name } user { name } } }
  kpiGroups(first: 100) { nodes { name createdBy { name } kpis { name owner { name } groups { name } } } }
  kpis(first: 100) { nodes { groups { kpis { name } } } }
  badgeApprovals(first: 100) { nodes { badge { name } assignedBy { name } assignees { __typename } } }
  announcements(first: 100) { nodes { author { name } } }
  roleMappings { role { name } team { name } }
  account { owner { name } }
  goals(first: 100) { nodes { tags { goals { name } dashboards { tags { name } } } } }
  dashboards(first: 100) { nodes { tags { dashboards { name } } } }
}`
	var counts []map[string]int64
	for i, n := range []int{3, 40, 40} {
		cfg := resolvers.Config{}
		if i == 2 {
			// With a batch wait of an hour, a loader that waited instead of
			// dispatching on its last key would run into the timeout.
			cfg = resolvers.Config{Timeout: 20 * time.Second}
		}
		o := newOrgFixtureCfg(t, "batch"+strconv.Itoa(i), cfg)
		fillOrgContent(t, o, n)
		before := o.calls.Snapshot()
		var d any
		o.do(t, q, nil).mustData(t, &d)
		calls := instrument.Diff(before, o.calls.Snapshot())
		// The data is all there.
		wantAt(t, d, "tags.nodes.#", n)
		wantAt(t, d, "kpiGroups.nodes.#", n)
		for _, tg := range at(t, d, "tags.nodes").([]any) {
			wantAt(t, tg, "goals.#", 1)
			wantAt(t, tg, "dashboards.#", 1)
		}
		for _, g := range at(t, d, "kpiGroups.nodes").([]any) {
			wantAt(t, g, "kpis.#", 2)
		}
		badged := 0
		for _, u := range at(t, d, "users.nodes").([]any) {
			badged += len(at(t, u, "badges").([]any))
		}
		if badged != n {
			t.Fatalf("N=%d: %d approved user badges", n, badged)
		}
		wantAt(t, d, "badgeApprovals.nodes.#", n)
		wantAt(t, d, "roleMappings.#", n)
		t.Logf("N=%d: upstream calls %v", n, calls)
		counts = append(counts, calls)
	}
	if !reflect.DeepEqual(counts[0], counts[1]) {
		t.Fatalf("upstream calls differ: N=3 %v, N=40 %v", counts[0], counts[1])
	}
	if !reflect.DeepEqual(counts[1], counts[2]) {
		t.Fatalf("upstream calls differ without waiting: %v, with the timer %v", counts[2], counts[1])
	}
}

// fillOrgContent creates n of everything, each connected: user i in team i
// (managed by user i) with role i mapped to it; goal i and dashboard i tagged
// with tag i; badge i approved for user i and team i, plus a pending request;
// KPI group i with two KPIs owned by user i; an announcement by user i.
func fillOrgContent(t *testing.T, o *orgFixture, n int) {
	t.Helper()
	st, ctx := o.store, o.ctx
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		s := strconv.Itoa(i)
		u, err := st.CreateUser(ctx, upstream.UserInput{Email: "u" + s + "@batch.test", FirstName: "User", LastName: s})
		must(err)
		tm, err := st.CreateTeam(ctx, upstream.TeamInput{Name: "Team " + s, Manager: u.ID, Members: []string{u.ID}})
		must(err)
		r, err := st.CreateRole(ctx, upstream.RoleInput{Name: "Role " + s})
		must(err)
		_, err = st.CreateRoleMapping(ctx, upstream.RoleMappingInput{RoleID: r.ID, TeamID: tm.ID})
		must(err)
		_, err = st.CreateGoal(ctx, upstream.GoalInput{Name: "Goal " + s, SessionID: o.sessionID, OwnerID: u.ID, Tags: []upstream.TagInput{{Title: "Tag " + s}}})
		must(err)
		_, err = st.CreateDashboard(ctx, upstream.DashboardInput{Name: "Board " + s, Tags: []upstream.TagInput{{Title: "Tag " + s}}})
		must(err)
		b, err := st.CreateBadge(ctx, upstream.BadgeInput{Name: "Badge " + s})
		must(err)
		a, err := st.AssignBadge(ctx, upstream.AssignBadgeInput{BadgeID: b.ID, AssigneeIDs: []string{u.ID, tm.ID}})
		must(err)
		_, err = st.DecideBadge(ctx, a.ID, true)
		must(err)
		_, err = st.AssignBadge(ctx, upstream.AssignBadgeInput{BadgeID: b.ID, AssigneeIDs: []string{tm.ID}})
		must(err)
		g, err := st.CreateKPIGroup(ctx, upstream.KPIGroupInput{Name: "Group " + s})
		must(err)
		for _, k := range []string{"a", "b"} {
			_, err = st.CreateKPI(ctx, upstream.KPIInput{Name: "KPI " + s + k, OwnerID: u.ID, GroupIDs: []string{g.ID}})
			must(err)
		}
		_, err = st.CreateAnnouncement(ctx, upstream.AnnouncementInput{Comment: "News " + s, AuthorID: u.ID})
		must(err)
	}
}
