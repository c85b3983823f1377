package sqlstore

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/okrgate/okrgate/upstream"
)

// The authorization model (docs/authorization.md):
//
//   - A subject is the caller seen as principals: its user id, its role ids
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
//     a visible goal's tree passes through them.

// item describes what an action applies to, for the per-item access rules
// (owners, private goals, an item's access list, its session's access).
// Nil means an account-level action with no particular item.
type item struct {
	Kind      string // "goal", "metric", "task", "session", "dashboard", ...
	ID        string
	Owners    []string
	SessionID string
	Private   bool
	Access    *upstream.Access
}

// subject is the caller as principals, with the actions its roles and
// grants give it account-wide.
type subject struct {
	userID     string
	admin      bool
	roleNames  []string
	roleIDs    []string
	teamIDs    []string
	principals map[string]bool // user, role and team ids
	always     map[upstream.Action]bool
	own        map[upstream.Action]bool
}

func (sub *subject) is(principal string) bool { return sub.principals[principal] }

// owns reports whether the subject is one of owners, directly or through a team.
func (sub *subject) owns(owners []string) bool {
	for _, o := range owners {
		if o == sub.userID || slices.Contains(sub.teamIDs, o) {
			return true
		}
	}
	return false
}

// ownerPrincipals are the ids that make the subject an owner: its user id and its teams.
func (sub *subject) ownerPrincipals() []string {
	return append([]string{sub.userID}, sub.teamIDs...)
}

func (sub *subject) principalList() []string {
	out := make([]string, 0, len(sub.principals))
	for p := range sub.principals {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// loadSubject resolves the caller's roles (direct and through teams), teams
// and grants: three queries, once per request (readMemo).
func (s *Store) loadSubject(ctx context.Context, q querier, c upstream.Caller) (*subject, error) {
	// A bulk write derives the subject once for its batch.
	if b := s.bulkOf(ctx); b != nil {
		return b.subject(ctx, q, c)
	}
	m := readMemo(ctx, q)
	if m == nil {
		return s.deriveSubject(ctx, q, c)
	}
	v, err := m.Derive(subjectKeyOf(c), func() (any, error) { return s.deriveSubject(ctx, q, c) })
	if err != nil {
		return nil, err
	}
	return v.(*subject), nil
}

// readMemo returns the request's memo when q reads outside a transaction:
// the reads of one request share what they derive from the caller (its
// subject, its visibility scope, the obfuscated goals); a write transaction
// derives its own, from what it sees, and clears the memo when it commits
// (Store.tx).
func readMemo(ctx context.Context, q querier) *upstream.Memo {
	if cq, ok := q.(counted); !ok || cq.tx {
		return nil
	}
	return upstream.MemoFrom(ctx)
}

// subjectKey names a caller's subject in a request's memo.
type subjectKey struct{ account, user, roles string }

func subjectKeyOf(c upstream.Caller) subjectKey {
	return subjectKey{account: c.AccountID, user: c.UserID, roles: strings.Join(c.Roles, ",")}
}

// deriveSubject reads the caller's roles, teams and grants. The subject is
// not changed afterwards, so a memo may share it between goroutines.
func (s *Store) deriveSubject(ctx context.Context, q querier, c upstream.Caller) (*subject, error) {
	sub := &subject{userID: c.UserID, principals: map[string]bool{c.UserID: true},
		always: map[upstream.Action]bool{}, own: map[upstream.Action]bool{}}
	var roleRefs []upstream.UserRole
	u, err := users.get(ctx, q, c.AccountID, c.UserID)
	switch {
	case err == nil:
		roleRefs = u.Roles
		sub.teamIDs = u.TeamIDs
	case upstream.ErrorCode(err) == upstream.CodeNotFound:
		// A caller without a user document (in-process tools): its role names.
		for _, n := range c.Roles {
			roleRefs = append(roleRefs, upstream.UserRole{Name: n})
		}
	default:
		return nil, err
	}
	for _, t := range sub.teamIDs {
		sub.principals[t] = true
	}
	var roleIDs []string
	for _, r := range roleRefs {
		if b, ok := upstream.BuiltinRoleByName(r.Name); ok && (r.ID == "" || r.ID == b.ID || r.ID == "role-"+b.Name) {
			roleIDs = append(roleIDs, b.ID)
			continue
		}
		roleIDs = append(roleIDs, r.ID)
	}
	if len(sub.teamIDs) > 0 {
		rows, err := q.QueryContext(ctx, "SELECT role_id FROM role_mappings WHERE account_id = ? AND team_id IN (SELECT value FROM json_each(?))",
			c.AccountID, idsParam(sub.teamIDs))
		if err != nil {
			return nil, fmt.Errorf("sqlstore: load team roles: %w", err)
		}
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return nil, fmt.Errorf("sqlstore: load team roles: %w", err)
			}
			roleIDs = append(roleIDs, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("sqlstore: load team roles: %w", err)
		}
	}
	sub.roleIDs = dedupe(roleIDs)
	for _, id := range sub.roleIDs {
		sub.principals[id] = true
		b, ok := upstream.BuiltinRoleByID(id)
		if !ok {
			continue
		}
		sub.roleNames = append(sub.roleNames, b.Name)
		if b.Name == upstream.RoleAdmin {
			sub.admin = true
		}
		for _, a := range b.Actions {
			sub.always[a] = true
		}
		for _, a := range b.OwnActions {
			sub.own[a] = true
		}
	}
	rows, err := q.QueryContext(ctx, `SELECT DISTINCT action FROM permissions WHERE account_id = ? AND EXISTS (
		SELECT 1 FROM `+dialectOf(q).each("permissions.doc", "p", "principals")+` WHERE p.value IN `+idList+`)`,
		c.AccountID, idsParam(sub.principalList()))
	if err != nil {
		return nil, fmt.Errorf("sqlstore: load grants: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var a string
		if err := rows.Scan(&a); err != nil {
			return nil, fmt.Errorf("sqlstore: load grants: %w", err)
		}
		sub.always[upstream.Action(a)] = true
	}
	return sub, rows.Err()
}

// sessionAccess is a session's own access as an Access value.
func sessionAccess(ss upstream.Session) *upstream.Access {
	return &upstream.Access{Inherits: ss.Inherits, OwnerPermissions: ss.OwnerPermissions, Permissions: ss.Permissions}
}

func marks(m map[string]int, a upstream.Action) bool { return m[string(a)] != 0 || m["*"] != 0 }

// allowed decides action on it (nil: account level) for sub. sess is the
// item's session when the item inherits from one.
func (sub *subject) allowed(a upstream.Action, it *item, sess *upstream.Session) bool {
	if sub.admin {
		return true
	}
	if it == nil {
		return sub.always[a]
	}
	var entries []upstream.PermissionEntry
	var ownerPerms []*upstream.OwnerPermissions
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
	owner := sub.owns(it.Owners)
	for _, e := range entries {
		if sub.is(e.PrincipalID) && marks(e.Deny, a) {
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
		if sub.is(e.PrincipalID) && marks(e.Grant, a) {
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

// manages reports whether sub may manage the session (sessions:manage there):
// the managers of a session see its private goals.
func (sub *subject) manages(ss *upstream.Session) bool {
	if ss == nil {
		return sub.admin || sub.always[upstream.SessionsManage]
	}
	return sub.allowed(upstream.SessionsManage, &item{Kind: "session", ID: ss.ID, Access: sessionAccess(*ss)}, nil)
}

// sees reports whether sub may see a (possibly private) item at all.
func (sub *subject) sees(it *item, sess *upstream.Session) bool {
	return it == nil || !it.Private || sub.admin || sub.owns(it.Owners) || sub.manages(sess)
}

// authorize is the one place where the store decides whether the caller may
// perform action (on it, when given). It returns a forbidden error when not,
// and not_found for a private item the caller may not see, so that its
// existence does not leak. Every operation calls it before reading or
// writing.
func (s *Store) authorize(ctx context.Context, q querier, c upstream.Caller, action upstream.Action, it *item) error {
	sub, err := s.loadSubject(ctx, q, c)
	if err != nil {
		return err
	}
	var sess *upstream.Session
	// An admin is never refused (sees and may do everything): the
	// session cannot change the decision.
	if !sub.admin && it != nil && it.SessionID != "" && it.Kind != "session" {
		ss, err := sessions.get(ctx, q, c.AccountID, it.SessionID)
		if err != nil && upstream.ErrorCode(err) != upstream.CodeNotFound {
			return err
		}
		if err == nil {
			sess = &ss
		}
	}
	return sub.decide(action, it, sess)
}

func (sub *subject) decide(action upstream.Action, it *item, sess *upstream.Session) error {
	if !sub.sees(it, sess) {
		return upstream.NotFound(it.Kind, it.ID)
	}
	if !sub.allowed(action, it, sess) {
		if it == nil {
			return upstream.Errorf(upstream.CodeForbidden, "you may not %s", action)
		}
		return upstream.Errorf(upstream.CodeForbidden, "you may not %s on %s %q", action, it.Kind, it.ID)
	}
	return nil
}

// Items of the core resources.

func goalItem(g upstream.Goal) *item {
	return &item{Kind: "goal", ID: g.ID, Owners: g.OwnerIDs, SessionID: g.SessionID, Private: g.Private, Access: g.Access}
}

// metricItem: a key result belongs to its owners and its goal's owners, is
// private when it or its goal is, and takes its goal's access.
func metricItem(m upstream.Metric, g upstream.Goal) *item {
	return &item{Kind: "metric", ID: m.ID, Owners: append(slices.Clone(m.OwnerIDs), g.OwnerIDs...), SessionID: g.SessionID,
		Private: m.Private || g.Private, Access: g.Access}
}

func sessionItem(ss upstream.Session) *item {
	return &item{Kind: "session", ID: ss.ID, Access: sessionAccess(ss)}
}

// taskItem: a task belongs to its owner and to the owners of its parent,
// and is private when its parent is.
func (s *Store) taskItem(ctx context.Context, q querier, account string, t upstream.Task) (*item, error) {
	it := &item{Kind: "task", ID: t.ID, Owners: []string{t.OwnerID}, SessionID: t.SessionID}
	switch t.ParentType {
	case upstream.ParentGoal:
		g, err := goals.get(ctx, q, account, t.ParentID)
		if err != nil {
			return it, nil
		}
		it.Owners = append(it.Owners, g.OwnerIDs...)
		it.Private, it.Access = g.Private, g.Access
	case upstream.ParentMetric:
		m, err := metrics.get(ctx, q, account, t.ParentID)
		if err != nil {
			return it, nil
		}
		g, err := goals.get(ctx, q, account, m.GoalID)
		if err != nil {
			return it, nil
		}
		mi := metricItem(m, g)
		it.Owners = append(it.Owners, mi.Owners...)
		it.Private, it.Access = mi.Private, mi.Access
	}
	return it, nil
}

// authorizeTask checks action on a task; a private parent hides the task
// from those who may not see it, unless they own the task itself — then
// hideParent says its parentName must not be shown.
func (s *Store) authorizeTask(ctx context.Context, q querier, c upstream.Caller, action upstream.Action, t upstream.Task) (hideParent bool, err error) {
	it, err := s.taskItem(ctx, q, c.AccountID, t)
	if err != nil {
		return false, err
	}
	if it.Private && t.OwnerID == c.UserID {
		sub, err := s.loadSubject(ctx, q, c)
		if err != nil {
			return false, err
		}
		var sess *upstream.Session
		if ss, err := sessions.get(ctx, q, c.AccountID, t.SessionID); err == nil {
			sess = &ss
		}
		parent := *it
		parent.Owners = it.Owners[1:] // without the task's own owner
		hideParent = !sub.sees(&parent, sess)
		it.Private = false
	}
	return hideParent, s.authorize(ctx, q, c, action, it)
}

// allowedOn lists the actions of the catalogue sub may perform on it.
func (sub *subject) allowedOn(it *item, sess *upstream.Session, candidates []upstream.Action) []string {
	out := []string{}
	if !sub.sees(it, sess) {
		return out
	}
	for _, a := range candidates {
		if sub.allowed(a, it, sess) {
			out = append(out, string(a))
		}
	}
	return out
}

// Actions that make sense per kind of item (currentUserAllowedActions).
var (
	goalActions    = []upstream.Action{upstream.GoalsRead, upstream.GoalsUpdate, upstream.GoalsDelete, upstream.MetricsCreate, upstream.TasksCreate}
	metricActions  = []upstream.Action{upstream.MetricsRead, upstream.MetricsUpdate, upstream.MetricsDelete, upstream.MetricsCheckIn, upstream.TasksCreate}
	sessionActions = []upstream.Action{upstream.SessionsRead, upstream.SessionsManage, upstream.GoalsCreate}
	boardActions   = []upstream.Action{upstream.DashboardsRead, upstream.DashboardsEdit, upstream.DashboardsAdmin}
)

// metricActionsFor fills currentUserAllowedActions of a page of key results:
// one query for their goals, whatever the page size; the sessions are the
// caller's scope's.
func (s *Store) metricActionsFor(ctx context.Context, q querier, c upstream.Caller, ms []upstream.Metric) error {
	if len(ms) == 0 {
		return nil
	}
	sub, err := s.loadSubject(ctx, q, c)
	if err != nil {
		return err
	}
	if sub.admin {
		// An admin sees and may do everything: the goals and sessions the
		// decision would read cannot change it.
		for i := range ms {
			ms[i].CurrentUserAllowedActions = sub.allowedOn(nil, nil, metricActions)
		}
		return nil
	}
	gids := make([]string, len(ms))
	for i, m := range ms {
		gids[i] = m.GoalID
	}
	gs, err := goals.in(ctx, q, c.AccountID, "id", dedupe(gids))
	if err != nil {
		return err
	}
	byID := make(map[string]upstream.Goal, len(gs))
	for _, g := range gs {
		byID[g.ID] = g
	}
	_, sess, err := s.decisionSessions(ctx, q, c)
	if err != nil {
		return err
	}
	for i := range ms {
		ms[i].CurrentUserAllowedActions = sub.allowedOn(metricItem(ms[i], byID[ms[i].GoalID]), sess[ms[i].SessionID], metricActions)
	}
	return nil
}

// sessionActionsFor fills currentUserAllowedActions of a page of sessions.
func (s *Store) sessionActionsFor(ctx context.Context, q querier, c upstream.Caller, ss []upstream.Session) error {
	if len(ss) == 0 {
		return nil
	}
	sub, err := s.loadSubject(ctx, q, c)
	if err != nil {
		return err
	}
	for i := range ss {
		ss[i].CurrentUserAllowedActions = sub.allowedOn(sessionItem(ss[i]), nil, sessionActions)
	}
	return nil
}
