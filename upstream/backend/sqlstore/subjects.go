package sqlstore

import (
	"context"
	"fmt"

	fastjson "github.com/goccy/go-json"

	"github.com/okrgate/okrgate/upstream"
)

// deriveSubjects is deriveSubject for many callers of one account, with
// the same facts, read by three statements for all of them rather than
// three each: their users' documents, the roles mapped to their teams,
// and the grants naming any of their principals. The live fan-out derives
// every subscriber's visibility class before each batch of events.
func (s *Store) deriveSubjects(ctx context.Context, q querier, callers []upstream.Caller) ([]*upstream.Subject, error) {
	if len(callers) == 0 {
		return nil, nil
	}
	account := callers[0].AccountID
	userIDs := make([]string, 0, len(callers))
	seen := map[string]bool{}
	for _, c := range callers {
		if c.AccountID != account {
			return nil, fmt.Errorf("sqlstore: subjects of several accounts")
		}
		if !seen[c.UserID] {
			seen[c.UserID] = true
			userIDs = append(userIDs, c.UserID)
		}
	}
	us, err := subjectUsers(ctx, q, account, userIDs)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]*upstream.User, len(us))
	var teams []string
	teamSeen := map[string]bool{}
	for i := range us {
		byID[us[i].ID] = &us[i]
		for _, t := range us[i].TeamIDs {
			if !teamSeen[t] {
				teamSeen[t] = true
				teams = append(teams, t)
			}
		}
	}
	teamRoles, err := pairs(ctx, q, "team roles", "SELECT team_id, role_id FROM role_mappings WHERE account_id = ? AND team_id IN "+idList,
		account, teams)
	if err != nil {
		return nil, err
	}
	facts := make([]upstream.SubjectFacts, len(callers))
	var principals []string
	principalSeen := map[string]bool{}
	for i, c := range callers {
		f := upstream.SubjectFacts{UserID: c.UserID}
		var roleRefs []upstream.UserRole
		if u := byID[c.UserID]; u != nil {
			roleRefs = u.Roles
			f.TeamIDs = u.TeamIDs
		} else {
			// A caller without a user document (in-process tools): its role names.
			for _, n := range c.Roles {
				roleRefs = append(roleRefs, upstream.UserRole{Name: n})
			}
		}
		var teamRoleIDs []string
		for _, t := range f.TeamIDs {
			teamRoleIDs = append(teamRoleIDs, teamRoles[t]...)
		}
		f.RoleIDs = upstream.ResolveRoleIDs(roleRefs, teamRoleIDs)
		for _, p := range f.Principals() {
			if !principalSeen[p] {
				principalSeen[p] = true
				principals = append(principals, p)
			}
		}
		facts[i] = f
	}
	grants, err := pairs(ctx, q, "grants", `SELECT DISTINCT p.value, permissions.action FROM permissions, `+
		dialectOf(q).each("permissions.doc", "p", "principals")+` WHERE permissions.account_id = ? AND p.value IN `+idList,
		account, principals)
	if err != nil {
		return nil, err
	}
	out := make([]*upstream.Subject, len(callers))
	for i, f := range facts {
		held := map[string]bool{}
		for _, p := range f.Principals() {
			for _, a := range grants[p] {
				if !held[a] {
					held[a] = true
					f.Grants = append(f.Grants, upstream.Action(a))
				}
			}
		}
		out[i] = upstream.NewSubject(f)
	}
	return out, nil
}

// pairs runs stmt, a query of two text columns with the account and an id
// list as its parameters, and returns the second column's values by the
// first's. No ids, no query.
func pairs(ctx context.Context, q querier, what, stmt, account string, ids []string) (map[string][]string, error) {
	out := map[string][]string{}
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := q.QueryContext(ctx, stmt, account, idsParam(ids))
	if err != nil {
		return nil, fmt.Errorf("sqlstore: load %s: %w", what, err)
	}
	defer rows.Close()
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, fmt.Errorf("sqlstore: load %s: %w", what, err)
		}
		out[k] = append(out[k], v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlstore: load %s: %w", what, err)
	}
	return out, nil
}

// subjectUsers reads what a subject is derived from of each user of ids:
// its id, roles and teams, as a JSON document of those fields alone, not
// the whole document (a live batch derives a thousand subscribers'
// subjects; docs/decisions/live-updates.md, "What a live batch reads").
func subjectUsers(ctx context.Context, q querier, account string, ids []string) ([]upstream.User, error) {
	rows, err := q.QueryContext(ctx, "SELECT json_object('id', id, 'roles', doc -> 'roles', 'teamIds', doc -> 'teamIds') FROM users WHERE account_id = ? AND id IN "+idList,
		account, idsParam(ids))
	if err != nil {
		return nil, fmt.Errorf("sqlstore: load users: %w", err)
	}
	defer rows.Close()
	var out []upstream.User
	for rows.Next() {
		var doc []byte
		if err := rows.Scan(&doc); err != nil {
			return nil, fmt.Errorf("sqlstore: load users: %w", err)
		}
		var u upstream.User
		if err := fastjson.Unmarshal(doc, &u); err != nil {
			return nil, fmt.Errorf("sqlstore: decode user: %w", err)
		}
		out = append(out, u)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlstore: load users: %w", err)
	}
	return out, nil
}
