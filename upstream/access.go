package upstream

import (
	"slices"
	"sort"
)

// The authorization model (docs/authorization.md), as pure decisions over
// facts a store loads:
//
//   - A Subject is the caller seen as principals: its user id, its role ids
//     (held directly or through a team's role mapping) and its team ids.
//   - Roles bundle actions: built-in admin (everything), member (reads,
//     creates, edits what it owns), viewer (reads); account roles hold
//     what is granted to them. Grants (permissions) add actions to users and
//     roles account-wide.
//   - Items (sessions, goals, dashboards) carry access: per-principal grant
//     and deny, owner grant and deny, and inherits (goals, key results and
//     tasks inherit their session's access unless inherits is false).
//   - Deny beats grant. Admins are never denied.
//   - Private goals (and key results) are visible only to their owners, the
//     managers of their session (sessions:manage there) and admins; to
//     anyone else they do not exist (404), except as obfuscated stubs where
//     a visible goal's tree passes through them (see GoalListed).

// SubjectFacts are what a store reads to know a caller: its user id, the
// role ids it holds (ResolveRoleIDs), its teams, and the actions granted
// account-wide to any of its principals (SubjectFacts.Principals).
type SubjectFacts struct {
	UserID  string
	RoleIDs []string
	TeamIDs []string
	Grants  []Action
}

// Principals are the ids the subject acts as — its user id, role ids and
// team ids — sorted: the principals a grant or an access entry may name.
func (f SubjectFacts) Principals() []string {
	set := map[string]bool{}
	if f.UserID != "" {
		set[f.UserID] = true
	}
	for _, id := range f.RoleIDs {
		set[id] = true
	}
	for _, id := range f.TeamIDs {
		set[id] = true
	}
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// ResolveRoleIDs returns the role ids a user holds: the roles its document
// names (a built-in role may be named by name alone, or by its legacy id
// "role-<name>") followed by the roles mapped to its teams, without
// repeats, in that order.
func ResolveRoleIDs(roles []UserRole, teamRoleIDs []string) []string {
	ids := make([]string, 0, len(roles)+len(teamRoleIDs))
	for _, r := range roles {
		if b := builtinRoleNamed(r.Name); b != nil && (r.ID == "" || r.ID == b.ID || r.ID == "role-"+b.Name) {
			ids = append(ids, b.ID)
			continue
		}
		ids = append(ids, r.ID)
	}
	ids = append(ids, teamRoleIDs...)
	out := ids[:0:0]
	for _, id := range ids {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// Subject is the caller as principals, with the actions its roles and
// grants give it account-wide. NewSubject builds it; it is not changed
// afterwards, so one request's goroutines may share it.
type Subject struct {
	UserID    string
	Admin     bool     // holds the built-in admin role: never refused
	RoleNames []string // the built-in roles it holds, by name
	TeamIDs   []string

	principals map[string]bool // user, role and team ids
	always     map[Action]bool // allowed everywhere
	own        map[Action]bool // allowed on what it owns
}

// NewSubject derives a subject from its facts: the built-in roles among
// f.RoleIDs give their bundles, grants add actions account-wide. A role
// with no user (f.UserID empty) is a subject too: what the role holds.
func NewSubject(f SubjectFacts) *Subject {
	sub := &Subject{UserID: f.UserID, TeamIDs: f.TeamIDs, principals: map[string]bool{},
		always: map[Action]bool{}, own: map[Action]bool{}}
	for _, p := range f.Principals() {
		sub.principals[p] = true
	}
	for _, id := range f.RoleIDs {
		b := builtinRole(id)
		if b == nil {
			continue
		}
		sub.RoleNames = append(sub.RoleNames, b.Name)
		if b.Name == RoleAdmin {
			sub.Admin = true
		}
		for _, a := range b.Actions {
			sub.always[a] = true
		}
		for _, a := range b.OwnActions {
			sub.own[a] = true
		}
	}
	for _, a := range f.Grants {
		sub.always[a] = true
	}
	return sub
}

// Is reports whether principal is one of the subject's principals.
func (sub *Subject) Is(principal string) bool { return sub.principals[principal] }

// Principals lists the subject's principals, sorted.
func (sub *Subject) Principals() []string {
	out := make([]string, 0, len(sub.principals))
	for p := range sub.principals {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// Owns reports whether the subject is one of owners, directly or through a team.
func (sub *Subject) Owns(owners []string) bool {
	for _, o := range owners {
		if o == sub.UserID || slices.Contains(sub.TeamIDs, o) {
			return true
		}
	}
	return false
}

// OwnerPrincipals are the ids that make the subject an owner: its user id and its teams.
func (sub *Subject) OwnerPrincipals() []string {
	return append([]string{sub.UserID}, sub.TeamIDs...)
}

// ActionList lists the subject's account-level actions in catalogue
// order; actions it holds only on what it owns are suffixed ":own".
func (sub *Subject) ActionList() []string {
	out := []string{}
	sub.eachAction(func(a Action, own bool) {
		if own {
			out = append(out, string(a)+":own")
		} else {
			out = append(out, string(a))
		}
	})
	return out
}

// eachAction calls f with each action of the catalogue the subject may
// take, in the catalogue's order: own is set for one it may take only on
// what it owns.
func (sub *Subject) eachAction(f func(a Action, own bool)) {
	for _, info := range actionInfo {
		switch a := info.a; {
		case sub.Admin || sub.always[a]:
			f(a, false)
		case sub.own[a]:
			f(a, true)
		}
	}
}

// marks reports whether an access map (grant or deny) sets a, by name or "*".
func marks(m map[string]int, a Action) bool { return m[string(a)] != 0 || m["*"] != 0 }

// Allowed decides action a on it (nil: account level) for the subject.
// sess is the item's session when the item inherits from one. It does not
// look at privacy: Sees does (Decide combines both).
func (sub *Subject) Allowed(a Action, it *Item, sess *Session) bool {
	if sub.Admin {
		return true
	}
	if it == nil {
		return sub.always[a]
	}
	var entries []PermissionEntry
	var ownerPerms []*OwnerPermissions
	inherits := true
	if it.Access != nil {
		entries = append(entries, it.Access.Permissions...)
		ownerPerms = append(ownerPerms, it.Access.OwnerPermissions)
		inherits = it.Access.Inherits
	}
	if it.Kind == "session" || it.Kind == "dashboard" {
		inherits = false
	}
	if inherits && sess != nil {
		entries = append(entries, sess.Permissions...)
		ownerPerms = append(ownerPerms, sess.OwnerPermissions)
	}
	owner := sub.Owns(it.Owners)
	for _, e := range entries {
		if sub.Is(e.PrincipalID) && marks(e.Deny, a) {
			return false
		}
	}
	if owner {
		for _, op := range ownerPerms {
			if op != nil && marks(op.Deny, a) {
				return false
			}
		}
	}
	if sub.always[a] || owner && sub.own[a] {
		return true
	}
	for _, e := range entries {
		if sub.Is(e.PrincipalID) && marks(e.Grant, a) {
			return true
		}
	}
	if owner {
		for _, op := range ownerPerms {
			if op != nil && marks(op.Grant, a) {
				return true
			}
		}
	}
	return false
}

// Manages reports whether the subject may manage the session
// (sessions:manage there): the managers of a session see its private
// goals. A nil session is decided account-wide.
func (sub *Subject) Manages(ss *Session) bool {
	if ss == nil {
		return sub.Admin || sub.always[SessionsManage]
	}
	return sub.Allowed(SessionsManage, SessionItem(*ss), nil)
}

// Sees reports whether the subject may see a (possibly private) item at all.
func (sub *Subject) Sees(it *Item, sess *Session) bool {
	return it == nil || !it.Private || sub.Admin || sub.Owns(it.Owners) || sub.Manages(sess)
}

// Decide is the decision on action on it (nil: account level): nil when
// allowed; not_found for a private item the subject may not see, so that
// its existence does not leak; forbidden otherwise.
func (sub *Subject) Decide(action Action, it *Item, sess *Session) error {
	if !sub.Sees(it, sess) {
		return NotFound(it.Kind, it.ID)
	}
	if !sub.Allowed(action, it, sess) {
		if it == nil {
			return Errorf(CodeForbidden, "you may not %s", action)
		}
		return Errorf(CodeForbidden, "you may not %s on %s %q", action, it.Kind, it.ID)
	}
	return nil
}

// AllowedOn lists the candidates the subject may perform on it: none when
// it may not see the item (currentUserAllowedActions).
func (sub *Subject) AllowedOn(it *Item, sess *Session, candidates []Action) []string {
	out := []string{}
	if !sub.Sees(it, sess) {
		return out
	}
	for _, a := range candidates {
		if sub.Allowed(a, it, sess) {
			out = append(out, string(a))
		}
	}
	return out
}

// OwnTask is the decision item of a task the subject itself owns (its
// ownerId is the subject's user) under a private parent: the task is not
// private to it, but the parent may be hidden — then hideParent says its
// name must not be shown. Any other task's item is returned as it is.
func (sub *Subject) OwnTask(it Item, taskOwnerID string, sess *Session) (decide Item, hideParent bool) {
	if !it.Private || taskOwnerID != sub.UserID {
		return it, false
	}
	parent := it
	parent.Owners = it.Owners[1:] // without the task's own owner
	it.Private = false
	return it, !sub.Sees(&parent, sess)
}

// SelfPatch reports whether a user patch is one the user may make on
// itself without users:manage: its own profile (names, language,
// picture). Another user's record, roles and activation need users:manage.
func SelfPatch(callerID, userID string, in UserPatch) bool {
	return userID == callerID && in.IsActive == nil && in.RoleIDs == nil
}
