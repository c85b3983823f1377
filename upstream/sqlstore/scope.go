package sqlstore

import (
	"context"
	"fmt"

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
	return &scope{rule: rule, vis: dialectOf(q).vis(), owners: idsParam(sub.OwnerPrincipals()), deniers: idsParam(sub.Principals()),
		readable: idsParam(rule.ReadableSessions()), managed: idsParam(rule.ManagedSessions())}, nil
}

// The listing rule in SQL. Most goals and key results are not restricted
// (the key column restricted: upstream.GoalRestricted, MetricRestricted): a
// goal that is not is visible exactly when its session's goals are readable
// to the subject, a key result exactly when its goal is. So the goals the
// subject may not see are found from an index (goals_account_visibility:
// account, restricted, session, id), parsing only the restricted goals'
// documents (visibilitySQL.goal), once per statement; they are few, and
// every row is then decided by a lookup of its goal's id among them, never
// by parsing its document. A restricted caller's listing costs about an
// admin's. The conditions rely on what every write keeps: a key result's
// goal exists (deleting a goal takes its key results along).

// hiddenGoalIDs is a subquery of the ids of the account's goals the
// subject may not see (upstream.Visibility.GoalListed false).
func (sc *scope) hiddenGoalIDs(account string) (string, []any) {
	return `SELECT id FROM goals WHERE account_id = ? AND restricted = 0 AND session_id NOT IN (SELECT value FROM json_each(?))
		UNION ALL SELECT id FROM goals WHERE account_id = ? AND restricted = 1 AND NOT COALESCE(` + sc.vis.at(sc.vis.goal, "") + `, FALSE)`,
		[]any{account, sc.readable, account, sc.readable, sc.deniers, sc.owners, sc.managed}
}

// goalVisible is the SQL condition "the goal row (columns prefixed by p, e.g.
// "g.") is visible": upstream.Visibility.GoalListed. Its session lets the
// subject read goals (unless the goal does not inherit), the goal's own
// access does not deny goals:read, and it is not private or the subject
// owns it or manages its session.
func (sc *scope) goalVisible(p, account string) (string, []any) {
	if sc.all {
		return trueSQL, nil
	}
	hg, args := sc.hiddenGoalIDs(account)
	return sc.vis.unindexed + p + `id NOT IN (` + hg + `)`, args
}

// hiddenMetricIDs is a subquery of the ids of the account's restricted key
// results the subject may not see for themselves (not private, or owned by
// it or its goal's owners, or in a session it manages): the key results'
// part of upstream.Visibility.MetricListed, decided on the few restricted
// ones' documents once per statement.
func (sc *scope) hiddenMetricIDs(account string) (string, []any) {
	return `SELECT id FROM metrics WHERE account_id = ? AND restricted = 1 AND NOT COALESCE(` + sc.vis.at(sc.vis.metricOwn, "") + `, FALSE)`,
		[]any{account, sc.owners, sc.owners, sc.managed}
}

// metricVisible is "the key result row (prefix p) is visible"
// (upstream.Visibility.MetricListed): its goal is, and it is not private or
// the subject owns it or its goal or manages its session. Both parts are
// lookups of the row's key columns among the few hidden ids, never a read
// of the row's document, so a count reads the covering index
// metrics_account_id alone (a condition naming the document, even behind
// restricted = 0, made SQLite read every key result's row).
func (sc *scope) metricVisible(p string, account string) (string, []any) {
	if sc.all {
		return trueSQL, nil
	}
	hg, args := sc.hiddenGoalIDs(account)
	hm, margs := sc.hiddenMetricIDs(account)
	cond := `(` + sc.vis.unindexed + p + `goal_id NOT IN (` + hg + `)
		AND (` + p + `restricted = 0 OR ` + sc.vis.unindexed + p + `id NOT IN (` + hm + `)))`
	return cond, append(args, margs...)
}

// taskParentVisible is "the task row's (prefix p) parent, if any, is
// visible" (the parent part of upstream.Visibility.TaskListed): it is not a
// goal or a key result the subject may not see (ids are unique across
// both; a parent that is gone leaves the task visible).
func (sc *scope) taskParentVisible(p, account string) (string, []any) {
	if sc.all {
		return trueSQL, nil
	}
	hg, gargs := sc.hiddenGoalIDs(account)
	mv, margs := sc.metricVisible("tm.", account)
	cond := `(` + p + `parent_id = '' OR ` + sc.vis.unindexed + p + `parent_id NOT IN (` + hg + `)
		AND NOT EXISTS (SELECT 1 FROM metrics tm WHERE tm.id = ` + p + `parent_id AND tm.account_id = ? AND NOT COALESCE(` + mv + `, FALSE)))`
	return cond, append(append(gargs, account), margs...)
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
// (inv) are those whose visibility SQL is false — not NULL: a goal hidden
// only because its session's goals are not readable, with no access list
// of its own, is NULL there, and never a stub (upstream.Visibility.Stubs).
// A goal that is not restricted and whose session is readable is visible;
// the others are decided by visibilitySQL.goal as they always were. The
// walk up joins each stub's goal row (by id) to inv: written as
// "parent_id IN (SELECT id FROM inv)", SQLite planned the step from the
// parent index with a Bloom filter built over every goal of the account,
// most of a viewer's REST listing of 1,000 objectives.
func (s *Store) findStubs(ctx context.Context, q querier, account string, sc *scope) ([]string, error) {
	legacy := sc.vis.at(sc.vis.goal, "")
	legacyArgs := []any{sc.readable, sc.deniers, sc.owners, sc.managed}
	vc, vcArgs := sc.goalVisible("c.", account)
	args := append([]any{account, sc.readable}, legacyArgs...)
	args = append(args, account)
	args = append(args, legacyArgs...)
	args = append(args, account)
	args = append(args, vcArgs...)
	args = append(args, account)
	rows, err := q.QueryContext(ctx, `WITH RECURSIVE inv(id) AS (
			SELECT id FROM goals WHERE account_id = ? AND restricted = 0 AND session_id NOT IN (SELECT value FROM json_each(?)) AND NOT `+legacy+`
			UNION ALL SELECT id FROM goals WHERE account_id = ? AND restricted = 1 AND NOT `+legacy+`),
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
	if sc.all {
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
	if sc.all {
		return "metrics", nil
	}
	vis, args := sc.metricVisible("metrics.", account)
	return `(SELECT * FROM metrics WHERE account_id = ? AND ` + vis + `)`, append([]any{account}, args...)
}

// taskSource is the tasks table as the subject sees it
// (upstream.Visibility.TaskListed): tasks whose parent is visible, and the
// subject's own tasks under a parent it may not see, with parentName
// emptied.
func (s *Store) taskSource(account string, sc *scope) (string, []any) {
	if sc.all {
		return "tasks", nil
	}
	vis, args := sc.taskParentVisible("tasks.", account)
	src := `(SELECT id, account_id, parent_id, session_id, owner_id,
			CASE WHEN ` + vis + ` THEN doc ELSE ` + sc.vis.noParentName + ` END AS doc
		FROM tasks WHERE account_id = ? AND (owner_id = ? OR ` + vis + `))`
	all := append([]any{}, args...)
	all = append(all, account, sc.rule.Sub.UserID)
	return src, append(all, args...)
}

// checkinSource is the check-ins of visible key results.
func (s *Store) checkinSource(account string, sc *scope) (string, []any) {
	if sc.all {
		return "checkins", nil
	}
	mv, args := sc.metricVisible("cm.", account)
	return `(SELECT * FROM checkins WHERE account_id = ? AND EXISTS (SELECT 1 FROM metrics cm WHERE cm.id = checkins.metric_id AND cm.account_id = ? AND ` + mv + `))`,
		append([]any{account, account}, args...)
}
