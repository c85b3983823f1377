package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/okrgate/okrgate/upstream"
)

// The delegation rule (upstream.MayConfer, docs/authorization.md,
// "Delegation") decides every change to who holds what: a role mapped to a
// team, a member joining or leaving a team, roles assigned to a user, actions
// granted to a user or a role. This file loads its facts — the caller's
// rights, the account's role mappings and grants, the users a change
// reaches — and asks the rule for each principal the change reaches.

// delegation is what a non-admin caller's changes are checked against: its
// rights and the account's holdings as they are before the change.
type delegation struct {
	account  string
	callerID string
	caller   upstream.Rights
	h        upstream.Holdings
	// denied returns those of principals that a deny of some item names
	// (deniedPrincipals), read when a change takes the caller out of one.
	denied func(principals []string) ([]string, error)
}

// delegationOf loads the facts of the delegation rule for a write of c:
// nil for an admin, whom the rule allows every change (so for an admin's
// writes it reads only the caller's subject).
func (s *Store) delegationOf(ctx context.Context, q querier, c upstream.Caller) (*delegation, error) {
	sub, err := s.loadSubject(ctx, q, c)
	if err != nil {
		return nil, err
	}
	if sub.Admin {
		return nil, nil
	}
	h, err := loadHoldings(ctx, q, c.AccountID)
	if err != nil {
		return nil, err
	}
	return &delegation{account: c.AccountID, callerID: c.UserID, caller: sub.Rights(), h: h,
		denied: func(ps []string) ([]string, error) { return deniedPrincipals(ctx, q, c.AccountID, ps) }}, nil
}

// deniedTables hold the items whose access entries may deny (access.go).
var deniedTables = []string{"sessions", "goals", "metrics", "tasks", "dashboards"}

// deniedPrincipals returns those of principals that an access entry of
// some item of the account names with a deny: one statement over the
// tables of items with access.
func deniedPrincipals(ctx context.Context, q querier, account string, principals []string) ([]string, error) {
	if len(principals) == 0 {
		return nil, nil
	}
	dl := dialectOf(q)
	var parts []string
	var args []any
	for _, t := range deniedTables {
		parts = append(parts, `SELECT `+dl.text("ap.value", "principalId")+`, `+dl.text("ap.value", "deny")+`
			FROM `+t+`, `+dl.eachObject(t+".doc", "ap", "access", "permissions")+`
			WHERE `+t+`.account_id = ? AND `+dl.text("ap.value", "principalId")+` IN `+idList)
		args = append(args, account, idsParam(principals))
	}
	rows, err := q.QueryContext(ctx, strings.Join(parts, " UNION ALL "), args...)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: load denies: %w", err)
	}
	defer rows.Close()
	set := map[string]bool{}
	for rows.Next() {
		var p string
		var deny *string
		if err := rows.Scan(&p, &deny); err != nil {
			return nil, fmt.Errorf("sqlstore: load denies: %w", err)
		}
		var m map[string]int
		if deny != nil && json.Unmarshal([]byte(*deny), &m) == nil && denies(m) {
			set[p] = true
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlstore: load denies: %w", err)
	}
	var out []string
	for _, p := range principals {
		if set[p] {
			out = append(out, p)
		}
	}
	return out, nil
}

// denies reports whether an access entry's deny map denies anything.
func denies(m map[string]int) bool {
	for _, v := range m {
		if v != 0 {
			return true
		}
	}
	return false
}

// userConferral is the Conferral of a change of user u (as it is under
// d.h) into changed (under after), giving gives: when u is the caller, it
// names the principals it stops being that a deny names.
func (d *delegation) userConferral(u, changed upstream.User, after upstream.Holdings, gives upstream.Rights) (upstream.Conferral, error) {
	c := upstream.Conferral{Target: upstream.Describe("user", u.ID), Gives: gives,
		Before: userRights(d.h, u), After: userRights(after, changed), Self: u.ID == d.callerID}
	if !c.Self {
		return c, nil
	}
	lost := upstream.Lost(d.h.Principals(u.ID, u.Roles, u.TeamIDs), after.Principals(changed.ID, changed.Roles, changed.TeamIDs))
	var err error
	c.Lifted, err = d.denied(lost)
	return c, err
}

// checkUser checks a change of user u into changed (under after) giving
// gives.
func (d *delegation) checkUser(u, changed upstream.User, after upstream.Holdings, gives upstream.Rights) error {
	c, err := d.userConferral(u, changed, after, gives)
	if err != nil {
		return err
	}
	return upstream.MayConfer(d.caller, c)
}

// loadHoldings reads an account's role mappings and grants: two queries.
func loadHoldings(ctx context.Context, q querier, account string) (upstream.Holdings, error) {
	h := upstream.Holdings{TeamRoles: map[string][]string{}, Grants: map[string][]upstream.Action{}}
	ms, err := roleMappings.where(ctx, q, account, trueSQL)
	if err != nil {
		return h, fmt.Errorf("sqlstore: load role mappings: %w", err)
	}
	for _, m := range ms {
		h.TeamRoles[m.TeamID] = append(h.TeamRoles[m.TeamID], m.RoleID)
	}
	gs, err := grants.where(ctx, q, account, trueSQL)
	if err != nil {
		return h, fmt.Errorf("sqlstore: load grants: %w", err)
	}
	for _, g := range gs {
		for _, p := range g.Principals {
			h.Grants[p] = append(h.Grants[p], upstream.Action(g.Action))
		}
	}
	return h, nil
}

// userRights returns u's rights under h.
func userRights(h upstream.Holdings, u upstream.User) upstream.Rights {
	return h.User(u.ID, u.Roles, u.TeamIDs)
}

// checkMapping checks mapping role onto team t (add) or unmapping it: the
// change reaches the team and each of its members.
func (s *Store) checkMapping(ctx context.Context, q querier, d *delegation, roleID string, t upstream.Team, add bool) error {
	if d == nil {
		return nil
	}
	after := d.h.Clone()
	var gives upstream.Rights
	if add {
		after.TeamRoles[t.ID] = append(after.TeamRoles[t.ID], roleID)
		gives = d.h.Role(roleID)
	} else {
		i := slices.Index(after.TeamRoles[t.ID], roleID)
		if i >= 0 {
			after.TeamRoles[t.ID] = slices.Delete(after.TeamRoles[t.ID], i, i+1)
		}
	}
	if err := upstream.MayConfer(d.caller, upstream.Conferral{Target: upstream.Describe("team", t.ID),
		Gives: gives, Before: d.h.Team(t.ID), After: after.Team(t.ID)}); err != nil {
		return err
	}
	members, err := users.in(ctx, q, d.account, "id", t.Members)
	if err != nil {
		return err
	}
	for _, u := range members {
		if err := d.checkUser(u, u, after, gives); err != nil {
			return err
		}
	}
	return nil
}

// checkMembership checks u joining (join) or leaving team t: joining gives
// u what the team gives its members.
func checkMembership(d *delegation, t upstream.Team, u upstream.User, join bool) error {
	if d == nil {
		return nil
	}
	changed := u
	var gives upstream.Rights
	if join {
		changed.TeamIDs = append(slices.Clone(u.TeamIDs), t.ID)
		gives = d.h.Team(t.ID)
	} else {
		changed.TeamIDs = slices.DeleteFunc(slices.Clone(u.TeamIDs), func(id string) bool { return id == t.ID })
	}
	return d.checkUser(u, changed, d.h, gives)
}

// checkUserRoles checks giving user u (as it is before the change; the
// zero User for a new user) roles instead of its own: the change carries
// the roles u did not hold.
func checkUserRoles(d *delegation, target string, u upstream.User, roles []upstream.UserRole) error {
	if d == nil {
		return nil
	}
	var added []upstream.UserRole
	for _, r := range roles {
		if !slices.ContainsFunc(u.Roles, func(o upstream.UserRole) bool { return o.ID == r.ID }) {
			added = append(added, r)
		}
	}
	changed := u
	changed.Roles = roles
	c, err := d.userConferral(u, changed, d.h, d.h.User("", added, nil))
	if err != nil {
		return err
	}
	c.Target = target
	return upstream.MayConfer(d.caller, c)
}

// checkRoleDeleted checks deleting role: each holder stops holding it
// (directly or through a team mapped to it).
func (s *Store) checkRoleDeleted(ctx context.Context, q querier, d *delegation, role string) error {
	if d == nil {
		return nil
	}
	after := d.h.Clone()
	for t, rs := range after.TeamRoles {
		after.TeamRoles[t] = slices.DeleteFunc(rs, func(r string) bool { return r == role })
	}
	holders, err := s.roleHolders(ctx, q, d, role)
	if err != nil {
		return err
	}
	for _, u := range holders {
		changed := u
		changed.Roles = slices.DeleteFunc(slices.Clone(u.Roles), func(r upstream.UserRole) bool { return r.ID == role })
		if err := d.checkUser(u, changed, after, upstream.Rights{}); err != nil {
			return err
		}
	}
	return nil
}

// checkManageUser checks changing u's roles or activation
// (upstream.MayManageUser).
func checkManageUser(d *delegation, u upstream.User) error {
	if d == nil {
		return nil
	}
	return upstream.MayManageUser(d.caller, upstream.Describe("user", u.ID), userRights(d.h, u))
}

// checkGrant checks granting actions to principal (a user or a role of
// kind): the principal is reached, and for a role each user holding it,
// directly or through a team.
func (s *Store) checkGrant(ctx context.Context, q querier, d *delegation, principal, kind string, actions []upstream.Action) error {
	if d == nil || len(actions) == 0 {
		return nil
	}
	after := d.h.Clone()
	after.Grants[principal] = append(after.Grants[principal], actions...)
	gives := upstream.ActionRights(actions...)
	var holders []upstream.User
	switch kind {
	case "user":
		u, err := users.get(ctx, q, d.account, principal)
		if err != nil {
			return err
		}
		holders = []upstream.User{u}
	case "role":
		if err := upstream.MayConfer(d.caller, upstream.Conferral{Target: upstream.Describe("role", principal),
			Gives: gives, Before: d.h.Role(principal), After: after.Role(principal)}); err != nil {
			return err
		}
		var err error
		if holders, err = s.roleHolders(ctx, q, d, principal); err != nil {
			return err
		}
	}
	for _, u := range holders {
		if err := upstream.MayConfer(d.caller, upstream.Conferral{Target: upstream.Describe("user", u.ID),
			Gives: gives, Before: userRights(d.h, u), After: userRights(after, u)}); err != nil {
			return err
		}
	}
	return nil
}

// roleHolders returns the users holding role directly or through a team
// mapped to it.
func (s *Store) roleHolders(ctx context.Context, q querier, d *delegation, role string) ([]upstream.User, error) {
	teamIDs := []string{} // a JSON array even when empty
	for t, rs := range d.h.TeamRoles {
		if slices.Contains(rs, role) {
			teamIDs = append(teamIDs, t)
		}
	}
	ids := []string{role}
	if b, ok := upstream.BuiltinRoleByID(role); ok {
		ids = append(ids, "role-"+b.Name) // the legacy id of a built-in role
	}
	dl := dialectOf(q)
	return users.where(ctx, q, d.account, `EXISTS (SELECT 1 FROM `+dl.eachObject("users.doc", "r", "roles")+` WHERE `+dl.text("r.value", "id")+` IN `+idList+`)
		OR EXISTS (SELECT 1 FROM `+dl.each("users.doc", "t", "teamIds")+` WHERE t.value IN `+idList+`)`,
		idsParam(ids), idsParam(teamIDs))
}

// checkNewUser checks the roles a new user of c's account would get.
func (s *Store) checkNewUser(ctx context.Context, q querier, c upstream.Caller, in upstream.UserInput) error {
	d, err := s.delegationOf(ctx, q, c)
	if err != nil || d == nil {
		return err
	}
	roles, err := s.userRoles(ctx, q, c.AccountID, in.Role, in.RoleIDs)
	if err != nil {
		return err
	}
	return checkUserRoles(d, fmt.Sprintf("new user %q", in.Email), upstream.User{}, roles)
}
