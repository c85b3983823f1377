package sqlstore

import (
	"context"
	"slices"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/query"
)

// goalStub answers the read of a goal the caller may not see: an obfuscated
// stub when the goal lies on the way up from a goal the caller sees (so
// following a visible goal's parent edge works), else notFound.
func (s *Store) goalStub(ctx context.Context, q querier, c upstream.Caller, g upstream.Goal, notFound error) (upstream.Goal, error) {
	sc, err := s.scopeFor(ctx, q, c)
	if err != nil {
		return upstream.Goal{}, err
	}
	stubs, err := s.stubIDs(ctx, q, c.AccountID, sc)
	if err != nil {
		return upstream.Goal{}, err
	}
	if !slices.Contains(stubs, g.ID) {
		return upstream.Goal{}, notFound
	}
	return upstream.Obfuscate(g), nil
}

// redactGoals makes a page of goals fit for the caller: obfuscated stubs
// lose everything but their place in the tree, embedded key results the
// caller may not see are dropped, and each goal (and embedded key result)
// gets the caller's allowed actions when fields shows them. The sessions it decides with are the caller's scope's: no query
// once the request has its scope.
func (s *Store) redactGoals(ctx context.Context, q querier, c upstream.Caller, gs []upstream.Goal, fields query.Projection) error {
	if len(gs) == 0 {
		return nil
	}
	sub, sess, err := s.decisionSessions(ctx, q, c)
	if err != nil {
		return err
	}
	goalActs := fields.Has("currentUserAllowedActions")
	metricActs := fields["metrics"].Has("currentUserAllowedActions")
	goalCands, metricCands := upstream.GoalActions(), upstream.MetricActions()
	for i := range gs {
		g := &gs[i]
		if g.Obfuscated {
			*g = upstream.Obfuscate(*g)
			g.CurrentUserAllowedActions = []string{}
			continue
		}
		if g.Metrics != nil {
			kept := g.Metrics[:0]
			for _, m := range g.Metrics {
				if sub.Sees(upstream.MetricItem(m, *g), sess[g.SessionID]) {
					if metricActs {
						m.CurrentUserAllowedActions = sub.AllowedOn(upstream.MetricItem(m, *g), sess[g.SessionID], metricCands)
					}
					kept = append(kept, m)
				}
			}
			g.Metrics = kept
		}
		if goalActs {
			g.CurrentUserAllowedActions = sub.AllowedOn(upstream.GoalItem(*g), sess[g.SessionID], goalCands)
		}
	}
	return nil
}

// visibleGoal loads the goal a key result or task names, refusing one the
// caller may not see as bad input.
func (s *Store) visibleGoal(ctx context.Context, q querier, c upstream.Caller, g upstream.Goal, field string) error {
	if err := s.authorize(ctx, q, c, upstream.GoalsRead, upstream.GoalItem(g)); err != nil {
		if upstream.ErrorCode(err) == upstream.CodeNotFound {
			return upstream.Invalid(field, "no goal %q", g.ID)
		}
		return err
	}
	return nil
}

// authorizeTaskWrite checks a task write against its (new) parent: a parent
// the caller may not see is bad input, as if it did not exist.
func (s *Store) authorizeTaskWrite(ctx context.Context, q querier, c upstream.Caller, action upstream.Action, t upstream.Task) error {
	it, err := s.taskItem(ctx, q, c.AccountID, t)
	if err != nil {
		return err
	}
	if err := s.authorize(ctx, q, c, action, it); err != nil {
		if upstream.ErrorCode(err) == upstream.CodeNotFound {
			return upstream.Invalid("parentId", "no goal or key result %q", t.ParentID)
		}
		return err
	}
	return nil
}

// decisionSessions returns the caller's subject and the sessions of the
// account that per-item decisions read: none for an admin, whom no session
// can refuse anything; else the sessions of the caller's scope (memoised per
// request, see scopeFor).
func (s *Store) decisionSessions(ctx context.Context, q querier, c upstream.Caller) (*upstream.Subject, map[string]*upstream.Session, error) {
	sub, err := s.loadSubject(ctx, q, c)
	if err != nil {
		return nil, nil, err
	}
	if sub.Admin {
		return sub, nil, nil
	}
	sc, err := s.scopeOf(ctx, q, c, sub)
	if err != nil {
		return nil, nil, err
	}
	return sub, sc.rule.Sessions, nil
}
