package sqlstore

import (
	"context"
	"fmt"
	"strings"

	"github.com/okrgate/okrgate/upstream"
)

// The decisions — who may do what on which item — are pure code in package
// upstream (access.go, access_items.go): this file loads the facts they
// decide on (the caller's roles, teams and grants; an item's session) and
// calls them.

// loadSubject resolves the caller's roles (direct and through teams), teams
// and grants: three queries, once per request (readMemo).
func (s *Store) loadSubject(ctx context.Context, q querier, c upstream.Caller) (*upstream.Subject, error) {
	// A bulk write derives the subject once for its batch.
	if b := s.bulk; b != nil {
		return b.subject(ctx, q, c)
	}
	if tf := txFactsOf(q); tf != nil {
		// A write derives the caller's subject once, from what its
		// transaction sees, for all its decisions and its answer's view.
		return tf.subject(c, func() (*upstream.Subject, error) { return s.deriveSubject(ctx, q, c) })
	}
	m := readMemo(ctx, q)
	if m == nil {
		return s.deriveSubject(ctx, q, c)
	}
	v, err := m.Derive(subjectKeyOf(c), func() (any, error) { return s.deriveSubject(ctx, q, c) })
	if err != nil {
		return nil, err
	}
	return v.(*upstream.Subject), nil
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

// txFacts are what one write transaction derives once: the subjects of
// its callers.
type txFacts struct {
	subjects map[subjectKey]*upstream.Subject
}

// txFactsOf returns the facts of q's write transaction, or nil.
func txFactsOf(q querier) *txFacts {
	switch c := q.(type) {
	case counted:
		return c.facts
	case preparedTx:
		return c.count.facts
	}
	return nil
}

// subject returns the subject of c derived by derive, once per
// transaction.
func (tf *txFacts) subject(c upstream.Caller, derive func() (*upstream.Subject, error)) (*upstream.Subject, error) {
	key := subjectKeyOf(c)
	if sub, ok := tf.subjects[key]; ok {
		return sub, nil
	}
	sub, err := derive()
	if err != nil {
		return nil, err
	}
	if tf.subjects == nil {
		tf.subjects = map[subjectKey]*upstream.Subject{}
	}
	tf.subjects[key] = sub
	return sub, nil
}

// has reports whether the subject of c was derived already.
func (tf *txFacts) has(c upstream.Caller) bool {
	_, ok := tf.subjects[subjectKeyOf(c)]
	return ok
}

// subjectKey names a caller's subject in a request's memo.
type subjectKey struct{ account, user, roles string }

func subjectKeyOf(c upstream.Caller) subjectKey {
	return subjectKey{account: c.AccountID, user: c.UserID, roles: strings.Join(c.Roles, ",")}
}

// deriveSubject reads the caller's roles, teams and grants, the facts of
// its upstream.Subject, in one statement (subjectSQL). The subject is not
// changed afterwards, so a memo may share it between goroutines.
func (s *Store) deriveSubject(ctx context.Context, q querier, c upstream.Caller) (*upstream.Subject, error) {
	var f subjectFacts
	if err := s.run(ctx, q, subjectStmt(dialectOf(q), c, &f)); err != nil {
		return nil, fmt.Errorf("sqlstore: load subject: %w", err)
	}
	return f.subject(c)
}

// authorize is the one place where the store decides whether the caller may
// perform action (on it, when given): it loads the facts and asks
// upstream.Subject.Decide. It returns a forbidden error when not, and
// not_found for a private item the caller may not see, so that its
// existence does not leak. Every operation calls it before reading or
// writing.
func (s *Store) authorize(ctx context.Context, q querier, c upstream.Caller, action upstream.Action, it *upstream.Item) error {
	sub, err := s.loadSubject(ctx, q, c)
	if err != nil {
		return err
	}
	var sess *upstream.Session
	// An admin is never refused (sees and may do everything): the
	// session cannot change the decision.
	if !sub.Admin && it != nil && it.SessionID != "" && it.Kind != "session" {
		ss, err := sessions.get(ctx, q, c.AccountID, it.SessionID)
		if err != nil && upstream.ErrorCode(err) != upstream.CodeNotFound {
			return err
		}
		if err == nil {
			sess = &ss
		}
	}
	return sub.Decide(action, it, sess)
}

// taskItem loads a task's parent (goal, or key result and its goal) for
// upstream.TaskItem. A parent that is gone leaves the task on its own.
func (s *Store) taskItem(ctx context.Context, q querier, account string, t upstream.Task) (*upstream.Item, error) {
	switch t.ParentType {
	case upstream.ParentGoal:
		g, err := goals.get(ctx, q, account, t.ParentID)
		if err != nil {
			return upstream.TaskItem(t, nil), nil
		}
		return upstream.TaskItem(t, upstream.GoalItem(g)), nil
	case upstream.ParentMetric:
		m, err := metrics.get(ctx, q, account, t.ParentID)
		if err != nil {
			return upstream.TaskItem(t, nil), nil
		}
		g, err := goals.get(ctx, q, account, m.GoalID)
		if err != nil {
			return upstream.TaskItem(t, nil), nil
		}
		return upstream.TaskItem(t, upstream.MetricItem(m, g)), nil
	}
	return upstream.TaskItem(t, nil), nil
}

// authorizeTask checks action on a task; a private parent hides the task
// from those who may not see it, unless they own the task itself — then
// hideParent says its parentName must not be shown (upstream.Subject.OwnTask).
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
		var own upstream.Item
		own, hideParent = sub.OwnTask(*it, t.OwnerID, sess)
		it = &own
	}
	return hideParent, s.authorize(ctx, q, c, action, it)
}

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
	acts := upstream.MetricActions()
	if sub.Admin {
		// An admin sees and may do everything: the goals and sessions the
		// decision would read cannot change it.
		for i := range ms {
			ms[i].CurrentUserAllowedActions = sub.AllowedOn(nil, nil, acts)
		}
		return nil
	}
	gids := make([]string, len(ms))
	for i, m := range ms {
		gids[i] = m.GoalID
	}
	// The decision reads of each goal its owners, session, privacy and
	// access (upstream.MetricItem): those keys alone are decoded.
	gs, _, err := goals.listFrom(ctx, q, goals.name, nil, c.AccountID, upstream.ListQuery{All: true,
		Filter: anyOf("id", dedupe(gids)), Decode: []string{"ownerIds", "sessionId", "private", "access"}})
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
		ms[i].CurrentUserAllowedActions = sub.AllowedOn(upstream.MetricItem(ms[i], byID[ms[i].GoalID]), sess[ms[i].SessionID], acts)
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
	acts := upstream.SessionActions()
	for i := range ss {
		ss[i].CurrentUserAllowedActions = sub.AllowedOn(upstream.SessionItem(ss[i]), nil, acts)
	}
	return nil
}
