package upstream

import (
	"strings"
	"testing"
)

func everyAction() []Action {
	var out []Action
	for _, d := range Actions() {
		out = append(out, Action(d.Name))
	}
	return out
}

func builtin(name string) string { b, _ := BuiltinRoleByName(name); return b.ID }

func TestRightsMissing(t *testing.T) {
	h := Holdings{}
	member, viewer, admin := h.Role(builtin(RoleMember)), h.Role(builtin(RoleViewer)), h.Role(builtin(RoleAdmin))
	for _, tc := range []struct {
		name         string
		give, holder Rights
		want         string
	}{
		{"member to a viewer", member, viewer, "goals:create, goals:update:own, goals:delete:own, metrics:create, metrics:update:own, metrics:delete:own, metrics:checkin:own, tasks:create, tasks:update:own, tasks:delete:own, badges:assign, dashboards:edit:own, comments:create"},
		{"viewer to a member", viewer, member, ""},
		{"admin to a member", admin, member, "admin"},
		{"anything to an admin", admin, admin, ""},
		{"own covered by everywhere", member, viewer.with(GoalsCreate, GoalsUpdate, GoalsDelete, MetricsCreate, MetricsUpdate, MetricsDelete, MetricsCheckIn, TasksCreate, TasksUpdate, TasksDelete, BadgesAssign, DashboardsEdit, CommentsCreate), ""},
		{"a grant", ActionRights(UsersManage, RolesRead), member, "users:manage"},
	} {
		if got := strings.Join(tc.give.Missing(tc.holder), ", "); got != tc.want {
			t.Errorf("%s: missing %q, want %q", tc.name, got, tc.want)
		}
	}
}

// with returns r with actions granted.
func (r Rights) with(actions ...Action) Rights {
	out := Rights{Admin: r.Admin, Always: map[Action]bool{}, Own: map[Action]bool{}}
	for a, ok := range r.Always {
		out.Always[a] = ok
	}
	for a, ok := range r.Own {
		out.Own[a] = ok
	}
	for _, a := range actions {
		out.Always[a] = true
	}
	return out
}

func TestRightsPrivileged(t *testing.T) {
	h := Holdings{}
	member := h.Role(builtin(RoleMember))
	if member.Privileged() || h.Role(builtin(RoleViewer)).Privileged() || member.with(SessionsManage, AccountManage).Privileged() {
		t.Error("a member, a viewer or a session manager is privileged")
	}
	for _, a := range DelegationActions() {
		if !member.with(a).Privileged() {
			t.Errorf("a holder of %s is not privileged", a)
		}
	}
	if !h.Role(builtin(RoleAdmin)).Privileged() || !ActionRights(everyAction()...).Privileged() || !ActionRights(everyAction()...).AmountsToAdmin() {
		t.Error("an admin, or a holder of every action, is not privileged")
	}
	if ActionRights(everyAction()[1:]...).AmountsToAdmin() {
		t.Error("all actions but one amount to admin")
	}
}

func TestMayConfer(t *testing.T) {
	h := Holdings{}
	admin, member, viewer := h.Role(builtin(RoleAdmin)), h.Role(builtin(RoleMember)), h.Role(builtin(RoleViewer))
	roles := member.with(RolesManage)
	all := ActionRights(everyAction()...)
	for _, tc := range []struct {
		name   string
		caller Rights
		c      Conferral
		want   string // a part of the refusal, "" when allowed
	}{
		{"admin gives admin", admin, Conferral{Gives: admin, Before: member, After: admin}, ""},
		{"admin takes admin", admin, Conferral{Before: admin, After: member}, ""},
		{"member gives admin", roles, Conferral{Target: `team "t"`, Gives: admin, Before: member, After: admin}, `only an admin may give the admin role: the change would make team "t" an admin`},
		{"member makes an admin by any way", roles, Conferral{Gives: viewer, Before: member, After: admin}, "only an admin may give the admin role"},
		{"member takes admin", roles, Conferral{Target: `user "u"`, Before: admin, After: member}, `only an admin may take the admin role from user "u"`},
		{"member gives member", roles, Conferral{Gives: member, Before: viewer, After: member}, ""},
		{"viewer gives member", viewer.with(RolesManage), Conferral{Target: `team "t"`, Gives: member, Before: viewer, After: member}, `you may not give team "t" goals:create, goals:update:own`},
		{"member grants what it lacks", member.with(PermsManage), Conferral{Target: `user "u"`, Gives: ActionRights(UsersManage), Before: member, After: member.with(UsersManage)}, `you may not give user "u" users:manage: you do not hold it yourself`},
		{"member grants what it holds", member.with(PermsManage, UsersManage), Conferral{Gives: ActionRights(UsersManage), Before: member, After: member.with(UsersManage)}, ""},
		{"every action to one who lacks one", all, Conferral{Target: `user "u"`, Gives: ActionRights(everyAction()[0]), Before: ActionRights(everyAction()[1:]...), After: all}, "rights that together amount to admin"},
		{"every action to one who has them", all, Conferral{Gives: ActionRights(GoalsRead), Before: all, After: all}, ""},
		{"taking away is not giving", viewer.with(RolesManage), Conferral{Before: member, After: viewer}, ""},
		{"lifting a deny that names oneself", roles.with(TeamsManage), Conferral{Target: `user "me"`, Self: true, Lifted: []string{"t1"}, Before: member, After: member}, "only an admin may lift a deny that names you: the change takes you out of t1"},
		{"lifting it by dropping a role", roles, Conferral{Self: true, Lifted: []string{"r1", "t1"}, Before: member, After: viewer}, "out of r1, t1"},
		{"admin lifts a deny that names it", admin, Conferral{Self: true, Lifted: []string{"t1"}, Before: admin, After: admin}, ""},
		{"lifting a deny from another", roles.with(TeamsManage), Conferral{Target: `user "u"`, Lifted: []string{"t1"}, Before: member, After: member}, ""},
		{"leaving what no deny names", roles.with(TeamsManage), Conferral{Self: true, Before: member, After: member}, ""},
	} {
		err := MayConfer(tc.caller, tc.c)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (ErrorCode(err) != CodeForbidden || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want forbidden %q", tc.name, err, tc.want)
		}
	}
}

func TestMayManageUser(t *testing.T) {
	h := Holdings{}
	admin, member, viewer := h.Role(builtin(RoleAdmin)), h.Role(builtin(RoleMember)), h.Role(builtin(RoleViewer))
	mgr := member.with(UsersManage)
	for _, tc := range []struct {
		name           string
		caller, target Rights
		want           string
	}{
		{"admin, an admin", admin, admin, ""},
		{"manager, a member", mgr, member, ""},
		{"manager, a viewer", mgr, viewer, ""},
		{"manager, an admin", mgr, admin, "they hold the admin role"},
		{"manager, another manager", mgr, mgr, "they hold users:manage"},
		{"manager, a team manager", mgr, member.with(TeamsManage), "they hold teams:manage"},
		{"manager, a session manager", mgr, member.with(SessionsManage), "they hold sessions:manage, which you do not"},
	} {
		err := MayManageUser(tc.caller, `user "u"`, tc.target)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (ErrorCode(err) != CodeForbidden || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want forbidden %q", tc.name, err, tc.want)
		}
	}
}

func TestHoldings(t *testing.T) {
	h := Holdings{
		TeamRoles: map[string][]string{"board": {builtin(RoleAdmin)}, "ops": {"r-ops"}},
		Grants:    map[string][]Action{"r-ops": {SessionsManage}, "u1": {TagsManage}},
	}
	viewer := []UserRole{{ID: builtin(RoleViewer), Name: RoleViewer}}
	if r := h.User("u1", viewer, []string{"ops"}); r.Admin || !r.Holds(SessionsManage) || !r.Holds(TagsManage) || !r.Holds(GoalsRead) || r.Holds(GoalsCreate) {
		t.Errorf("viewer in ops with a grant: %+v", r)
	}
	if !h.User("u2", viewer, []string{"board"}).Admin || !h.Team("board").Admin || h.Team("ops").Admin {
		t.Error("the board team does not make admins")
	}
	if r := h.Role("r-ops"); !r.Holds(SessionsManage) || r.Holds(GoalsRead) {
		t.Errorf("role r-ops: %+v", r)
	}
	c := h.Clone()
	c.TeamRoles["ops"] = append(c.TeamRoles["ops"], builtin(RoleAdmin))
	c.Grants["u1"] = append(c.Grants["u1"], UsersManage)
	if h.Team("ops").Admin || h.User("u1", viewer, nil).Holds(UsersManage) || !c.Team("ops").Admin || !c.User("u1", viewer, nil).Holds(UsersManage) {
		t.Error("a change to a clone shows in the original, or not in the clone")
	}
}
