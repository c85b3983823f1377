package resolvers_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/okrgate/okrgate/upstream"
)

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
