package sqlstore

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/okrgate/okrgate/upstream"
)

// A write loads the facts it decides on once, in as few statements as they
// need, decides on them in package upstream, and writes. The statements
// here load facts that do not depend on each other's answers, so that on
// PostgreSQL they go to the database together (Store.run: one round trip).

// subjectFacts are the facts of a caller's upstream.Subject as one
// statement reads them (subjectStmt).
type subjectFacts struct {
	user      []byte   // the caller's user document; nil when none
	teamRoles []string // the roles of the caller's teams
	grants    []grantRow
}

// grantRow is an action granted to a principal.
type grantRow struct{ action, principal string }

// subjectSQL loads a caller's subject facts (parameters: user, account,
// account, account, a JSON array of candidate principals): its user
// document ('user'), the roles of its teams ('teamRole') and the grants
// ('grant': action, principal) to any of its possible principals — its
// user, teams, team roles and the roles its document names, plus the
// candidates (the user id and the built-in roles). subject keeps those of
// the principals the caller has.
func subjectSQL(d dialect) string {
	return `WITH u(doc) AS (SELECT doc FROM users WHERE id = ? AND account_id = ?),
		caller_teams(id) AS (SELECT t.value FROM u, ` + d.each("u.doc", "t", "teamIds") + `),
		team_roles(id) AS (SELECT role_id FROM role_mappings WHERE account_id = ? AND team_id IN (SELECT id FROM caller_teams)),
		principals(id) AS (SELECT id FROM caller_teams UNION ALL SELECT id FROM team_roles
			UNION ALL SELECT ` + d.text("r.value", "id") + ` FROM u, ` + d.eachObject("u.doc", "r", "roles") + `)
	SELECT 'user', CAST(doc AS TEXT), '' FROM u
	UNION ALL SELECT 'teamRole', id, '' FROM team_roles
	UNION ALL SELECT DISTINCT 'grant', action, p.value FROM permissions, ` + d.each("permissions.doc", "p", "principals") + `
		WHERE permissions.account_id = ? AND (p.value IN (SELECT id FROM principals) OR p.value IN ` + idList + `)`
}

// subjectStmt returns the statement that loads the subject facts of c
// into f.
func subjectStmt(d dialect, c upstream.Caller, f *subjectFacts) stmt {
	candidates := []string{c.UserID}
	for _, r := range upstream.BuiltinRoles() {
		candidates = append(candidates, r.ID)
	}
	return stmt{sql: subjectSQL(d), args: []any{c.UserID, c.AccountID, c.AccountID, c.AccountID, idsParam(candidates)},
		rows: func(scan func(...any) error) error {
			var kind, a, b string
			if err := scan(&kind, &a, &b); err != nil {
				return fmt.Errorf("sqlstore: load subject: %w", err)
			}
			switch kind {
			case "user":
				f.user = []byte(a)
			case "teamRole":
				f.teamRoles = append(f.teamRoles, a)
			case "grant":
				f.grants = append(f.grants, grantRow{action: a, principal: b})
			}
			return nil
		}}
}

// subject derives the upstream.Subject of c from f: the roles its user
// document names (or, without one, the caller's role names) and its teams'
// roles, and the grants to its principals.
func (f *subjectFacts) subject(c upstream.Caller) (*upstream.Subject, error) {
	sf := upstream.SubjectFacts{UserID: c.UserID}
	var refs []upstream.UserRole
	if f.user != nil && upstream.ValidID(c.UserID) {
		var u upstream.User
		if err := json.Unmarshal(f.user, &u); err != nil {
			return nil, fmt.Errorf("sqlstore: decode user %s: %w", c.UserID, err)
		}
		refs, sf.TeamIDs = u.Roles, u.TeamIDs
	} else {
		// A caller without a user document (in-process tools): its role names.
		for _, n := range c.Roles {
			refs = append(refs, upstream.UserRole{Name: n})
		}
	}
	var teamRoles []string
	if len(sf.TeamIDs) > 0 {
		teamRoles = f.teamRoles
	}
	sf.RoleIDs = upstream.ResolveRoleIDs(refs, teamRoles)
	principals := sf.Principals()
	for _, g := range f.grants {
		a := upstream.Action(g.action)
		if slices.Contains(principals, g.principal) && !slices.Contains(sf.Grants, a) {
			sf.Grants = append(sf.Grants, a)
		}
	}
	return upstream.NewSubject(sf), nil
}

// docsStmt returns a statement whose rows are a kind and a document, each
// passed to add.
func docsStmt(sql string, args []any, add func(kind string, doc []byte) error) stmt {
	return stmt{sql: sql, args: args, rows: func(scan func(...any) error) error {
		var kind string
		var doc []byte
		if err := scan(&kind, &doc); err != nil {
			return err
		}
		return add(kind, doc)
	}}
}

// metricFactsSQL loads a key result ('metric'), its goal ('goal'), the
// goal's session ('session') and the users ('user') and teams ('team') that
// own the key result (parameters: key result, account, account, account,
// account, account).
func metricFactsSQL(d dialect) string {
	return `WITH m AS (SELECT goal_id, doc FROM metrics WHERE id = ? AND account_id = ?),
		g AS (SELECT goals.session_id, goals.doc FROM m JOIN goals ON goals.id = m.goal_id WHERE goals.account_id = ?),
		o AS (SELECT e.value AS id FROM m, ` + d.each("m.doc", "e", "ownerIds") + `)
	SELECT 'metric', CAST(doc AS TEXT) FROM m
	UNION ALL SELECT 'goal', CAST(doc AS TEXT) FROM g
	UNION ALL SELECT 'session', CAST(sessions.doc AS TEXT) FROM g JOIN sessions ON sessions.id = g.session_id WHERE sessions.account_id = ?
	UNION ALL SELECT 'user', CAST(users.doc AS TEXT) FROM users WHERE users.account_id = ? AND users.id IN (SELECT id FROM o)
	UNION ALL SELECT 'team', CAST(teams.doc AS TEXT) FROM teams WHERE teams.account_id = ? AND teams.id IN (SELECT id FROM o)`
}

// metricFacts are a key result with its goal, session and owners, as a
// write on the key result reads them.
type metricFacts struct {
	m           upstream.Metric
	g           upstream.Goal
	ss          upstream.Session
	found       struct{ m, g, ss bool }
	owners      map[string]upstream.Assignee
	subject     subjectFacts
	path        pathFacts
	withSubject bool // subject was loaded (not a Bulk batch's)
	withPath    bool // path was loaded (not a Bulk batch's)
}

// stmts returns the statements that load f for key result id.
func (f *metricFacts) stmts(d dialect, c upstream.Caller, id string) []stmt {
	f.owners = map[string]upstream.Assignee{}
	out := []stmt{docsStmt(metricFactsSQL(d), []any{id, c.AccountID, c.AccountID, c.AccountID, c.AccountID, c.AccountID},
		func(kind string, doc []byte) error {
			var err error
			switch kind {
			case "metric":
				err, f.found.m = json.Unmarshal(doc, &f.m), true
			case "goal":
				err, f.found.g = json.Unmarshal(doc, &f.g), true
			case "session":
				err, f.found.ss = json.Unmarshal(doc, &f.ss), true
			default:
				var a upstream.Assignee
				if a, err = decodeAssignee(kind, doc); err == nil {
					f.owners[a.ID] = a
				}
			}
			if err != nil {
				return fmt.Errorf("sqlstore: decode %s of key result %s: %w", kind, id, err)
			}
			return nil
		})}
	if f.withSubject {
		out = append(out, subjectStmt(d, c, &f.subject))
	}
	if f.withPath {
		out = append(out, metricPathFactsStmt(c.AccountID, id, &f.path))
	}
	return out
}

// fromBatch fills f from what q's Bulk batch holds — the key result, its
// goal and session, and its owners, as the batch read or wrote them — and
// reports whether it held them all; then the write reads nothing (a
// check-in on a key result the batch created).
func (f *metricFacts) fromBatch(q querier, id string) bool {
	b := batchDocsOf(q)
	if b == nil {
		return false
	}
	m, ok := cachedDoc[upstream.Metric](q, metrics.name, id)
	if !ok {
		return false
	}
	g, ok := cachedDoc[upstream.Goal](q, goals.name, m.GoalID)
	if !ok {
		return false
	}
	ss, ok := cachedDoc[upstream.Session](q, sessions.name, g.SessionID)
	if !ok {
		return false
	}
	owners := map[string]upstream.Assignee{}
	for _, o := range m.OwnerIDs {
		a, ok := b.assignees[o]
		if !ok {
			return false
		}
		owners[o] = a
	}
	f.m, f.g, f.ss, f.owners = m, g, ss, owners
	f.found.m, f.found.g, f.found.ss = true, true, true
	return true
}

// decodeAssignee decodes the document of a user ("user") or team as the
// owner it is of an item.
func decodeAssignee(kind string, raw []byte) (upstream.Assignee, error) {
	if kind == "user" {
		var u upstream.User
		if err := json.Unmarshal(raw, &u); err != nil {
			return upstream.Assignee{}, fmt.Errorf("sqlstore: decode user: %w", err)
		}
		return upstream.Assignee{AccountID: u.AccountID, ID: u.ID, Name: u.Name, Email: u.Email,
			Picture: u.Picture, IsActive: u.IsActive, Type: "user", Tags: []upstream.Tag{}}, nil
	}
	var t upstream.Team
	if err := json.Unmarshal(raw, &t); err != nil {
		return upstream.Assignee{}, fmt.Errorf("sqlstore: decode team: %w", err)
	}
	return upstream.Assignee{AccountID: t.AccountID, ID: t.ID, Name: t.Name, Avatar: t.Avatar,
		Color: t.Color, Picture: t.Picture, IsActive: true, Type: "team", Tags: []upstream.Tag{}}, nil
}
