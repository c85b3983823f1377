package sqlstore_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
)

// delegate is a user of the env's account, with its context.
type delegate struct {
	id  string
	ctx context.Context
}

// person creates a member named name, granted actions by the admin, and
// returns it authenticated by a token of its own.
func (e *env) person(name string, actions ...string) delegate {
	e.t.Helper()
	u, err := e.store.CreateUser(e.ctx, sqlstore.UserInput{Email: name + "@acme.test", FirstName: name})
	if err != nil {
		e.t.Fatal(err)
	}
	tok, err := e.store.CreateUserToken(e.ctx, u.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	if len(actions) > 0 {
		if err := e.store.SetPrincipalPermissions(e.ctx, u.ID, upstream.PrincipalPermissionsInput{Actions: actions}); err != nil {
			e.t.Fatal(err)
		}
	}
	c, err := e.store.Authenticate(context.Background(), tok.Token)
	if err != nil {
		e.t.Fatal(err)
	}
	return delegate{id: u.ID, ctx: upstream.NewContext(context.Background(), c)}
}

// rights reads what who holds, as GET /api/v1/permissions/effective shows it.
func (e *env) rights(who delegate) []string {
	e.t.Helper()
	p, err := e.store.EffectivePermissions(who.ctx)
	if err != nil {
		e.t.Fatal(err)
	}
	out := p.Actions
	if slices.Contains(p.Roles, upstream.RoleAdmin) {
		out = append(out, upstream.RoleAdmin)
	}
	return out
}

// above lists what target holds beyond holder (an action held only on
// owned items is covered by the same action held everywhere).
func above(target, holder []string) []string {
	var out []string
	for _, a := range target {
		if !slices.Contains(holder, a) && !slices.Contains(holder, strings.TrimSuffix(a, ":own")) {
			out = append(out, a)
		}
	}
	return out
}

// TestDelegationNeverEndsAboveTheCaller enumerates every delegable right —
// each action of the catalogue, and the admin role — and every path to a
// role: mapping a role onto a team, joining a team (oneself or another),
// assigning roles (to another user, to a new user, to oneself) and granting
// actions (to oneself, to another user, to a role another user holds).
// The caller is a member holding only the right that opens the path. Every
// change must be refused exactly when it would give what the caller does
// not hold (or the admin role, or its own roles), and no path may end with
// the caller or the other user holding anything the caller did not hold at
// the start, nor with either reading the admin's private goal. On SQLite,
// and on PostgreSQL when OKRGATE_TEST_POSTGRES is set.
func TestDelegationNeverEndsAboveTheCaller(t *testing.T) {
	e := newEnv(t)
	ss := e.session(upstream.SessionInput{})
	private := e.goal(upstream.GoalInput{Name: "Board only", SessionID: ss.ID, Private: true})
	adminRole, _ := upstream.BuiltinRoleByName(upstream.RoleAdmin)
	member, _ := upstream.BuiltinRoleByName(upstream.RoleMember)
	memberRole := member.ID

	// Each right is carried by a role (an account role granted the action,
	// or the admin role) and by a team mapped to that role.
	type right struct{ name, role, team string }
	var rights []right
	for i, d := range append([]upstream.ActionDescriptor{{Name: upstream.RoleAdmin}}, upstream.Actions()...) {
		r := right{name: d.Name, role: adminRole.ID}
		if d.Name != upstream.RoleAdmin {
			role, err := e.store.CreateRole(e.ctx, upstream.RoleInput{Name: fmt.Sprintf("carries %d", i)})
			if err != nil {
				t.Fatal(err)
			}
			if err := e.store.SetPrincipalPermissions(e.ctx, role.ID, upstream.PrincipalPermissionsInput{Actions: []string{d.Name}}); err != nil {
				t.Fatal(err)
			}
			r.role = role.ID
		}
		team, err := e.store.CreateTeam(e.ctx, sqlstore.TeamInput{Name: "carries " + d.Name})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.store.CreateRoleMapping(e.ctx, upstream.RoleMappingInput{RoleID: r.role, TeamID: team.ID}); err != nil {
			t.Fatal(err)
		}
		r.team = team.ID
		rights = append(rights, r)
	}

	// A path: the action that opens it, and its changes of right r by
	// caller c for the other user o; self says which change targets the
	// caller itself.
	type change struct {
		name string
		self bool
		do   func(c, o delegate, r right, p *pathState) error
	}
	// undo gives the other user back its roles, so that a role it got
	// (users:manage, say) does not make it privileged for the next right.
	undo := func(o delegate, p *pathState) {
		if _, err := e.store.UpdateUser(e.ctx, o.id, upstream.UserPatch{RoleIDs: &[]string{memberRole, p.role}}); err != nil {
			t.Fatal(err)
		}
	}
	paths := []struct {
		name, opens string
		changes     []change
	}{
		{"mapping", "roles:manage", []change{
			{"map the role onto the caller's team", true, func(c, o delegate, r right, p *pathState) error {
				_, err := e.store.CreateRoleMapping(c.ctx, upstream.RoleMappingInput{RoleID: r.role, TeamID: p.team})
				return err
			}},
		}},
		{"team membership", "teams:manage", []change{
			{"join the team", true, func(c, o delegate, r right, _ *pathState) error {
				_, err := e.store.AddTeamMember(c.ctx, r.team, c.id)
				return err
			}},
			{"add the other user to the team", false, func(c, o delegate, r right, _ *pathState) error {
				_, err := e.store.UpdateTeam(c.ctx, r.team, upstream.TeamPatch{Members: &[]string{o.id}})
				return err
			}},
		}},
		{"direct assignment", "users:manage", []change{
			{"assign the role to the other user", false, func(c, o delegate, r right, p *pathState) error {
				_, err := e.store.UpdateUser(c.ctx, o.id, upstream.UserPatch{RoleIDs: &[]string{memberRole, r.role}})
				defer undo(o, p)
				return err
			}},
			{"create a user with the role", false, func(c, o delegate, r right, p *pathState) error {
				p.n++
				_, err := e.store.CreateUser(c.ctx, sqlstore.UserInput{Email: fmt.Sprintf("new%d@acme.test", p.n), RoleIDs: []string{r.role}})
				return err
			}},
			{"assign the role to oneself", true, func(c, o delegate, r right, _ *pathState) error {
				_, err := e.store.UpdateUser(c.ctx, c.id, upstream.UserPatch{RoleIDs: &[]string{memberRole, r.role}})
				return err
			}},
		}},
		{"principal permissions", "permissions:manage", []change{
			{"grant oneself", true, func(c, o delegate, r right, _ *pathState) error {
				return e.store.SetPrincipalPermissions(c.ctx, c.id, upstream.PrincipalPermissionsInput{Actions: append(grantsOf(r.name), "permissions:manage")})
			}},
			{"grant the other user", false, func(c, o delegate, r right, _ *pathState) error {
				var refused error
				for _, a := range grantsOf(r.name) {
					if _, err := e.store.CreatePermission(c.ctx, upstream.PermissionInput{Action: a, Principals: []string{o.id}}); err != nil {
						refused = err
					}
				}
				return refused
			}},
			{"grant a role the other user holds", false, func(c, o delegate, r right, p *pathState) error {
				return e.store.SetPrincipalPermissions(c.ctx, p.role, upstream.PrincipalPermissionsInput{Actions: grantsOf(r.name)})
			}},
		}},
	}
	for _, path := range paths {
		t.Run(path.name, func(t *testing.T) {
			c, o := e.person("caller-"+path.opens[:4], path.opens), e.person("other-"+path.opens[:4])
			p := &pathState{}
			team, err := e.store.CreateTeam(e.ctx, sqlstore.TeamInput{Name: "own " + path.name, Members: []string{c.id, o.id}})
			if err != nil {
				t.Fatal(err)
			}
			role, err := e.store.CreateRole(e.ctx, upstream.RoleInput{Name: "held by the other " + path.name})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := e.store.UpdateUser(e.ctx, o.id, upstream.UserPatch{RoleIDs: &[]string{memberRole, role.ID}}); err != nil {
				t.Fatal(err)
			}
			p.team, p.role = team.ID, role.ID
			start := e.rights(c)
			for _, r := range rights {
				for _, ch := range path.changes {
					err := ch.do(c, o, r, p)
					allowed := slices.Contains(start, r.name) && r.name != upstream.RoleAdmin && !(ch.self && path.opens == "users:manage")
					switch {
					case allowed && err != nil:
						t.Errorf("%s %s: refused: %v", ch.name, r.name, err)
					case !allowed && upstream.ErrorCode(err) != upstream.CodeForbidden:
						t.Errorf("%s %s: %v, want forbidden", ch.name, r.name, err)
					}
					for who, d := range map[string]delegate{"the caller": c, "the other user": o} {
						if got := above(e.rights(d), start); len(got) > 0 {
							t.Fatalf("%s %s: %s holds %v beyond the caller's rights", ch.name, r.name, who, got)
						}
					}
				}
			}
			for _, d := range []delegate{c, o} {
				if _, err := e.store.GetGoal(d.ctx, private.ID); upstream.ErrorCode(err) != upstream.CodeNotFound {
					t.Errorf("user %s reads the admin's private goal: %v", d.id, err)
				}
			}
		})
	}
}

// pathState is what one path's changes share: the caller's own team, the
// role the other user holds, and a count of new users.
type pathState struct {
	team, role string
	n          int
}

// grantsOf are the actions a grant of right gives: the admin role is every
// action, which no one but an admin may grant.
func grantsOf(right string) []string {
	if right != upstream.RoleAdmin {
		return []string{right}
	}
	var all []string
	for _, d := range upstream.Actions() {
		all = append(all, d.Name)
	}
	return all
}

// TestDelegationAdminOnlyChanges: rights that together amount to admin are
// given only by an admin, even by a caller who holds every action; and
// only an admin takes the admin role away (unmapping it, removing a member
// of a team mapped to it, deleting such a team).
func TestDelegationAdminOnlyChanges(t *testing.T) {
	e := newEnv(t)
	every := grantsOf(upstream.RoleAdmin)
	boss := e.person("boss", every...) // every action, but not the admin role
	o := e.person("other")
	forbidden := func(what string, err error, want string) {
		t.Helper()
		if upstream.ErrorCode(err) != upstream.CodeForbidden || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want forbidden %q", what, err, want)
		}
	}
	err := e.store.SetPrincipalPermissions(boss.ctx, o.id, upstream.PrincipalPermissionsInput{Actions: every})
	forbidden("grant every action", err, "amount to admin")
	last := string(upstream.AccountManage) // not a member's
	allBut := slices.DeleteFunc(slices.Clone(every), func(a string) bool { return a == last })
	if err := e.store.SetPrincipalPermissions(boss.ctx, o.id, upstream.PrincipalPermissionsInput{Actions: allBut}); err != nil {
		t.Fatalf("grant all but one action: %v", err)
	}
	_, err = e.store.CreatePermission(boss.ctx, upstream.PermissionInput{Action: last, Principals: []string{o.id}})
	forbidden("grant the last action", err, "amount to admin")

	adminRole, _ := upstream.BuiltinRoleByName(upstream.RoleAdmin)
	board, err := e.store.CreateTeam(e.ctx, sqlstore.TeamInput{Name: "Board", Members: []string{e.boot.UserID, o.id}})
	if err != nil {
		t.Fatal(err)
	}
	m, err := e.store.CreateRoleMapping(e.ctx, upstream.RoleMappingInput{RoleID: adminRole.ID, TeamID: board.ID})
	if err != nil {
		t.Fatal(err)
	}
	forbidden("unmap admin", e.store.DeleteRoleMapping(boss.ctx, m.MappingID), "take the admin role")
	forbidden("remove a member", e.store.RemoveTeamMember(boss.ctx, board.ID, o.id), "take the admin role")
	_, err = e.store.UpdateTeam(boss.ctx, board.ID, upstream.TeamPatch{Members: &[]string{e.boot.UserID}})
	forbidden("replace the members", err, "take the admin role")
	forbidden("delete the team", e.store.DeleteTeam(boss.ctx, board.ID), "take the admin role")
	// The bootstrap admin holds the admin role itself: leaving the team
	// takes nothing from it.
	if err := e.store.RemoveTeamMember(boss.ctx, board.ID, e.boot.UserID); err != nil {
		t.Errorf("remove a member who stays admin: %v", err)
	}
	if err := e.store.RemoveTeamMember(e.ctx, board.ID, o.id); err != nil {
		t.Errorf("the admin removes a member: %v", err)
	}
}
