package sqlstore

import (
	"context"

	"github.com/okrgate/okrgate/upstream"
)

// A write answers what the GET of the item that follows answers: the
// stored item plus what a read adds for the caller (currentUserAllowedActions,
// redaction). The views below add it inside the write's transaction, from
// what the transaction sees; a read after the commit would do the same but
// fill the request's memo with a derivation the write already made.

// goalView adds the caller's view of g, as GetGoal does.
func (s *Store) goalView(ctx context.Context, q querier, c upstream.Caller, g *upstream.Goal) error {
	gs := []upstream.Goal{*g}
	if err := s.redactGoals(ctx, q, c, gs, nil); err != nil {
		return err
	}
	*g = gs[0]
	return nil
}

// metricView adds the caller's view of m, as GetMetric does.
func (s *Store) metricView(ctx context.Context, q querier, c upstream.Caller, m *upstream.Metric) error {
	ms := []upstream.Metric{*m}
	if err := s.metricActionsFor(ctx, q, c, ms); err != nil {
		return err
	}
	*m = ms[0]
	return nil
}

// sessionView adds the caller's view of ss, as GetSession does.
func (s *Store) sessionView(ctx context.Context, q querier, c upstream.Caller, ss *upstream.Session) error {
	out := []upstream.Session{*ss}
	if err := s.sessionActionsFor(ctx, q, c, out); err != nil {
		return err
	}
	*ss = out[0]
	return nil
}
