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

// goalVisible is the SQL condition "the goal row (columns prefixed by p, e.g.
// "g.") is visible": upstream.Visibility.GoalListed. Its session lets the
// subject read goals (unless the goal does not inherit), the goal's own
// access does not deny goals:read, and it is not private or the subject
// owns it or manages its session.
func (sc *scope) goalVisible(p string) (string, []any) {
	if sc.all {
		return trueSQL, nil
	}
	cond := sc.vis.at(sc.vis.goal, p)
	return cond, []any{sc.readable, sc.deniers, sc.owners, sc.managed}
}

// metricVisible is "the key result row (prefix p) is visible"
// (upstream.Visibility.MetricListed): its goal is, and it is not private or
// the subject owns it or manages its session.
func (sc *scope) metricVisible(p string, account string) (string, []any) {
	if sc.all {
		return trueSQL, nil
	}
	gv, gargs := sc.goalVisible("vg.")
	cond := `(EXISTS (SELECT 1 FROM goals vg WHERE vg.id = ` + p + `goal_id AND vg.account_id = ? AND ` + gv + `)
		AND ` + sc.vis.at(sc.vis.metricOwn, p) + `)`
	args := append([]any{account}, gargs...)
	return cond, append(args, sc.owners, sc.owners, sc.managed)
}

// taskParentVisible is "the task row's (prefix p) parent, if any, is
// visible" (the parent part of upstream.Visibility.TaskListed).
func (sc *scope) taskParentVisible(p, account string) (string, []any) {
	if sc.all {
		return trueSQL, nil
	}
	gv, gargs := sc.goalVisible("tg.")
	mv, margs := sc.metricVisible("tm.", account)
	cond := `(` + p + `parent_id = ''
		OR EXISTS (SELECT 1 FROM goals tg WHERE tg.id = ` + p + `parent_id AND tg.account_id = ? AND ` + gv + `)
		OR EXISTS (SELECT 1 FROM metrics tm WHERE tm.id = ` + p + `parent_id AND tm.account_id = ? AND ` + mv + `)
		OR (NOT EXISTS (SELECT 1 FROM goals xg WHERE xg.id = ` + p + `parent_id AND xg.account_id = ?)
			AND NOT EXISTS (SELECT 1 FROM metrics xm WHERE xm.id = ` + p + `parent_id AND xm.account_id = ?)))`
	args := append([]any{account}, gargs...)
	args = append(args, account)
	args = append(args, margs...)
	return cond, append(args, account, account)
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

func (s *Store) findStubs(ctx context.Context, q querier, account string, sc *scope) ([]string, error) {
	vi, viArgs := sc.goalVisible("")
	vc, vcArgs := sc.goalVisible("c.")
	args := append([]any{account}, viArgs...)
	args = append(args, account)
	args = append(args, vcArgs...)
	args = append(args, account)
	rows, err := q.QueryContext(ctx, `WITH RECURSIVE inv(id) AS (SELECT id FROM goals WHERE account_id = ? AND NOT `+vi+`),
		stub(id) AS (
			SELECT i.id FROM inv i WHERE EXISTS (SELECT 1 FROM goals c WHERE c.account_id = ? AND c.parent_id = i.id AND `+vc+`)
			UNION
			SELECT g.parent_id FROM goals g JOIN stub ON g.id = stub.id WHERE g.account_id = ? AND g.parent_id IN (SELECT id FROM inv))
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
	vis, args := sc.goalVisible("")
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
