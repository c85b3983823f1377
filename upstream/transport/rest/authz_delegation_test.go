package rest_test

import (
	"strings"
	"testing"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
)

// adminRoleID is the fixed id of the built-in admin role.
var adminRoleID = func() string { b, _ := upstream.BuiltinRoleByName(upstream.RoleAdmin); return b.ID }()

// delegation is the fixture of the escalation tests: the admin's private
// goal, and a member (mallory) to whom the admin delegates one right.
type delegation struct {
	e       *env
	private string                   // the admin's private goal
	member  sqlstore.BootstrapResult // mallory, a member of acct
}

// delegationEnv is one env with the admin's private goal, shared by the
// escalation paths (each has its own member).
type delegationEnv struct {
	e       *env
	private string
}

func newDelegationEnv(t *testing.T) delegationEnv {
	t.Helper()
	e := newEnv(t)
	ss := e.ok(req{method: "POST", path: "/api/v1/sessions", body: map[string]any{
		"title": "2026 H1", "start": "2026-01-01T00:00:00.000Z", "end": "2026-06-30T00:00:00.000Z"}}, 201)
	g := e.ok(req{method: "POST", path: "/api/v1/goals", body: map[string]any{
		"name": "Board only", "sessionId": str(ss, "id"), "private": true}}, 201)
	return delegationEnv{e: e, private: str(g, "id")}
}

// member starts one path: a new member, named name, to whom the admin
// grants actions.
func (de delegationEnv) member(t *testing.T, name string, grant ...string) delegation {
	t.Helper()
	e := *de.e
	e.t = t // failures are the subtest's
	d := delegation{e: &e, private: de.private, member: e.user(name + "@acme.test")}
	if len(grant) > 0 {
		e.ok(req{method: "PUT", path: "/api/v1/permissions/principal/" + d.member.UserID,
			body: map[string]any{"actions": grant}}, 204)
	}
	d.cannotReadPrivate(d.member)
	return d
}

// user creates a member of acct through the API and mints its token (as the admin).
func (e *env) user(email string) sqlstore.BootstrapResult {
	e.t.Helper()
	u := e.ok(req{method: "POST", path: "/api/v2/users", body: map[string]any{"email": email, "firstName": strings.Split(email, "@")[0]}}, 201)
	tok := e.ok(req{method: "POST", path: "/api/v2/users/" + str(u, "id") + "/tokens", body: map[string]any{"name": "test"}}, 201)
	return sqlstore.BootstrapResult{AccountID: e.acct.AccountID, UserID: str(u, "id"), Token: str(tok, "token")}
}

// cannotReadPrivate fails unless who cannot read the admin's private goal
// and holds no admin role.
func (d delegation) cannotReadPrivate(who sqlstore.BootstrapResult) {
	d.e.t.Helper()
	d.e.problem(req{method: "GET", path: "/api/v1/goals/" + d.private, as: &who}, 404, "not_found")
	eff := d.e.ok(req{method: "GET", path: "/api/v1/permissions/effective", as: &who}, 200)
	for _, r := range eff["roles"].([]any) {
		if r == upstream.RoleAdmin {
			d.e.t.Fatalf("%s holds the admin role: %v", who.UserID, eff)
		}
	}
}

// refused performs q as mallory and fails unless it is a 403 problem whose
// detail contains want.
func (d delegation) refused(q req, want string) {
	d.e.t.Helper()
	q.as = &d.member
	p := d.e.problem(q, 403, "forbidden")
	if detail := str(p, "detail"); !strings.Contains(detail, want) {
		d.e.t.Errorf("%s %s: detail %q, want it to name %q", q.method, q.path, detail, want)
	}
}

// TestEscalationThroughDelegation: the five escalation paths of the
// security review, each ending without admin rights for the member (it
// cannot read the admin's private goal); and who is privileged.
func TestEscalationThroughDelegation(t *testing.T) {
	de := newDelegationEnv(t)
	t.Run("roles:manage maps admin onto own team", func(t *testing.T) { rolesManageMapsAdminOntoOwnTeam(de.member(t, "roles", "roles:manage")) })
	t.Run("permissions:manage grants itself users:manage", func(t *testing.T) {
		permissionsManageGrantsItselfUsersManage(de.member(t, "perms", "permissions:manage"))
	})
	t.Run("users:manage makes itself admin", func(t *testing.T) { usersManageMakesItselfAdmin(de.member(t, "users", "users:manage")) })
	t.Run("users:manage makes another user admin", func(t *testing.T) {
		usersManageMakesAnotherUserAdmin(de.member(t, "users2", "users:manage"))
	})
	t.Run("teams:manage joins the admin team", func(t *testing.T) { teamsManageJoinsAdminTeam(de.member(t, "teams", "teams:manage")) })
	t.Run("tokens for privileged users", func(t *testing.T) { tokensForPrivilegedUsers(de.member(t, "minter", "users:manage")) })
}

func rolesManageMapsAdminOntoOwnTeam(d delegation) {
	team := d.e.ok(req{method: "POST", path: "/api/v1/teams", body: map[string]any{"name": "Mallory's", "members": []string{d.member.UserID}}}, 201)
	d.refused(req{method: "POST", path: "/api/v1/roles/account/mapping", body: map[string]any{"roleId": adminRoleID, "teamId": str(team, "id")}}, "admin")
	d.cannotReadPrivate(d.member)
}

func permissionsManageGrantsItselfUsersManage(d delegation) {
	d.refused(req{method: "PUT", path: "/api/v1/permissions/principal/" + d.member.UserID,
		body: map[string]any{"actions": []string{"permissions:manage", "users:manage"}}}, "users:manage")
	d.refused(req{method: "POST", path: "/api/v1/permissions",
		body: map[string]any{"action": "users:manage", "principals": []string{d.member.UserID}}}, "users:manage")
	d.refused(req{method: "PATCH", path: "/api/v2/users/" + d.member.UserID, body: map[string]any{"roleIds": []string{adminRoleID}}}, "users:manage")
	d.cannotReadPrivate(d.member)
}

func usersManageMakesItselfAdmin(d delegation) {
	d.refused(req{method: "PATCH", path: "/api/v2/users/" + d.member.UserID, body: map[string]any{"roleIds": []string{adminRoleID}}}, "admin")
	d.cannotReadPrivate(d.member)
	// Admins are privileged: a delegated manager neither deactivates nor
	// demotes them; it still manages members.
	d.refused(req{method: "PATCH", path: "/api/v2/users/" + d.e.acct.UserID, body: map[string]any{"isActive": false}}, "only an admin")
	member, _ := upstream.BuiltinRoleByName(upstream.RoleMember)
	d.refused(req{method: "PATCH", path: "/api/v2/users/" + d.e.acct.UserID, body: map[string]any{"roleIds": []string{member.ID}}}, "only an admin")
	other := d.e.user("bob@acme.test")
	d.e.ok(req{method: "PATCH", path: "/api/v2/users/" + other.UserID, as: &d.member, body: map[string]any{"isActive": false}}, 200)
}

func usersManageMakesAnotherUserAdmin(d delegation) {
	// A puppet the member creates and holds a token of.
	puppet := d.e.ok(req{method: "POST", path: "/api/v2/users", as: &d.member, body: map[string]any{"email": "puppet@acme.test"}}, 201)
	tok := d.e.ok(req{method: "POST", path: "/api/v2/users/" + str(puppet, "id") + "/tokens", as: &d.member, body: map[string]any{}}, 201)
	p := sqlstore.BootstrapResult{AccountID: d.e.acct.AccountID, UserID: str(puppet, "id"), Token: str(tok, "token")}
	d.refused(req{method: "PATCH", path: "/api/v2/users/" + p.UserID, body: map[string]any{"roleIds": []string{adminRoleID}}}, "admin")
	d.refused(req{method: "POST", path: "/api/v2/users", body: map[string]any{"email": "boss@acme.test", "roleIds": []string{adminRoleID}}}, "admin")
	d.cannotReadPrivate(p)
	d.cannotReadPrivate(d.member)
}

func teamsManageJoinsAdminTeam(d delegation) {
	board := d.e.ok(req{method: "POST", path: "/api/v1/teams", body: map[string]any{"name": "Board"}}, 201)
	d.e.ok(req{method: "POST", path: "/api/v1/roles/account/mapping", body: map[string]any{"roleId": adminRoleID, "teamId": str(board, "id")}}, 201)
	d.refused(req{method: "PUT", path: "/api/v1/teams/" + str(board, "id") + "/members/" + d.member.UserID}, "admin")
	d.refused(req{method: "PATCH", path: "/api/v1/teams/" + str(board, "id"), body: map[string]any{"members": []string{d.member.UserID}}}, "admin")
	d.refused(req{method: "PATCH", path: "/api/v1/teams/" + str(board, "id"), body: map[string]any{"manager": d.member.UserID}}, "admin")
	d.cannotReadPrivate(d.member)
}

// tokensForPrivilegedUsers: a user who holds a right that changes who
// holds what is privileged, so an admin cannot mint tokens for them; and a
// delegated users:manage cannot mint a token for a user who holds rights
// it lacks.
func tokensForPrivilegedUsers(d delegation) {
	for _, right := range []string{"roles:manage", "permissions:manage", "teams:manage", "users:manage"} {
		u := d.e.user(strings.ReplaceAll(right, ":", "-") + "@acme.test")
		d.e.ok(req{method: "PUT", path: "/api/v1/permissions/principal/" + u.UserID, body: map[string]any{"actions": []string{right}}}, 204)
		p := d.e.problem(req{method: "POST", path: "/api/v2/users/" + u.UserID + "/tokens", body: map[string]any{}}, 403, "forbidden")
		if !strings.Contains(str(p, "detail"), "privileged") {
			d.e.t.Errorf("token for a holder of %s: detail %q", right, str(p, "detail"))
		}
	}
	mgr := d.e.user("manager@acme.test")
	d.e.ok(req{method: "PUT", path: "/api/v1/permissions/principal/" + mgr.UserID, body: map[string]any{"actions": []string{"sessions:manage"}}}, 204)
	d.refused(req{method: "POST", path: "/api/v2/users/" + mgr.UserID + "/tokens", body: map[string]any{}}, "sessions:manage")
}
