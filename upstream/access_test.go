package upstream

import (
	"slices"
	"strings"
	"testing"
)

const (
	adminRole  = "000000000000000000000001"
	memberRole = "000000000000000000000002"
	viewerRole = "000000000000000000000003"
	customRole = "aaaaaaaaaaaaaaaaaaaaaaaa"
)

func TestResolveRoleIDs(t *testing.T) {
	for _, tc := range []struct {
		name  string
		roles []UserRole
		teams []string
		want  []string
	}{
		{"built-in by name", []UserRole{{Name: RoleMember}}, nil, []string{memberRole}},
		{"built-in by legacy id", []UserRole{{ID: "role-viewer", Name: RoleViewer}}, nil, []string{viewerRole}},
		{"built-in by id", []UserRole{{ID: adminRole, Name: RoleAdmin}}, nil, []string{adminRole}},
		{"account role keeps its id", []UserRole{{ID: customRole, Name: RoleAdmin + "s"}}, nil, []string{customRole}},
		{"a name that is not built-in with a foreign id", []UserRole{{ID: customRole, Name: RoleAdmin}}, nil, []string{customRole}},
		{"team roles follow, without repeats", []UserRole{{Name: RoleMember}}, []string{customRole, memberRole, customRole},
			[]string{memberRole, customRole}},
		{"nothing", nil, nil, []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ResolveRoleIDs(tc.roles, tc.teams); !slices.Equal(got, tc.want) {
				t.Fatalf("ResolveRoleIDs = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestSubjectFactsPrincipals(t *testing.T) {
	f := SubjectFacts{UserID: "u", RoleIDs: []string{"r2", "r1"}, TeamIDs: []string{"t1", "r1"}}
	if got, want := f.Principals(), []string{"r1", "r2", "t1", "u"}; !slices.Equal(got, want) {
		t.Fatalf("Principals = %v, want %v", got, want)
	}
	// A role alone (no user) is a subject whose one principal is the role.
	if got := (SubjectFacts{RoleIDs: []string{"r"}}).Principals(); !slices.Equal(got, []string{"r"}) {
		t.Fatalf("role Principals = %v", got)
	}
	if got := NewSubject(f).Principals(); !slices.Equal(got, []string{"r1", "r2", "t1", "u"}) {
		t.Fatalf("Subject.Principals = %v", got)
	}
}

// subjects used across the decision tests: "u" is the caller's user id,
// "team" one of its teams.
func member() *Subject {
	return NewSubject(SubjectFacts{UserID: "u", RoleIDs: []string{memberRole}, TeamIDs: []string{"team"}})
}
func viewer() *Subject { return NewSubject(SubjectFacts{UserID: "u", RoleIDs: []string{viewerRole}}) }
func admin() *Subject  { return NewSubject(SubjectFacts{UserID: "u", RoleIDs: []string{adminRole}}) }
func custom(grants ...Action) *Subject {
	return NewSubject(SubjectFacts{UserID: "u", RoleIDs: []string{customRole}, TeamIDs: []string{"team"}, Grants: grants})
}

func TestNewSubject(t *testing.T) {
	for _, tc := range []struct {
		name      string
		sub       *Subject
		admin     bool
		roleNames []string
		actions   []string // a sample of ActionList
		absent    []string
	}{
		{"admin holds everything", admin(), true, []string{RoleAdmin}, []string{"goals:delete", "permissions:manage"}, nil},
		{"member reads, creates and edits what it owns", member(), false, []string{RoleMember},
			[]string{"goals:read", "goals:create", "goals:update:own", "metrics:checkin:own", "dashboards:edit:own"},
			[]string{"goals:update", "sessions:manage", "permissions:manage"}},
		{"viewer reads", viewer(), false, []string{RoleViewer}, []string{"goals:read", "announcements:read"},
			[]string{"goals:create", "goals:update:own"}},
		{"an account role holds its grants", custom(GoalsUpdate), false, nil, []string{"goals:update"}, []string{"goals:read"}},
		{"a grant to a member makes an own action account-wide", NewSubject(SubjectFacts{UserID: "u", RoleIDs: []string{memberRole},
			Grants: []Action{GoalsUpdate}}), false, []string{RoleMember}, []string{"goals:update"}, []string{"goals:update:own"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.sub.Admin != tc.admin {
				t.Errorf("Admin = %v", tc.sub.Admin)
			}
			if !slices.Equal(tc.sub.RoleNames, tc.roleNames) {
				t.Errorf("RoleNames = %v, want %v", tc.sub.RoleNames, tc.roleNames)
			}
			got := tc.sub.ActionList()
			for _, a := range tc.actions {
				if !slices.Contains(got, a) {
					t.Errorf("ActionList lacks %s: %v", a, got)
				}
			}
			for _, a := range tc.absent {
				if slices.Contains(got, a) {
					t.Errorf("ActionList holds %s: %v", a, got)
				}
			}
		})
	}
}

func TestSubjectOwns(t *testing.T) {
	sub := member()
	for _, tc := range []struct {
		owners []string
		want   bool
	}{{[]string{"u"}, true}, {[]string{"x", "team"}, true}, {[]string{"x"}, false}, {nil, false}, {[]string{memberRole}, false}} {
		if got := sub.Owns(tc.owners); got != tc.want {
			t.Errorf("Owns(%v) = %v, want %v", tc.owners, got, tc.want)
		}
	}
	if got := sub.OwnerPrincipals(); !slices.Equal(got, []string{"u", "team"}) {
		t.Errorf("OwnerPrincipals = %v", got)
	}
}

func entry(principal string, grant, deny []string) PermissionEntry {
	e := PermissionEntry{PrincipalID: principal, Grant: map[string]int{}, Deny: map[string]int{}}
	for _, a := range grant {
		e.Grant[a] = 1
	}
	for _, a := range deny {
		e.Deny[a] = 1
	}
	return e
}

func owners(grant, deny []string) *OwnerPermissions {
	e := entry("", grant, deny)
	return &OwnerPermissions{Grant: e.Grant, Deny: e.Deny}
}

func TestAllowed(t *testing.T) {
	openSession := &Session{ID: "s", Inherits: true, Permissions: []PermissionEntry{}}
	denyingSession := &Session{ID: "s", Inherits: true, Permissions: []PermissionEntry{entry("u", nil, []string{"goals:read"})}}
	grantingSession := &Session{ID: "s", Inherits: true, Permissions: []PermissionEntry{entry("team", []string{"goals:update"}, nil)}}
	ownerGrantSession := &Session{ID: "s", Inherits: true, OwnerPermissions: owners([]string{"goals:update"}, nil)}
	ownerDenySession := &Session{ID: "s", Inherits: true, OwnerPermissions: owners(nil, []string{"*"})}
	goal := func(ownerIDs []string, a *Access) *Item {
		return GoalItem(Goal{ID: "g", SessionID: "s", OwnerIDs: ownerIDs, Access: a})
	}
	for _, tc := range []struct {
		name string
		sub  *Subject
		a    Action
		it   *Item
		sess *Session
		want bool
	}{
		{"admin: account level", admin(), PermsManage, nil, nil, true},
		{"admin is never denied", admin(), GoalsRead, goal(nil, nil), denyingSession, true},
		{"account level: role bundle", member(), GoalsCreate, nil, nil, true},
		{"account level: not in the bundle", member(), SessionsManage, nil, nil, false},
		{"account level: a grant", custom(SessionsManage), SessionsManage, nil, nil, true},
		{"account level: own actions need an item", member(), GoalsUpdate, nil, nil, false},
		{"role bundle on an item", viewer(), GoalsRead, goal(nil, nil), openSession, true},
		{"own action on an owned item", member(), GoalsUpdate, goal([]string{"u"}, nil), openSession, true},
		{"own action through a team", member(), GoalsUpdate, goal([]string{"team"}, nil), openSession, true},
		{"own action on someone else's item", member(), GoalsUpdate, goal([]string{"x"}, nil), openSession, false},
		{"the session's deny applies to its goals", viewer(), GoalsRead, goal(nil, nil), denyingSession, false},
		{"a goal that does not inherit ignores its session's deny", viewer(), GoalsRead,
			goal(nil, &Access{Inherits: false}), denyingSession, true},
		{"the goal's own deny beats the role", viewer(), GoalsRead,
			goal(nil, &Access{Inherits: true, Permissions: []PermissionEntry{entry("u", nil, []string{"goals:read"})}}), openSession, false},
		{"deny * beats every grant", member(), GoalsUpdate,
			goal([]string{"u"}, &Access{Inherits: true, Permissions: []PermissionEntry{entry(memberRole, []string{"goals:update"}, []string{"*"})}}), nil, false},
		{"a deny naming someone else does not apply", viewer(), GoalsRead,
			goal(nil, &Access{Inherits: true, Permissions: []PermissionEntry{entry("x", nil, []string{"*"})}}), openSession, true},
		{"the session's grant to a team applies to its goals", custom(), GoalsUpdate, goal(nil, nil), grantingSession, true},
		{"the session's grant to a team: not to others", viewer(), GoalsUpdate, goal(nil, nil), grantingSession, false},
		{"owner grant of the session", custom(), GoalsUpdate, goal([]string{"u"}, nil), ownerGrantSession, true},
		{"owner grant: not for non-owners", custom(), GoalsUpdate, goal([]string{"x"}, nil), ownerGrantSession, false},
		{"owner deny beats the owner's role", member(), GoalsUpdate, goal([]string{"u"}, nil), ownerDenySession, false},
		{"owner deny does not touch non-owners' bundles", viewer(), GoalsRead, goal([]string{"x"}, nil), ownerDenySession, true},
		{"a grant on the goal itself", custom(), GoalsDelete,
			goal(nil, &Access{Inherits: true, Permissions: []PermissionEntry{entry(customRole, []string{"goals:delete"}, nil)}}), nil, true},
		{"sessions do not inherit", custom(), SessionsRead, SessionItem(Session{ID: "s2"}), denyingSession, false},
		{"a session's own grant", custom(), SessionsManage,
			SessionItem(Session{ID: "s2", Permissions: []PermissionEntry{entry("u", []string{"sessions:manage"}, nil)}}), nil, true},
		{"dashboards: owner grant", custom(), DashboardsEdit, DashboardItem("d", []string{"u"}, &Access{Inherits: true,
			OwnerPermissions: owners([]string{"dashboards:edit"}, nil)}), nil, true},
		{"dashboards do not inherit a session", viewer(), DashboardsRead,
			&Item{Kind: "dashboard", ID: "d", SessionID: "s"}, denyingSession, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.sub.Allowed(tc.a, tc.it, tc.sess); got != tc.want {
				t.Fatalf("Allowed(%s) = %v, want %v", tc.a, got, tc.want)
			}
		})
	}
}

func TestManagesAndSees(t *testing.T) {
	managed := &Session{ID: "s", Permissions: []PermissionEntry{entry("u", []string{"sessions:manage"}, nil)}}
	other := &Session{ID: "s"}
	privateGoal := Goal{ID: "g", SessionID: "s", Private: true, OwnerIDs: []string{"x"}}
	for _, tc := range []struct {
		name    string
		sub     *Subject
		it      *Item
		sess    *Session
		manages bool
		sees    bool
	}{
		{"account level", member(), nil, nil, false, true},
		{"a grant of sessions:manage manages every session", custom(SessionsManage), GoalItem(privateGoal), other, true, true},
		{"a session's own grant makes a manager", member(), GoalItem(privateGoal), managed, true, true},
		{"a private goal is hidden from others", member(), GoalItem(privateGoal), other, false, false},
		{"admins see private goals", admin(), GoalItem(privateGoal), other, true, true},
		{"owners see their private goal", member(), GoalItem(Goal{ID: "g", Private: true, OwnerIDs: []string{"team"}}), other, false, true},
		{"a key result of a private goal is private", viewer(), MetricItem(Metric{ID: "m"}, privateGoal), other, false, false},
		{"a private key result: the goal's owners see it", viewer(),
			MetricItem(Metric{ID: "m", Private: true}, Goal{ID: "g", OwnerIDs: []string{"u"}}), other, false, true},
		{"not private: seen", viewer(), GoalItem(Goal{ID: "g"}), other, false, true},
		{"no session: decided account-wide", member(), GoalItem(privateGoal), nil, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.sub.Manages(tc.sess); got != tc.manages {
				t.Errorf("Manages = %v, want %v", got, tc.manages)
			}
			if got := tc.sub.Sees(tc.it, tc.sess); got != tc.sees {
				t.Errorf("Sees = %v, want %v", got, tc.sees)
			}
		})
	}
}

func TestDecide(t *testing.T) {
	private := GoalItem(Goal{ID: "g", SessionID: "s", Private: true, OwnerIDs: []string{"x"}})
	public := GoalItem(Goal{ID: "g", SessionID: "s", OwnerIDs: []string{"x"}})
	sess := &Session{ID: "s"}
	for _, tc := range []struct {
		name string
		sub  *Subject
		a    Action
		it   *Item
		want Code
	}{
		{"allowed", member(), GoalsRead, public, ""},
		{"a private goal one may not see is not found, whatever the action", member(), GoalsRead, private, CodeNotFound},
		{"seen but not allowed is forbidden", member(), GoalsDelete, public, CodeForbidden},
		{"account level refused is forbidden", viewer(), GoalsCreate, nil, CodeForbidden},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.sub.Decide(tc.a, tc.it, sess)
			if got := ErrorCode(err); got != tc.want {
				t.Fatalf("Decide: %v (code %q), want code %q", err, got, tc.want)
			}
		})
	}
}

func TestAllowedOn(t *testing.T) {
	g := Goal{ID: "g", SessionID: "s", OwnerIDs: []string{"u"}}
	if got, want := member().AllowedOn(GoalItem(g), &Session{ID: "s"}, GoalActions()),
		[]string{"goals:read", "goals:update", "goals:delete", "metrics:create", "tasks:create"}; !slices.Equal(got, want) {
		t.Errorf("owner's goal actions = %v, want %v", got, want)
	}
	g.OwnerIDs, g.Private = []string{"x"}, true
	if got := member().AllowedOn(GoalItem(g), &Session{ID: "s"}, GoalActions()); got == nil || len(got) != 0 {
		t.Errorf("actions on a goal one may not see = %#v, want empty", got)
	}
	if got := viewer().AllowedOn(SessionItem(Session{ID: "s"}), nil, SessionActions()); !slices.Equal(got, []string{"sessions:read"}) {
		t.Errorf("viewer's session actions = %v", got)
	}
}

func TestTaskItemAndOwnTask(t *testing.T) {
	pg := Goal{ID: "g", SessionID: "s", Private: true, OwnerIDs: []string{"x"}, Access: &Access{Inherits: false}}
	task := Task{ID: "t", OwnerID: "u", SessionID: "s"}
	it := TaskItem(task, GoalItem(pg))
	if !it.Private || it.Access != pg.Access || !slices.Equal(it.Owners, []string{"u", "x"}) || it.Kind != "task" {
		t.Fatalf("TaskItem = %+v", it)
	}
	if lone := TaskItem(task, nil); lone.Private || !slices.Equal(lone.Owners, []string{"u"}) {
		t.Fatalf("TaskItem without parent = %+v", lone)
	}
	km := TaskItem(task, MetricItem(Metric{ID: "m", OwnerIDs: []string{"y"}}, Goal{ID: "g", OwnerIDs: []string{"z"}}))
	if !slices.Equal(km.Owners, []string{"u", "y", "z"}) {
		t.Fatalf("TaskItem under a key result: owners %v", km.Owners)
	}

	sess := &Session{ID: "s"}
	// Its own task under a private parent it may not see: allowed, parent hidden.
	d, hide := member().OwnTask(*it, task.OwnerID, sess)
	if d.Private || !hide {
		t.Fatalf("OwnTask = %+v, hide %v", d, hide)
	}
	// The parent's owner sees the parent.
	owner := NewSubject(SubjectFacts{UserID: "x", RoleIDs: []string{memberRole}})
	if _, hide := owner.OwnTask(*TaskItem(Task{ID: "t", OwnerID: "x"}, GoalItem(pg)), "x", sess); hide {
		t.Fatal("OwnTask hides the parent from its owner")
	}
	// Someone else's task under a private parent stays private.
	if d, hide := member().OwnTask(*it, "someone", sess); !d.Private || hide {
		t.Fatalf("OwnTask of another's task = %+v, hide %v", d, hide)
	}
}

func TestDefaultAndCheckAccess(t *testing.T) {
	s := DefaultAccess("session")
	if !s.Inherits || s.OwnerPermissions.Grant["metrics:checkin"] != 1 || s.OwnerPermissions.Grant["dashboards:edit"] != 0 {
		t.Fatalf("session default access = %+v", s)
	}
	d := DefaultAccess("dashboard")
	if d.OwnerPermissions.Grant["dashboards:edit"] != 1 || len(d.OwnerPermissions.Grant) != 1 {
		t.Fatalf("dashboard default access = %+v", d)
	}
	for _, tc := range []struct {
		name string
		in   Access
		ok   bool
	}{
		{"empty", Access{}, true},
		{"known actions and *", Access{Permissions: []PermissionEntry{entry("u", []string{"goals:read"}, []string{"*"})}}, true},
		{"no principal", Access{Permissions: []PermissionEntry{entry("", nil, nil)}}, false},
		{"unknown grant", Access{Permissions: []PermissionEntry{entry("u", []string{"goals:fly"}, nil)}}, false},
		{"unknown deny", Access{Permissions: []PermissionEntry{entry("u", nil, []string{"goals:fly"})}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckAccess(tc.in)
			if (err == nil) != tc.ok {
				t.Fatalf("CheckAccess: %v", err)
			}
			if err != nil && ErrorCode(err) != CodeInvalid {
				t.Fatalf("CheckAccess code %q", ErrorCode(err))
			}
		})
	}
}

func TestSelfPatch(t *testing.T) {
	name, active, roles := "N", false, []string{viewerRole}
	for _, tc := range []struct {
		name         string
		caller, user string
		in           UserPatch
		want         bool
	}{
		{"its own name", "u", "u", UserPatch{FirstName: &name}, true},
		{"its own empty patch", "u", "u", UserPatch{}, true},
		{"another user's name", "u", "x", UserPatch{FirstName: &name}, false},
		{"its own activation", "u", "u", UserPatch{IsActive: &active}, false},
		{"its own roles", "u", "u", UserPatch{RoleIDs: &roles}, false},
	} {
		if got := SelfPatch(tc.caller, tc.user, tc.in); got != tc.want {
			t.Errorf("%s: SelfPatch = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestVisibilityClassOfListsTheSubjectsActions: a visibility class names
// the subject's other principals, its actions as ActionList lists them,
// and the user when documents name it; subjects whose roles give other
// actions are in other classes.
func TestVisibilityClassOfListsTheSubjectsActions(t *testing.T) {
	member, _ := BuiltinRoleByName(RoleMember)
	viewer, _ := BuiltinRoleByName(RoleViewer)
	admin, _ := BuiltinRoleByName(RoleAdmin)
	for _, f := range []SubjectFacts{
		{UserID: "u1", RoleIDs: []string{member.ID}, TeamIDs: []string{"t1"}},
		{UserID: "u2", RoleIDs: []string{viewer.ID}, Grants: []Action{GoalsCreate}},
		{UserID: "u3", RoleIDs: []string{viewer.ID, member.ID}},
	} {
		sub := NewSubject(f)
		var others []string
		for _, p := range sub.Principals() {
			if p != f.UserID {
				others = append(others, p+",")
			}
		}
		want := strings.Join(others, "") + "|" + strings.Join(sub.ActionList(), ",") + "|"
		if got := VisibilityClassOf(sub, false); got != want {
			t.Errorf("VisibilityClassOf(%v) = %q, want %q", f, got, want)
		}
		if got := VisibilityClassOf(sub, true); got != want+f.UserID {
			t.Errorf("VisibilityClassOf(%v, named) = %q, want %q", f, got, want+f.UserID)
		}
	}
	if m, v := NewSubject(SubjectFacts{UserID: "a", RoleIDs: []string{member.ID}}), NewSubject(SubjectFacts{UserID: "b", RoleIDs: []string{viewer.ID}}); VisibilityClassOf(m, false) == VisibilityClassOf(v, false) {
		t.Error("a member and a viewer share a visibility class")
	}
	if got := VisibilityClassOf(NewSubject(SubjectFacts{UserID: "a", RoleIDs: []string{admin.ID}}), true); got != "admin" {
		t.Errorf("an admin's class = %q, want admin", got)
	}
}
