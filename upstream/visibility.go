package upstream

import "sort"

// Visibility is what a subject's listings show: the listing rule. A store
// applies it as a filter in its queries (sqlstore/scope.go compiles it to
// SQL, so that paging and totalCount count only what the caller sees);
// the per-session part is decided here once per request, over the
// account's sessions (they are few), and the per-row part is the rule
// GoalListed, MetricListed and TaskListed state, which the store's SQL
// must implement exactly (a test in sqlstore holds the two to agreement).
//
// The listing rule is not Decide's: it is what the listings have always
// shown, kept as it is. Where they differ (a goal that does not inherit
// is listed whatever the caller's read actions; an owner's deny of
// goals:read and a goal-level grant of goals:read are not consulted), a
// read by id decides with Decide.
type Visibility struct {
	Sub      *Subject
	Sessions map[string]*Session // the account's sessions, by id

	readable map[string]bool // sessions whose goals the subject may read
	managed  map[string]bool // sessions the subject manages
}

// NewVisibility decides per session, for sub, over the account's sessions
// ss: may it read goals there (goals:read on a goal of the session that
// names no owner and has no access of its own), and does it manage it
// (Manages). An admin's visibility is everything; no session is read.
func NewVisibility(sub *Subject, ss []Session) *Visibility {
	v := &Visibility{Sub: sub, Sessions: map[string]*Session{}, readable: map[string]bool{}, managed: map[string]bool{}}
	if sub.Admin {
		return v
	}
	for i := range ss {
		x := &ss[i]
		v.Sessions[x.ID] = x
		if sub.Allowed(GoalsRead, &Item{Kind: "goal"}, x) {
			v.readable[x.ID] = true
		}
		if sub.Manages(x) {
			v.managed[x.ID] = true
		}
	}
	return v
}

// All reports whether the subject sees everything (an admin): no filter.
func (v *Visibility) All() bool { return v.Sub.Admin }

// ReadableSessions are the ids of the sessions whose goals the subject may
// read, sorted.
func (v *Visibility) ReadableSessions() []string { return sortedKeys(v.readable) }

// ManagedSessions are the ids of the sessions the subject manages, sorted.
func (v *Visibility) ManagedSessions() []string { return sortedKeys(v.managed) }

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// GoalListed is the listing rule of goals: a goal is listed when
//  1. its session lets the subject read goals, or the goal does not
//     inherit its session's access (access.inherits false);
//  2. no entry of the goal's own access naming one of the subject's
//     principals denies goals:read (or "*");
//  3. it is not private, or the subject owns it (directly or through a
//     team), or manages its session.
func (v *Visibility) GoalListed(g Goal) bool {
	if v.All() {
		return true
	}
	if !v.readable[g.SessionID] && (g.Access == nil || g.Access.Inherits) {
		return false
	}
	if g.Access != nil {
		for _, e := range g.Access.Permissions {
			if v.Sub.Is(e.PrincipalID) && marks(e.Deny, GoalsRead) {
				return false
			}
		}
	}
	return v.privateSeen(g)
}

// GoalRestricted reports whether the listing rule may decide g on more
// than its session: it is private, does not inherit its session's access,
// or its own access denies goals:read (or "*") to some principal. A goal
// that is not restricted is listed exactly when its session lets the
// subject read goals (GoalListed's parts 2 and 3 hold for every subject),
// so a store may keep this flag beside the document and decide such goals
// by their session alone, reading the document only for the few that are
// restricted.
func GoalRestricted(g Goal) bool {
	if g.Private || g.Access != nil && !g.Access.Inherits {
		return true
	}
	if g.Access != nil {
		for _, e := range g.Access.Permissions {
			if marks(e.Deny, GoalsRead) {
				return true
			}
		}
	}
	return false
}

// MetricRestricted reports whether the listing rule may hide m when its
// goal is listed: it is private. A key result that is not restricted is
// listed exactly when its goal is (MetricListed).
func MetricRestricted(m Metric) bool { return m.Private }

// MetricListed is the listing rule of key results: a key result is listed
// when its goal (g, nil when it is gone) is listed, and it is not private,
// or the subject owns it or its goal (the goal owners the key result
// records) or manages its session.
func (v *Visibility) MetricListed(m Metric, g *Goal) bool {
	if v.All() {
		return true
	}
	if g == nil || !v.GoalListed(*g) {
		return false
	}
	return !m.Private || v.Sub.Owns(m.OwnerIDs) || v.Sub.Owns(m.GoalOwnerIDs) || v.managed[m.SessionID]
}

// TaskParent is what the task listing rule reads of the id a task's
// parentId names: the goal with that id, or the key result with that id
// and its goal; nil where there is none.
type TaskParent struct {
	Goal       *Goal
	Metric     *Metric
	MetricGoal *Goal
}

// TaskListed is the listing rule of tasks: a task is listed when it has no
// parent, its parent is a listed goal or key result, or its parent is gone
// — or, whatever its parent, when the subject's user is its owner; then
// hideParentName says the parent is not listed and the task's parentName
// must not be shown.
func (v *Visibility) TaskListed(t Task, p TaskParent) (listed, hideParentName bool) {
	if v.All() {
		return true, false
	}
	parentListed := t.ParentID == "" ||
		p.Goal != nil && v.GoalListed(*p.Goal) ||
		p.Metric != nil && v.MetricListed(*p.Metric, p.MetricGoal) ||
		p.Goal == nil && p.Metric == nil
	if parentListed {
		return true, false
	}
	if t.OwnerID == v.Sub.UserID {
		return true, true
	}
	return false, false
}

// Stubs returns, among the account's goals gs, those the subject may not
// see that lie on the way up from a goal it sees: the parent of a listed
// goal, or of such a stub, when it is not listed itself and may be a stub
// (below). They are shown obfuscated (Obfuscate), so that a visible
// goal's tree can be followed towards its root. The ids are sorted.
//
// A goal hidden only because its session's goals are not readable to the
// subject, and which has no access list of its own, is never a stub: it
// is absent, and the way up stops there. The same goal with an access
// list that inherits is a stub. That is what the listings have always
// done (in SQL, the goal's visibility is NULL then, not false, and the
// stub query takes only goals whose visibility is false); it is kept here
// as it is, so that the rule and the SQL agree (docs/authorization.md).
func (v *Visibility) Stubs(gs []Goal) []string {
	if v.All() {
		return nil
	}
	byID := make(map[string]*Goal, len(gs))
	for i := range gs {
		byID[gs[i].ID] = &gs[i]
	}
	stub := map[string]bool{}
	for i := range gs {
		if !v.GoalListed(gs[i]) {
			continue
		}
		// Walk up through goals that may be stubs.
		for p := byID[gs[i].ParentID]; p != nil && !stub[p.ID] && v.mayBeStub(*p); p = byID[p.ParentID] {
			stub[p.ID] = true
		}
	}
	out := sortedKeys(stub)
	if len(out) == 0 {
		return nil
	}
	return out
}

// mayBeStub reports whether g is not listed and may stand as a stub: not
// when it is hidden only by its session's goals being unreadable and has
// no access list of its own (see Stubs).
func (v *Visibility) mayBeStub(g Goal) bool {
	if v.GoalListed(g) {
		return false
	}
	onlySession := g.Access == nil && !v.readable[g.SessionID] && v.privateSeen(g)
	return !onlySession
}

// privateSeen is part 3 of GoalListed: not private, or owned, or its
// session managed.
func (v *Visibility) privateSeen(g Goal) bool {
	return !g.Private || v.Sub.Owns(g.OwnerIDs) || v.managed[g.SessionID]
}

// Obfuscate empties what an obfuscated goal must not show: it keeps its
// place in the tree (ids, parent, session) and nothing else — no name,
// description, owners, figures or tags.
func Obfuscate(g Goal) Goal {
	return Goal{ID: g.ID, AccountID: g.AccountID, SessionID: g.SessionID, ParentID: g.ParentID,
		ParentType: g.ParentType, ParentGoalSessionID: g.ParentGoalSessionID, Private: true, Obfuscated: true,
		OwnerIDs: []string{}, Watchers: []string{}, Tags: []Tag{}, Assignees: []Assignee{}}
}
