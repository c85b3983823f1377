package sqlstore_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
)

// TestDelegationKeepsDenies enumerates every way a caller holding
// teams:manage and roles:manage could lift a deny that names it — leaving
// the team the deny names (or the team a denied role is mapped to),
// replacing the team's members, deleting the team, deleting the role
// mapping, deleting the role — for each way a deny names it: its team, a
// role mapped to its team, a role it holds. Each is refused (the deny
// holds: the goal stays unreadable); the same change is allowed where no
// deny names the caller, and to an admin, who may still remove any member.
// On SQLite, and on PostgreSQL when OKRGATE_TEST_POSTGRES is set.
func TestDelegationKeepsDenies(t *testing.T) {
	e := newEnv(t)
	ss := e.session(upstream.SessionInput{})
	member, _ := upstream.BuiltinRoleByName(upstream.RoleMember)

	// fixture is one case's world: the caller in team, role (mapped onto
	// team when mapped, held by the caller when held), and a goal whose
	// access denies goals:read to deny ("" for none).
	type fixture struct {
		c, other         delegate
		team, role, mapp string
		goal             string
	}
	n := 0
	setup := func(names string, deny bool) fixture {
		n++
		f := fixture{c: e.person(fmt.Sprintf("lifter%d", n), "teams:manage", "roles:manage"), other: e.person(fmt.Sprintf("bystander%d", n))}
		team, err := e.store.CreateTeam(e.ctx, sqlstore.TeamInput{Name: fmt.Sprintf("denied %d", n), Members: []string{f.c.id, f.other.id}})
		if err != nil {
			t.Fatal(err)
		}
		role, err := e.store.CreateRole(e.ctx, upstream.RoleInput{Name: fmt.Sprintf("denied %d", n)})
		if err != nil {
			t.Fatal(err)
		}
		f.team, f.role = team.ID, role.ID
		m, err := e.store.CreateRoleMapping(e.ctx, upstream.RoleMappingInput{RoleID: role.ID, TeamID: team.ID})
		if err != nil {
			t.Fatal(err)
		}
		f.mapp = m.MappingID
		principal, kind := team.ID, "team"
		switch names {
		case "a role mapped to its team":
			principal, kind = role.ID, "role"
		case "a role it holds":
			principal, kind = role.ID, "role"
			if err := e.store.DeleteRoleMapping(e.ctx, m.MappingID); err != nil {
				t.Fatal(err)
			}
			if _, err := e.store.UpdateUser(e.ctx, f.c.id, upstream.UserPatch{RoleIDs: &[]string{member.ID, role.ID}}); err != nil {
				t.Fatal(err)
			}
		}
		g := e.goal(upstream.GoalInput{Name: fmt.Sprintf("denied %d", n), SessionID: ss.ID})
		f.goal = g.ID
		if deny {
			if _, err := e.store.SetItemAccess(e.ctx, "goal", g.ID, upstream.Access{Inherits: true, Permissions: []upstream.PermissionEntry{
				{PrincipalID: principal, PrincipalKind: kind, Grant: map[string]int{}, Deny: map[string]int{string(upstream.GoalsRead): 1}}}}); err != nil {
				t.Fatal(err)
			}
		}
		return f
	}
	changes := []struct {
		name  string
		names []string // the ways a deny names the caller that the change lifts
		do    func(who delegate, f fixture) error
	}{
		{"leave the team", []string{"its team", "a role mapped to its team"}, func(who delegate, f fixture) error {
			return e.store.RemoveTeamMember(who.ctx, f.team, f.c.id)
		}},
		{"replace the team's members", []string{"its team", "a role mapped to its team"}, func(who delegate, f fixture) error {
			_, err := e.store.UpdateTeam(who.ctx, f.team, upstream.TeamPatch{Members: &[]string{f.other.id}})
			return err
		}},
		{"delete the team", []string{"its team", "a role mapped to its team"}, func(who delegate, f fixture) error {
			return e.store.DeleteTeam(who.ctx, f.team)
		}},
		{"delete the role mapping", []string{"a role mapped to its team"}, func(who delegate, f fixture) error {
			return e.store.DeleteRoleMapping(who.ctx, f.mapp)
		}},
		{"delete the role", []string{"a role mapped to its team", "a role it holds"}, func(who delegate, f fixture) error {
			return e.store.DeleteRole(who.ctx, f.role)
		}},
	}
	admin := delegate{id: e.boot.UserID, ctx: e.ctx}
	for _, ch := range changes {
		for _, names := range ch.names {
			what := ch.name + ", a deny naming " + names
			f := setup(names, true)
			if _, err := e.store.GetGoal(f.c.ctx, f.goal); err == nil {
				t.Fatalf("%s: the caller reads the denied goal before the change", what)
			}
			if err := ch.do(f.c, f); upstream.ErrorCode(err) != upstream.CodeForbidden || !strings.Contains(err.Error(), "lift a deny") {
				t.Errorf("%s: %v, want forbidden (lift a deny)", what, err)
			}
			if _, err := e.store.GetGoal(f.c.ctx, f.goal); err == nil {
				t.Errorf("%s: the caller reads the denied goal after the change", what)
			}
			// Controls: without the deny the caller may; an admin may lift it.
			if err := ch.do(f.c, setup(names, false)); err != nil {
				t.Errorf("%s, without the deny: %v", ch.name, err)
			}
			if err := ch.do(admin, f); err != nil {
				t.Errorf("%s by an admin: %v", what, err)
			}
		}
	}
	// Removing another member from a denied team is not lifting one's own.
	f := setup("its team", true)
	if err := e.store.RemoveTeamMember(f.c.ctx, f.team, f.other.id); err != nil {
		t.Errorf("removing another member from a denied team: %v", err)
	}
}
