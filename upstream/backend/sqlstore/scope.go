package sqlstore

import (
	"context"
	"fmt"
	"strings"

	"github.com/okrgate/okrgate/upstream"
)

// The visibility scope of listings: what the caller may read, applied in
// SQL as the source a listing selects from, derived once per request.

// scope is what a listing needs to filter in SQL: the caller's
// upstream.Visibility (the listing rule, decided per session), and its
// principals and sessions as the JSON arrays the SQL binds.
type scope struct {
	rule     *upstream.Visibility
	all      bool           // admin: no filtering
	owners   string         // JSON array: user id and team ids
	deniers  string         // JSON array: every principal of the subject
	readable string         // JSON array of session ids whose goals the subject may read
	managed  string         // JSON array of session ids the subject manages
	vis      *visibilitySQL // the dialect's
	// hiddenGoals and hiddenMetrics are the ids of the account's goals
	// the subject may not see and of its restricted key results it may
	// not see for themselves (JSON arrays, see hiddenIDs), read once when
	// the scope is derived; nil when there are none.
	hiddenGoals, hiddenMetrics []string
}

// scopeKey names a caller's scope in a request's memo.
type scopeKey struct{ subjectKey }

// scopeFor loads the subject and every session of the account (sessions are
// few) and decides per session: once per request (readMemo), however many
// listings the request makes. The scope is not changed afterwards, so a memo
// may share it between goroutines.
func (s *Store) scopeFor(ctx context.Context, q querier, c upstream.Caller) (*scope, error) {
	sub, err := s.loadSubject(ctx, q, c)
	if err != nil {
		return nil, err
	}
	return s.scopeOf(ctx, q, c, sub)
}

// scopeOf is scopeFor for the caller's subject sub, already loaded.
func (s *Store) scopeOf(ctx context.Context, q querier, c upstream.Caller, sub *upstream.Subject) (*scope, error) {
	m := readMemo(ctx, q)
	if m == nil {
		return s.deriveScope(ctx, q, c, sub)
	}
	v, err := m.Derive(scopeKey{subjectKeyOf(c)}, func() (any, error) { return s.deriveScope(ctx, q, c, sub) })
	if err != nil {
		return nil, err
	}
	return v.(*scope), nil
}

func (s *Store) deriveScope(ctx context.Context, q querier, c upstream.Caller, sub *upstream.Subject) (*scope, error) {
	if sub.Admin {
		return &scope{rule: upstream.NewVisibility(sub, nil), all: true, vis: dialectOf(q).vis()}, nil
	}
	ss, err := sessions.where(ctx, q, c.AccountID, trueSQL)
	if err != nil {
		return nil, err
	}
	rule := upstream.NewVisibility(sub, ss)
	sc := &scope{rule: rule, vis: dialectOf(q).vis(), owners: idsParam(sub.OwnerPrincipals()), deniers: idsParam(sub.Principals()),
		readable: idsParam(rule.ReadableSessions()), managed: idsParam(rule.ManagedSessions())}
	if err := sc.readHidden(ctx, q, c.AccountID); err != nil {
		return nil, err
	}
	return sc, nil
}

// The listing rule in SQL. Most goals and key results are not restricted
// (the key column restricted: upstream.GoalRestricted, MetricRestricted): a
// goal that is not is visible exactly when its session's goals are readable
// to the subject, a key result exactly when its goal is. So the goals the
// subject may not see are found from an index (goals_account_visibility:
// account, restricted, session, id), parsing only the restricted goals'
// documents (visibilitySQL.goal), and the restricted key results' likewise;
// they are few, and they are read once, when the scope is derived
// (readHidden), not again by every statement of the request (a tree's
// levels made dozens). Every row is then decided by a lookup of its key
// columns among them, never by parsing its document, and a subject who
// may not see anything of the account's goals and key results is not
// filtered at all: its counts read the same index as an admin's. A
// restricted caller's listing costs about an admin's. The conditions rely
// on what every write keeps: a key result's goal exists (deleting a goal
// takes its key results along).

// hiddenSQL reads the ids the subject may not see (parameters: account,
// account, account, readable sessions, account, readable sessions,
// deniers, owners, managed sessions, account, owners, owners, managed
// sessions): 'g' rows for goals (upstream.Visibility.GoalListed false), 'm'
// rows for restricted key results hidden for themselves (the key results'
// part of upstream.Visibility.MetricListed). The goals that are not
// restricted are hidden by their session: s walks the sessions the goals
// name, one index seek each (goals_account_visibility), so that only the
// goals of sessions the subject may not read are read, not every goal's
// index entry; the restricted goals and key results come from their
// indexes (goals_account_visibility, metrics_account_restricted).
func (sc *scope) hiddenSQL() string {
	return `WITH RECURSIVE s(id) AS (
			SELECT min(session_id) FROM goals WHERE account_id = ? AND restricted = 0
			UNION ALL
			SELECT (SELECT min(session_id) FROM goals WHERE account_id = ? AND restricted = 0 AND session_id > s.id) FROM s WHERE s.id IS NOT NULL)
		SELECT 'g', id FROM goals WHERE account_id = ? AND restricted = 0
			AND session_id IN (SELECT id FROM s WHERE id IS NOT NULL AND id NOT IN (SELECT value FROM json_each(?)))
		UNION ALL SELECT 'g', id FROM goals WHERE account_id = ? AND restricted = 1 AND NOT COALESCE(` + sc.vis.at(sc.vis.goal, "") + `, FALSE)
		UNION ALL SELECT 'm', id FROM metrics WHERE account_id = ? AND restricted = 1 AND NOT COALESCE(` + sc.vis.at(sc.vis.metricOwn, "") + `, FALSE)`
}

// readHidden fills sc.hiddenGoals and sc.hiddenMetrics.
func (sc *scope) readHidden(ctx context.Context, q querier, account string) error {
	rows, err := q.QueryContext(ctx, sc.hiddenSQL(), account, account, account, sc.readable, account, sc.readable, sc.deniers, sc.owners, sc.managed,
		account, sc.owners, sc.owners, sc.managed)
	if err != nil {
		return fmt.Errorf("sqlstore: read hidden goals and key results: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var kind, id string
		if err := rows.Scan(&kind, &id); err != nil {
			return fmt.Errorf("sqlstore: read hidden goals and key results: %w", err)
		}
		if kind == "g" {
			sc.hiddenGoals = append(sc.hiddenGoals, id)
		} else {
			sc.hiddenMetrics = append(sc.hiddenMetrics, id)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("sqlstore: read hidden goals and key results: %w", err)
	}
	return nil
}

// goalVisible is the SQL condition "the goal row (columns prefixed by p, e.g.
// "g.") is visible": upstream.Visibility.GoalListed. Its session lets the
// subject read goals (unless the goal does not inherit), the goal's own
// access does not deny goals:read, and it is not private or the subject
// owns it or manages its session: it is not among sc.hiddenGoals.
func (sc *scope) goalVisible(p, account string) (string, []any) {
	if sc.all || len(sc.hiddenGoals) == 0 {
		return trueSQL, nil
	}
	return sc.vis.unindexed + p + `id NOT IN ` + idList, []any{idsParam(sc.hiddenGoals)}
}

// metricVisible is "the key result row (prefix p) is visible"
// (upstream.Visibility.MetricListed): its goal is, and it is not private or
// the subject owns it or its goal or manages its session. Both parts are
// lookups of the row's key columns among the hidden ids, never a read of
// the row's document, so a count reads the covering index
// metrics_account_id alone (a condition naming the document, even behind
// restricted = 0, made SQLite read every key result's row).
func (sc *scope) metricVisible(p string, account string) (string, []any) {
	if sc.all {
		return trueSQL, nil
	}
	var conds []string
	var args []any
	if len(sc.hiddenGoals) > 0 {
		conds, args = append(conds, sc.vis.unindexed+p+`goal_id NOT IN `+idList), append(args, idsParam(sc.hiddenGoals))
	}
	if len(sc.hiddenMetrics) > 0 {
		conds = append(conds, `(`+p+`restricted = 0 OR `+sc.vis.unindexed+p+`id NOT IN `+idList+`)`)
		args = append(args, idsParam(sc.hiddenMetrics))
	}
	if len(conds) == 0 {
		return trueSQL, nil
	}
	return `(` + strings.Join(conds, " AND ") + `)`, args
}

// metricHidden is the key results metricVisible leaves out, as hiddenRows
// of the metrics table: those of a hidden goal (found by the goal index),
// and the restricted ones hidden for themselves whose goal is not (by the
// index of restricted key results). nil when nothing is hidden.
func (sc *scope) metricHidden() hiddenRows {
	if sc.all {
		return nil
	}
	var h hiddenRows
	if len(sc.hiddenGoals) > 0 {
		h = append(h, sqlCond{`goal_id IN ` + idList, []any{idsParam(sc.hiddenGoals)}})
	}
	if len(sc.hiddenMetrics) > 0 {
		own := sqlCond{`restricted = 1 AND id IN ` + idList, []any{idsParam(sc.hiddenMetrics)}}
		if len(sc.hiddenGoals) > 0 {
			own.sql += ` AND ` + sc.vis.unindexed + `goal_id NOT IN ` + idList
			own.args = append(own.args, idsParam(sc.hiddenGoals))
		}
		h = append(h, own)
	}
	return h
}

// taskParentVisible is "the task row's (prefix p) parent, if any, is
// visible" (the parent part of upstream.Visibility.TaskListed): it is not a
// goal or a key result the subject may not see (ids are unique across
// both; a parent that is gone leaves the task visible).
func (sc *scope) taskParentVisible(p, account string) (string, []any) {
	if sc.all {
		return trueSQL, nil
	}
	var conds []string
	var args []any
	if len(sc.hiddenGoals) > 0 {
		conds = append(conds, sc.vis.unindexed+p+`parent_id NOT IN `+idList,
			`NOT EXISTS (SELECT 1 FROM metrics tm WHERE tm.id = `+p+`parent_id AND tm.account_id = ? AND tm.goal_id IN `+idList+`)`)
		args = append(args, idsParam(sc.hiddenGoals), account, idsParam(sc.hiddenGoals))
	}
	if len(sc.hiddenMetrics) > 0 {
		conds, args = append(conds, sc.vis.unindexed+p+`parent_id NOT IN `+idList), append(args, idsParam(sc.hiddenMetrics))
	}
	if len(conds) == 0 {
		return trueSQL, nil
	}
	return `(` + p + `parent_id = '' OR ` + strings.Join(conds, " AND ") + `)`, args
}

// stubsKey names the obfuscated goals of a scope in a request's memo.
type stubsKey struct{ sc *scope }

// stubIDs returns the goals the subject may not see that lie on the way up
// from a visible goal (upstream.Visibility.Stubs): they are shown obfuscated. A request finds them once
// (readMemo): the query reads every goal the subject may not see.
func (s *Store) stubIDs(ctx context.Context, q querier, account string, sc *scope) ([]string, error) {
	if sc.all {
		return nil, nil
	}
	m := readMemo(ctx, q)
	if m == nil {
		return s.findStubs(ctx, q, account, sc)
	}
	v, err := m.Derive(stubsKey{sc}, func() (any, error) { return s.findStubs(ctx, q, account, sc) })
	if err != nil {
		return nil, err
	}
	return v.([]string), nil
}

// findStubs reads the obfuscated goals. The goals the subject may not see
// and that may be stubs (inv) are the hidden goals whose visibility SQL is
// false — not NULL: a goal hidden only because its session's goals are not
// readable, with no access list of its own, is NULL there, and never a stub
// (upstream.Visibility.Stubs). The
// walk up joins each stub's goal row (by id) to inv: written as
// "parent_id IN (SELECT id FROM inv)", SQLite planned the step from the
// parent index with a Bloom filter built over every goal of the account,
// most of a viewer's REST listing of 1,000 objectives.
func (s *Store) findStubs(ctx context.Context, q querier, account string, sc *scope) ([]string, error) {
	if len(sc.hiddenGoals) == 0 {
		return nil, nil
	}
	hidden := idsParam(sc.hiddenGoals)
	vc, vcArgs := sc.goalVisible("c.", account)
	args := append([]any{account, hidden, sc.readable, sc.deniers, sc.owners, sc.managed, account}, vcArgs...)
	args = append(args, account)
	rows, err := q.QueryContext(ctx, `WITH RECURSIVE inv(id) AS (
			SELECT id FROM goals WHERE account_id = ? AND id IN `+idList+` AND NOT `+sc.vis.at(sc.vis.goal, "")+`),
		stub(id) AS (
			SELECT i.id FROM inv i WHERE EXISTS (SELECT 1 FROM goals c WHERE c.account_id = ? AND c.parent_id = i.id AND `+vc+`)
			UNION
			SELECT inv.id FROM stub JOIN goals g ON g.id = stub.id JOIN inv ON inv.id = g.parent_id WHERE g.account_id = ?)
		SELECT id FROM stub ORDER BY id`, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: find obfuscated goals: %w", err)
	}
	return scanStrings(rows)
}

// goalSource is the goals table as the subject sees it: visible goals as
// they are, goals on the way up from them obfuscated (owner_id emptied too,
// so no filter or sort can read them), the rest absent.
func (s *Store) goalSource(ctx context.Context, q querier, account string, sc *scope) (string, []any, error) {
	if sc.all || len(sc.hiddenGoals) == 0 {
		return "goals", nil, nil
	}
	stubs, err := s.stubIDs(ctx, q, account, sc)
	if err != nil {
		return "", nil, err
	}
	vis, args := sc.goalVisible("", account)
	st := idsParam(nonNil(stubs))
	src := `(SELECT id, account_id, parent_id, session_id,
			CASE WHEN id IN (SELECT value FROM json_each(?)) THEN '' ELSE owner_id END AS owner_id,
			CASE WHEN id IN (SELECT value FROM json_each(?)) THEN ` + sc.vis.stubDoc + ` ELSE doc END AS doc
		FROM goals WHERE account_id = ? AND (` + vis + ` OR id IN (SELECT value FROM json_each(?))))`
	all := append([]any{st, st, account}, args...)
	return src, append(all, st), nil
}

// metricSource is the metrics table as the subject sees it.
func (s *Store) metricSource(account string, sc *scope) (string, []any) {
	vis, args := sc.metricVisible("metrics.", account)
	if vis == trueSQL {
		return "metrics", nil
	}
	return `(SELECT * FROM metrics WHERE account_id = ? AND ` + vis + `)`, append([]any{account}, args...)
}

// taskSource is the tasks table as the subject sees it
// (upstream.Visibility.TaskListed): tasks whose parent is visible, and the
// subject's own tasks under a parent it may not see, with parentName
// emptied.
func (s *Store) taskSource(account string, sc *scope) (string, []any) {
	vis, args := sc.taskParentVisible("tasks.", account)
	if vis == trueSQL {
		return "tasks", nil
	}
	src := `(SELECT id, account_id, parent_id, session_id, owner_id,
			CASE WHEN ` + vis + ` THEN doc ELSE ` + sc.vis.noParentName + ` END AS doc
		FROM tasks WHERE account_id = ? AND (owner_id = ? OR ` + vis + `))`
	all := append([]any{}, args...)
	all = append(all, account, sc.rule.Sub.UserID)
	return src, append(all, args...)
}

// checkinSource is the check-ins of visible key results.
func (s *Store) checkinSource(account string, sc *scope) (string, []any) {
	mv, args := sc.metricVisible("cm.", account)
	if mv == trueSQL {
		return "checkins", nil
	}
	return `(SELECT * FROM checkins WHERE account_id = ? AND EXISTS (SELECT 1 FROM metrics cm WHERE cm.id = checkins.metric_id AND cm.account_id = ? AND ` + mv + `))`,
		append([]any{account, account}, args...)
}
