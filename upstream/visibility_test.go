package upstream

import (
	"slices"
	"testing"
)

// visibilityFixture: sessions "open" (readable), "closed" (denies the
// member's goals:read), "managed" (the member manages it); the member is
// "u" in team "team".
func visibilityFixture() *Visibility {
	ss := []Session{
		{ID: "open", Inherits: true},
		{ID: "closed", Inherits: true, Permissions: []PermissionEntry{entry(memberRole, nil, []string{"goals:read"})}},
		{ID: "managed", Inherits: true, Permissions: []PermissionEntry{entry("u", []string{"sessions:manage"}, nil)}},
	}
	return NewVisibility(member(), ss)
}

func TestNewVisibility(t *testing.T) {
	v := visibilityFixture()
	if got := v.ReadableSessions(); !slices.Equal(got, []string{"managed", "open"}) {
		t.Errorf("ReadableSessions = %v", got)
	}
	if got := v.ManagedSessions(); !slices.Equal(got, []string{"managed"}) {
		t.Errorf("ManagedSessions = %v", got)
	}
	if v.All() || len(v.Sessions) != 3 {
		t.Errorf("All = %v, %d sessions", v.All(), len(v.Sessions))
	}
	a := NewVisibility(admin(), []Session{{ID: "open"}})
	if !a.All() || len(a.Sessions) != 0 || !a.GoalListed(Goal{Private: true, SessionID: "x"}) {
		t.Errorf("an admin's visibility is everything, without sessions: %+v", a)
	}
	if s := a.Stubs([]Goal{{ID: "g"}}); s != nil {
		t.Errorf("an admin has no stubs: %v", s)
	}
}

func TestGoalListed(t *testing.T) {
	v := visibilityFixture()
	for _, tc := range []struct {
		name string
		g    Goal
		want bool
	}{
		{"a goal of a readable session", Goal{SessionID: "open"}, true},
		{"a goal of an unreadable session", Goal{SessionID: "closed"}, false},
		{"a goal of a session that is gone", Goal{SessionID: "gone"}, false},
		{"a goal that does not inherit, in an unreadable session", Goal{SessionID: "closed", Access: &Access{Inherits: false}}, true},
		{"a goal that inherits explicitly, in an unreadable session", Goal{SessionID: "closed", Access: &Access{Inherits: true}}, false},
		{"the goal denies goals:read to the member's team", Goal{SessionID: "open",
			Access: &Access{Inherits: true, Permissions: []PermissionEntry{entry("team", nil, []string{"goals:read"})}}}, false},
		{"the goal denies * to the member's role", Goal{SessionID: "open",
			Access: &Access{Permissions: []PermissionEntry{entry(memberRole, nil, []string{"*"})}}}, false},
		{"the goal denies someone else", Goal{SessionID: "open",
			Access: &Access{Inherits: true, Permissions: []PermissionEntry{entry("x", nil, []string{"*"})}}}, true},
		{"a deny of another action", Goal{SessionID: "open",
			Access: &Access{Inherits: true, Permissions: []PermissionEntry{entry("u", nil, []string{"goals:update"})}}}, true},
		{"a private goal of someone else", Goal{SessionID: "open", Private: true, OwnerIDs: []string{"x"}}, false},
		{"a private goal it owns", Goal{SessionID: "open", Private: true, OwnerIDs: []string{"u"}}, true},
		{"a private goal its team owns", Goal{SessionID: "open", Private: true, OwnerIDs: []string{"team"}}, true},
		{"a private goal of a session it manages", Goal{SessionID: "managed", Private: true}, true},
		{"an owner's deny of goals:read is not consulted", Goal{SessionID: "open", OwnerIDs: []string{"u"},
			Access: &Access{Inherits: true, OwnerPermissions: owners(nil, []string{"goals:read"})}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := v.GoalListed(tc.g); got != tc.want {
				t.Fatalf("GoalListed = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestMetricListed(t *testing.T) {
	v := visibilityFixture()
	open := &Goal{ID: "g", SessionID: "open", OwnerIDs: []string{"x"}}
	for _, tc := range []struct {
		name string
		m    Metric
		g    *Goal
		want bool
	}{
		{"of a listed goal", Metric{SessionID: "open"}, open, true},
		{"of a goal that is gone", Metric{SessionID: "open"}, nil, false},
		{"of an unlisted goal", Metric{SessionID: "closed"}, &Goal{SessionID: "closed"}, false},
		{"private, someone else's", Metric{SessionID: "open", Private: true, OwnerIDs: []string{"x"}}, open, false},
		{"private, its own", Metric{SessionID: "open", Private: true, OwnerIDs: []string{"u"}}, open, true},
		{"private, its team owns the goal (as recorded)", Metric{SessionID: "open", Private: true, GoalOwnerIDs: []string{"team"}}, open, true},
		{"private, in a managed session", Metric{SessionID: "managed", Private: true}, &Goal{SessionID: "managed"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := v.MetricListed(tc.m, tc.g); got != tc.want {
				t.Fatalf("MetricListed = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestTaskListed(t *testing.T) {
	v := visibilityFixture()
	listed := &Goal{ID: "g", SessionID: "open"}
	hidden := &Goal{ID: "h", SessionID: "closed"}
	for _, tc := range []struct {
		name         string
		t            Task
		p            TaskParent
		listed, hide bool
	}{
		{"no parent", Task{OwnerID: "x"}, TaskParent{}, true, false},
		{"a listed goal", Task{ParentID: "g", OwnerID: "x"}, TaskParent{Goal: listed}, true, false},
		{"an unlisted goal", Task{ParentID: "h", OwnerID: "x"}, TaskParent{Goal: hidden}, false, false},
		{"its own task under an unlisted goal", Task{ParentID: "h", OwnerID: "u"}, TaskParent{Goal: hidden}, true, true},
		{"a listed key result", Task{ParentID: "m", OwnerID: "x"},
			TaskParent{Metric: &Metric{ID: "m", SessionID: "open"}, MetricGoal: listed}, true, false},
		{"a key result of an unlisted goal", Task{ParentID: "m", OwnerID: "x"},
			TaskParent{Metric: &Metric{ID: "m", SessionID: "closed"}, MetricGoal: hidden}, false, false},
		{"a parent that is gone", Task{ParentID: "gone", OwnerID: "x"}, TaskParent{}, true, false},
		{"a team's task is not the user's own", Task{ParentID: "h", OwnerID: "team"}, TaskParent{Goal: hidden}, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, h := v.TaskListed(tc.t, tc.p)
			if l != tc.listed || h != tc.hide {
				t.Fatalf("TaskListed = %v, %v; want %v, %v", l, h, tc.listed, tc.hide)
			}
		})
	}
}

func TestStubs(t *testing.T) {
	v := visibilityFixture()
	private := func(id, parent, session string) Goal {
		return Goal{ID: id, ParentID: parent, SessionID: session, Private: true, OwnerIDs: []string{"x"}}
	}
	inherit := &Access{Inherits: true}
	for _, tc := range []struct {
		name string
		gs   []Goal
		want []string
	}{
		{"a private parent of a listed goal", []Goal{private("p", "", "open"), {ID: "c", ParentID: "p", SessionID: "open"}}, []string{"p"}},
		{"up through hidden goals to the root", []Goal{private("r", "", "open"), private("p", "r", "open"),
			{ID: "c", ParentID: "p", SessionID: "open"}}, []string{"p", "r"}},
		{"a hidden goal without a listed descendant is no stub", []Goal{private("p", "", "open"), private("c", "p", "open")}, nil},
		{"the walk stops at a listed goal", []Goal{private("r", "", "open"), {ID: "p", ParentID: "r", SessionID: "open"},
			private("q", "p", "open"), {ID: "c", ParentID: "q", SessionID: "open"}}, []string{"q", "r"}},
		{"hidden only by its session, without an access list: no stub, and the walk stops",
			[]Goal{private("r", "", "open"), {ID: "p", ParentID: "r", SessionID: "closed"},
				{ID: "c", ParentID: "p", SessionID: "open"}}, nil},
		{"hidden only by its session, with an access list that inherits: a stub",
			[]Goal{private("r", "", "open"), {ID: "p", ParentID: "r", SessionID: "closed", Access: inherit},
				{ID: "c", ParentID: "p", SessionID: "open"}}, []string{"p", "r"}},
		{"hidden by its session and private: a stub", []Goal{private("p", "", "closed"), {ID: "c", ParentID: "p", SessionID: "open"}},
			[]string{"p"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := v.Stubs(tc.gs); !slices.Equal(got, tc.want) {
				t.Fatalf("Stubs = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestObfuscate(t *testing.T) {
	g := Goal{ID: "g", AccountID: "a", SessionID: "s", ParentID: "p", Name: "secret", Description: "d",
		OwnerIDs: []string{"u"}, Tags: []Tag{{Title: "t"}}}
	o := Obfuscate(g)
	if o.Name != "" || o.Description != "" || len(o.OwnerIDs) != 0 || len(o.Tags) != 0 || !o.Obfuscated || !o.Private ||
		o.ID != "g" || o.ParentID != "p" || o.SessionID != "s" || o.AccountID != "a" {
		t.Fatalf("Obfuscate = %+v", o)
	}
}

// TestUnrestrictedDecidedBySession: a goal that is not restricted
// (GoalRestricted) is listed exactly when its session's goals are readable
// to the subject, and a key result that is not restricted exactly when its
// goal is, for every goal of a space of privacy, access lists, owners and
// sessions, and for a member, a viewer and a session manager: what lets a
// store decide such rows from columns alone (sqlstore, scope.goalVisible).
func TestUnrestrictedDecidedBySession(t *testing.T) {
	ss := visibilityFixture().Sessions
	var sessions []Session
	for _, s := range ss {
		sessions = append(sessions, *s)
	}
	subjects := map[string]*Visibility{
		"member": NewVisibility(member(), sessions),
		"viewer": NewVisibility(viewer(), sessions),
	}
	accesses := []*Access{nil, {Inherits: true}, {Inherits: false}}
	for _, p := range []string{"u", "team", memberRole, viewerRole, "x"} {
		for _, e := range []PermissionEntry{entry(p, nil, []string{"goals:read"}), entry(p, nil, []string{"*"}),
			entry(p, nil, []string{"goals:update"}), entry(p, []string{"goals:read"}, nil), entry(p, []string{"sessions:manage"}, nil)} {
			accesses = append(accesses, &Access{Inherits: true, Permissions: []PermissionEntry{e}}, &Access{Inherits: false, Permissions: []PermissionEntry{e}})
		}
	}
	accesses = append(accesses, &Access{Inherits: true, OwnerPermissions: owners(nil, []string{"goals:read"})})
	var unrestricted, listed, restricted int
	for name, v := range subjects {
		for _, sid := range []string{"open", "closed", "managed", "gone"} {
			for _, private := range []bool{false, true} {
				for _, own := range [][]string{nil, {"u"}, {"team"}, {"x"}} {
					for _, a := range accesses {
						g := Goal{ID: "g", SessionID: sid, Private: private, OwnerIDs: own, Access: a}
						if GoalRestricted(g) {
							restricted++
						} else {
							unrestricted++
							if got, want := v.GoalListed(g), v.readable[sid]; got != want {
								t.Errorf("%s: unrestricted goal %+v (access %+v): listed %v, its session says %v", name, g, a, got, want)
							}
							if v.GoalListed(g) {
								listed++
							}
						}
						for _, mp := range []bool{false, true} {
							m := Metric{SessionID: sid, Private: mp, OwnerIDs: own, GoalOwnerIDs: own}
							if !MetricRestricted(m) && v.MetricListed(m, &g) != v.GoalListed(g) {
								t.Errorf("%s: unrestricted key result %+v of goal %+v: listed %v, its goal %v", name, m, g, v.MetricListed(m, &g), v.GoalListed(g))
							}
						}
					}
				}
			}
		}
	}
	if unrestricted == 0 || listed == 0 || listed == unrestricted || restricted == 0 {
		t.Fatalf("vacuous: %d unrestricted goals (%d listed), %d restricted", unrestricted, listed, restricted)
	}
}
