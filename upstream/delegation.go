package upstream

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// The delegation rule (docs/authorization.md, "Delegation"): a caller may
// not give a right or a role it does not hold itself, and only admins
// touch the admin role. Whoever manages users, teams, roles or
// permissions changes who holds what; without the rule, each of those
// rights reached admin (map the admin role onto one's team, grant oneself
// users:manage, assign oneself the admin role, join a team mapped to
// admin). Lifting a deny is giving too: a caller who leaves a team, deletes
// it, unmaps a role from it or drops a role, when a deny of some item names
// that team or role, gains what the deny withheld from it — so a non-admin
// may not lift a deny that names itself (Conferral.Lifted). The store loads the facts — the rights of the caller, the rights
// a change carries and its target's rights before and after — and asks
// MayConfer; MayManageUser and MayMintToken use the same Rights.

// Rights are what a principal (a user, a role, a team) holds account-wide:
// the admin role, the actions it may take everywhere, and the actions it
// may take on what it owns.
type Rights struct {
	Admin  bool
	Always map[Action]bool
	Own    map[Action]bool
}

// Rights returns what the subject holds account-wide.
func (sub *Subject) Rights() Rights {
	return Rights{Admin: sub.Admin, Always: maps.Clone(sub.always), Own: maps.Clone(sub.own)}
}

// RightsOf returns the rights its facts give a subject (NewSubject).
func RightsOf(f SubjectFacts) Rights { return NewSubject(f).Rights() }

// Holds reports whether r allows a everywhere.
func (r Rights) Holds(a Action) bool { return r.Admin || r.Always[a] }

// Missing lists what r holds that holder does not, in catalogue order:
// "admin" alone when r is the admin role and holder is not; otherwise an
// action held everywhere by its name, an action held only on what one owns
// with the suffix ":own". Admin rights hold everything; everywhere covers
// ":own".
func (r Rights) Missing(holder Rights) []string {
	if holder.Admin {
		return nil
	}
	if r.Admin {
		return []string{RoleAdmin}
	}
	var out []string
	for _, d := range Actions() {
		a := Action(d.Name)
		switch {
		case r.Always[a] && !holder.Always[a]:
			out = append(out, d.Name)
		case r.Own[a] && !holder.Always[a] && !holder.Own[a]:
			out = append(out, d.Name+":own")
		}
	}
	return out
}

// AmountsToAdmin reports whether r is the admin role or every action of
// the catalogue everywhere: admin in all but name.
func (r Rights) AmountsToAdmin() bool {
	if r.Admin {
		return true
	}
	for _, d := range Actions() {
		if !r.Always[Action(d.Name)] {
			return false
		}
	}
	return true
}

// DelegationActions are the actions that change who holds what: users
// (their roles), teams (their members, and so the roles mapped to them),
// roles (their mappings) and permissions (grants).
func DelegationActions() []Action {
	return []Action{UsersManage, TeamsManage, RolesManage, PermsManage}
}

// Privileged reports whether r reaches admin rights or the rights of
// others: the admin role, rights that amount to admin, or one of the
// DelegationActions. Privilege matters where a lesser caller would act as
// the holder: minting its tokens, deactivating it, changing its roles.
func (r Rights) Privileged() bool {
	return r.AmountsToAdmin() || slices.ContainsFunc(DelegationActions(), r.Holds)
}

// privileges names the rights that make r privileged, for messages.
func (r Rights) privileges() string {
	if r.Admin {
		return "the admin role"
	}
	if r.AmountsToAdmin() {
		return "every action"
	}
	var out []string
	for _, a := range DelegationActions() {
		if r.Always[a] {
			out = append(out, string(a))
		}
	}
	return strings.Join(out, ", ")
}

// Conferral is one change to who holds what, seen from one principal it
// reaches: a role mapped to a team reaches the team and each of its
// members; a member joining a team, a role assigned to a user and a grant
// reach their target, and a grant to a role each holder of the role.
type Conferral struct {
	// Target names the principal for messages: `user "…"`, `team "…"`, `role "…"`.
	Target string
	// Gives is what the change carries to Target: the role mapped or
	// assigned, the rights of the team joined, the actions granted. A
	// change that only takes rights away gives nothing.
	Gives Rights
	// Before and After are Target's rights without and with the change.
	Before, After Rights
	// Self reports whether Target is the caller itself.
	Self bool
	// Lifted are the principals Target stops being with the change (a
	// team it leaves, a role it no longer holds) that a deny of some item
	// names: the change lifts those denies from Target.
	Lifted []string
}

// MayConfer is the delegation rule: an admin may make any change; anyone
// else may give only rights it holds itself (Gives.Missing(caller) is
// empty), never the admin role, and never rights that bring the target's
// to admin (AmountsToAdmin); nor may it take the admin role away, nor lift
// a deny that names itself (through a team or a role it would stop being:
// what the deny withheld would be its own gift to itself).
func MayConfer(caller Rights, c Conferral) error {
	if caller.Admin {
		return nil
	}
	if c.Self && len(c.Lifted) > 0 {
		return Errorf(CodeForbidden, "only an admin may lift a deny that names you: the change takes you out of %s, which a deny names", strings.Join(c.Lifted, ", "))
	}
	switch {
	case c.Gives.Admin || c.After.Admin && !c.Before.Admin:
		return Errorf(CodeForbidden, "only an admin may give the admin role: the change would make %s an admin", c.Target)
	case c.Before.Admin && !c.After.Admin:
		return Errorf(CodeForbidden, "only an admin may take the admin role from %s", c.Target)
	}
	if miss := c.Gives.Missing(caller); len(miss) > 0 {
		return Errorf(CodeForbidden, "you may not give %s %s: you do not hold %s yourself",
			c.Target, strings.Join(miss, ", "), pronoun(len(miss)))
	}
	if c.After.AmountsToAdmin() && !c.Before.AmountsToAdmin() {
		return Errorf(CodeForbidden, "only an admin may give %s rights that together amount to admin (every action)", c.Target)
	}
	return nil
}

// MayManageUser decides whether the caller may change another user's — or
// its own — roles or activation (deactivate, reactivate): an admin always;
// anyone else (with users:manage) only a user who is not privileged and
// holds nothing the caller does not.
func MayManageUser(caller Rights, target string, targetRights Rights) error {
	if caller.Admin {
		return nil
	}
	if targetRights.Privileged() {
		return Errorf(CodeForbidden, "only an admin may change the roles or activation of %s: they hold %s", target, targetRights.privileges())
	}
	if miss := targetRights.Missing(caller); len(miss) > 0 {
		return Errorf(CodeForbidden, "you may not change the roles or activation of %s: they hold %s, which you do not", target, strings.Join(miss, ", "))
	}
	return nil
}

func pronoun(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// Holdings are who holds what in one account, as a store reads them: the
// roles mapped to each team and the actions granted to each principal.
// With the facts of one user they give its rights; a change is applied to
// a copy (Clone) to see the rights it would give.
type Holdings struct {
	TeamRoles map[string][]string // team id → ids of the roles mapped to it
	Grants    map[string][]Action // principal id → actions granted to it
}

// Clone returns a copy of h that may be changed on its own.
func (h Holdings) Clone() Holdings {
	out := Holdings{TeamRoles: map[string][]string{}, Grants: map[string][]Action{}}
	for k, v := range h.TeamRoles {
		out.TeamRoles[k] = slices.Clone(v)
	}
	for k, v := range h.Grants {
		out.Grants[k] = slices.Clone(v)
	}
	return out
}

func (h Holdings) facts(userID string, roleIDs, teamIDs []string) SubjectFacts {
	f := SubjectFacts{UserID: userID, RoleIDs: roleIDs, TeamIDs: teamIDs}
	for _, p := range f.Principals() {
		f.Grants = append(f.Grants, h.Grants[p]...)
	}
	return f
}

// User returns the rights of a user holding roles directly and belonging
// to teams: its roles, the roles mapped to its teams, the grants to any of
// its principals — what the store's subject of that user holds.
func (h Holdings) User(userID string, roles []UserRole, teamIDs []string) Rights {
	var mapped []string
	for _, t := range teamIDs {
		mapped = append(mapped, h.TeamRoles[t]...)
	}
	return RightsOf(h.facts(userID, ResolveRoleIDs(roles, mapped), teamIDs))
}

// Principals returns the principals a user holding roles directly and
// belonging to teams acts as: itself, its roles (direct and mapped to its
// teams) and its teams (SubjectFacts.Principals).
func (h Holdings) Principals(userID string, roles []UserRole, teamIDs []string) []string {
	var mapped []string
	for _, t := range teamIDs {
		mapped = append(mapped, h.TeamRoles[t]...)
	}
	return SubjectFacts{UserID: userID, RoleIDs: ResolveRoleIDs(roles, mapped), TeamIDs: teamIDs}.Principals()
}

// Lost returns the principals of before that after lacks, in order.
func Lost(before, after []string) []string {
	var out []string
	for _, p := range before {
		if !slices.Contains(after, p) {
			out = append(out, p)
		}
	}
	return out
}

// Team returns the rights a team gives its members: the roles mapped to it
// and the grants to it and to those roles.
func (h Holdings) Team(id string) Rights {
	return RightsOf(h.facts("", slices.Clone(h.TeamRoles[id]), []string{id}))
}

// Role returns the rights of a role: its bundle (built-in roles) and its grants.
func (h Holdings) Role(id string) Rights {
	return RightsOf(h.facts("", []string{id}, nil))
}

// ActionRights returns the rights of actions everywhere, as a grant gives them.
func ActionRights(actions ...Action) Rights {
	return RightsOf(SubjectFacts{Grants: actions})
}

// Describe names a principal for a Conferral's Target.
func Describe(kind, id string) string { return fmt.Sprintf("%s %q", kind, id) }
