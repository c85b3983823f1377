package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/okrgate/okrgate/upstream"
)

// ListMetrics lists key results.
func (s *Store) ListMetrics(ctx context.Context, lq upstream.ListQuery) (upstream.Page[upstream.Metric], error) {
	return listPage(ctx, s, listing[upstream.Metric]{action: upstream.MetricsRead, table: metrics,
		source: scoped(s.metricSource), hidden: (*scope).metricHidden,
		then: func(ctx context.Context, q querier, c upstream.Caller, items []upstream.Metric, lq upstream.ListQuery) ([]upstream.Metric, error) {
			if err := s.enrichMetrics(ctx, q, c.AccountID, items, lq.Fields); err != nil {
				return nil, err
			}
			if lq.Fields.Has("currentUserAllowedActions") {
				return items, s.metricActionsFor(ctx, q, c, items)
			}
			return items, nil
		}}, lq)
}

// GetMetric returns one key result.
func (s *Store) GetMetric(ctx context.Context, id string) (upstream.Metric, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.Metric{}, err
	}
	q := s.read()
	if err := s.authorizeMetric(ctx, q, c, upstream.MetricsRead, id); err != nil {
		return upstream.Metric{}, err
	}
	m, err := s.getMetric(ctx, q, c.AccountID, id)
	if err != nil {
		return upstream.Metric{}, err
	}
	ms := []upstream.Metric{m}
	if err := s.metricActionsFor(ctx, q, c, ms); err != nil {
		return upstream.Metric{}, err
	}
	return ms[0], nil
}

// authorizeMetric checks action on the key result id (and its goal).
func (s *Store) authorizeMetric(ctx context.Context, q querier, c upstream.Caller, action upstream.Action, id string) error {
	m, err := metrics.get(ctx, q, c.AccountID, id)
	if err != nil {
		return err
	}
	g, err := goals.get(ctx, q, c.AccountID, m.GoalID)
	if err != nil {
		return err
	}
	return s.authorize(ctx, q, c, action, upstream.MetricItem(m, g))
}

func (s *Store) getMetric(ctx context.Context, q querier, account, id string) (upstream.Metric, error) {
	m, err := metrics.get(ctx, q, account, id)
	if err != nil {
		return upstream.Metric{}, err
	}
	ms := []upstream.Metric{m}
	if err := s.enrichMetrics(ctx, q, account, ms, nil); err != nil {
		return upstream.Metric{}, err
	}
	return ms[0], nil
}

// goalFor loads the goal a key result names, with its session.
func (s *Store) goalFor(ctx context.Context, q querier, account, id string) (upstream.Goal, upstream.Session, error) {
	if id == "" {
		return upstream.Goal{}, upstream.Session{}, upstream.Invalid("goalId", "is required")
	}
	g, err := goals.get(ctx, q, account, id)
	if upstream.ErrorCode(err) == upstream.CodeNotFound {
		return upstream.Goal{}, upstream.Session{}, upstream.Invalid("goalId", "no goal %q", id)
	}
	if err != nil {
		return upstream.Goal{}, upstream.Session{}, err
	}
	ss, err := sessions.get(ctx, q, account, g.SessionID)
	return g, ss, err
}

// CreateMetric adds a key result to a goal in an open session.
func (s *Store) CreateMetric(ctx context.Context, in upstream.MetricInput) (upstream.Metric, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.Metric{}, err
	}
	m := upstream.Metric{
		ID: s.ids.New(), AccountID: c.AccountID, Name: strings.TrimSpace(in.Name), Description: in.Description,
		RichTextDescription: in.RichTextDescription, InitialValue: in.InitialValue, Critical: in.Critical,
		TargetOperator: in.TargetOperator, ManualType: in.ManualType, Private: in.Private,
		Settings: nonNil(in.Settings), TargetMetrics: map[string]any{}, CurrentUserAllowedActions: []string{},
	}
	upstream.CopyFields(&m, in) // the fields stored as given (upstream.CopyTag)
	if in.Format != nil {
		m.Format = *in.Format
	}
	if m.ManualType == "" {
		m.ManualType = upstream.TypeDouble
	}
	if m.TargetOperator == "" {
		m.TargetOperator = upstream.AtLeast
	}
	switch {
	case in.Target != nil:
		m.Target = *in.Target
	case m.ManualType == upstream.TypeBool:
		m.Target = 1
	default:
		return upstream.Metric{}, upstream.Invalid("target", "is required")
	}
	m.Actual = m.InitialValue
	if in.Actual != nil {
		m.Actual = *in.Actual
	}
	if m.DueDate, err = upstream.ParseDate("dueDate", in.DueDate); err != nil {
		return upstream.Metric{}, err
	}
	if m.SoftDueDate, err = upstream.ParseDate("softDueDate", in.SoftDueDate); err != nil {
		return upstream.Metric{}, err
	}
	m.OwnerID, m.OwnerIDs = upstream.Owners(in.OwnerID, in.OwnerIDs, c.UserID)
	err = s.tx(ctx, func(q querier) error {
		if in.GoalID == "" {
			return upstream.Invalid("goalId", "is required")
		}
		f := &itemFacts{goalIDs: []string{in.GoalID}, ownerIDs: m.OwnerIDs, pathOf: []string{in.GoalID}}
		if err := f.load(ctx, s, q, c); err != nil {
			return err
		}
		g, ok := f.goals[in.GoalID]
		if !ok {
			return upstream.Invalid("goalId", "no goal %q", in.GoalID)
		}
		ss, ok := f.sessions[g.SessionID]
		if !ok {
			return upstream.NotFound(sessions.kind, g.SessionID)
		}
		if err := upstream.SessionGate(ss, upstream.Structure); err != nil {
			return err
		}
		if _, err := f.visibleGoal(ctx, s, q, c, g.ID, "goalId"); err != nil {
			return err
		}
		if err := f.decide(ctx, s, q, c, upstream.MetricsCreate, upstream.MetricItem(m, g)); err != nil {
			return err
		}
		if err := checkMetricLimit(ctx, q, c.AccountID, ss, g.ID); err != nil {
			return err
		}
		copyGoal(&m, g)
		if err := upstream.CheckMetric(m, ss); err != nil {
			return err
		}
		if err := f.checkOwners("ownerIds", m.OwnerIDs); err != nil {
			return err
		}
		settle(&m)
		if err := queueInsert(ctx, s, q, metrics, c.AccountID, &m); err != nil {
			return err
		}
		if !f.withPath {
			if err := s.recompute(ctx, q, c.AccountID, g.ID); err != nil {
				return err
			}
		} else {
			f.path.addMetric(m.ID, g.ID, m.Attainment)
			if err := s.recomputePaths(ctx, q, c.AccountID, &f.path); err != nil {
				return err
			}
		}
		if s.bulk != nil {
			return nil // a batch returns what it wrote, without a read's enrichment
		}
		// The answer is the key result as stored, with its owners, as
		// GetMetric would read it.
		if m, err = asStored(m); err != nil {
			return err
		}
		m.Assignee, m.Assignees = ownersOf(f.owners, m.OwnerID, m.OwnerIDs)
		return s.metricView(ctx, q, c, &m)
	})
	if err != nil {
		return upstream.Metric{}, err
	}
	return m, nil
}

// checkMetricLimit enforces the session's metricsPerGoalLimit for a key
// result about to be added to goal (upstream.CheckMetricLimit). It counts
// the rows rather than reading the goal's metricsCount, which a Bulk batch
// brings up to date only at its end.
func checkMetricLimit(ctx context.Context, q querier, account string, ss upstream.Session, goal string) error {
	lim := ss.Settings.MetricsPerGoalLimit
	if lim <= 0 {
		return nil
	}
	var n int
	if err := q.QueryRowContext(ctx, "SELECT count(*) FROM metrics WHERE account_id = ? AND goal_id = ?", account, goal).Scan(&n); err != nil {
		return fmt.Errorf("sqlstore: count key results of %s: %w", goal, err)
	}
	return upstream.CheckMetricLimit(ss, goal, n)
}

// checkMetric validates a key result about to be written (its fields:
// upstream.CheckMetric; its owners exist) and recomputes its attainment.
func (s *Store) checkMetric(ctx context.Context, q querier, account string, m *upstream.Metric, ss upstream.Session) error {
	if err := upstream.CheckMetric(*m, ss); err != nil {
		return err
	}
	if err := s.checkOwners(ctx, q, account, "ownerIds", m.OwnerIDs); err != nil {
		return err
	}
	settle(m)
	return nil
}

// UpdateMetric changes a key result; moving it to another goal recomputes both trees.
func (s *Store) UpdateMetric(ctx context.Context, id string, in upstream.MetricPatch) (upstream.Metric, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.Metric{}, err
	}
	var m upstream.Metric
	err = s.tx(ctx, func(q querier) error {
		old, err := metrics.get(ctx, q, c.AccountID, id)
		if err != nil {
			return err
		}
		g, ss, err := s.goalFor(ctx, q, c.AccountID, old.GoalID)
		if err != nil {
			return err
		}
		if err := s.authorize(ctx, q, c, upstream.MetricsUpdate, upstream.MetricItem(old, g)); err != nil {
			return err
		}
		if err := upstream.SessionGate(ss, upstream.Structure); err != nil {
			return err
		}
		m = old
		upstream.CopyFields(&m, in)
		set(&m.Name, in.Name, strings.TrimSpace)
		set(&m.Description, in.Description, nil)
		set(&m.RichTextDescription, in.RichTextDescription, nil)
		set(&m.TargetOperator, in.TargetOperator, nil)
		set(&m.ManualType, in.ManualType, nil)
		if in.InitialValue != nil {
			m.InitialValue = *in.InitialValue
		}
		if in.Target != nil {
			m.Target = *in.Target
		}
		if in.Critical != nil {
			m.Critical = in.Critical
		}
		if in.Format != nil {
			m.Format = *in.Format
		}
		if in.Private != nil {
			m.Private = *in.Private
		}
		if in.Settings != nil {
			m.Settings = nonNil(*in.Settings)
		}
		if in.DueDate != nil {
			if m.DueDate, err = upstream.ParseDate("dueDate", *in.DueDate); err != nil {
				return err
			}
		}
		if in.SoftDueDate != nil {
			if m.SoftDueDate, err = upstream.ParseDate("softDueDate", *in.SoftDueDate); err != nil {
				return err
			}
		}
		if in.OwnerID != nil || in.OwnerIDs != nil {
			oid, ids := "", []string(nil)
			if in.OwnerID != nil {
				oid = *in.OwnerID
			}
			if in.OwnerIDs != nil {
				ids = *in.OwnerIDs
			} else if oid != "" {
				ids = []string{oid}
			}
			m.OwnerID, m.OwnerIDs = upstream.Owners(oid, ids, c.UserID)
		}
		if in.GoalID != nil && *in.GoalID != old.GoalID {
			ng, nss, err := s.goalFor(ctx, q, c.AccountID, *in.GoalID)
			if err != nil {
				return err
			}
			if err := upstream.SessionGate(nss, upstream.Structure); err != nil {
				return err
			}
			if err := s.visibleGoal(ctx, q, c, ng, "goalId"); err != nil {
				return err
			}
			if err := s.authorize(ctx, q, c, upstream.MetricsCreate, upstream.MetricItem(old, ng)); err != nil {
				return err
			}
			if err := checkMetricLimit(ctx, q, c.AccountID, nss, ng.ID); err != nil {
				return err
			}
			g, ss = ng, nss
			copyGoal(&m, g)
			if _, err := q.ExecContext(ctx, "UPDATE checkins SET goal_id = ? WHERE account_id = ? AND metric_id = ?", g.ID, c.AccountID, m.ID); err != nil {
				return err
			}
			if err := s.retask(ctx, q, c.AccountID, m.ID, m.Name, g.SessionID); err != nil {
				return err
			}
		} else if m.Name != old.Name {
			if err := s.retask(ctx, q, c.AccountID, m.ID, m.Name, g.SessionID); err != nil {
				return err
			}
		}
		if err := s.checkMetric(ctx, q, c.AccountID, &m, ss); err != nil {
			return err
		}
		if err := metrics.update(ctx, q, c.AccountID, &m); err != nil {
			return err
		}
		if err := s.recompute(ctx, q, c.AccountID, old.GoalID, m.GoalID); err != nil {
			return err
		}
		if m, err = s.getMetric(ctx, q, c.AccountID, m.ID); err != nil {
			return err
		}
		return s.metricView(ctx, q, c, &m)
	})
	if err != nil {
		return upstream.Metric{}, err
	}
	return m, nil
}

// retask updates the parent name and session that tasks of a key result copy.
func (s *Store) retask(ctx context.Context, q querier, account, parentID, name, sessionID string) error {
	ts, err := tasks.in(ctx, q, account, "parent_id", []string{parentID})
	if err != nil {
		return err
	}
	for _, t := range ts {
		t.ParentName, t.SessionID = name, sessionID
		if err := tasks.update(ctx, q, account, &t); err != nil {
			return err
		}
	}
	return nil
}

// DeleteMetric deletes a key result with its check-ins and tasks.
func (s *Store) DeleteMetric(ctx context.Context, id string) error {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return err
	}
	return s.tx(ctx, func(q querier) error {
		m, err := metrics.get(ctx, q, c.AccountID, id)
		if err != nil {
			return err
		}
		g, ss, err := s.goalFor(ctx, q, c.AccountID, m.GoalID)
		if err != nil {
			return err
		}
		if err := s.authorize(ctx, q, c, upstream.MetricsDelete, upstream.MetricItem(m, g)); err != nil {
			return err
		}
		if err := upstream.SessionGate(ss, upstream.Structure); err != nil {
			return err
		}
		if err := tasks.deleteWhere(ctx, q, c.AccountID, "parent_id = ?", id); err != nil {
			return err
		}
		if err := checkins.deleteWhere(ctx, q, c.AccountID, "metric_id = ?", id); err != nil {
			return err
		}
		if err := comments.deleteWhere(ctx, q, c.AccountID, "target_id = ?", id); err != nil {
			return err
		}
		if err := metrics.deleteWhere(ctx, q, c.AccountID, "id = ?", id); err != nil {
			return err
		}
		return s.recompute(ctx, q, c.AccountID, m.GoalID)
	})
}

// ListCheckIns lists check-ins.
func (s *Store) ListCheckIns(ctx context.Context, lq upstream.ListQuery) (upstream.Page[upstream.CheckIn], error) {
	return listPage(ctx, s, listing[upstream.CheckIn]{action: upstream.MetricsRead, table: checkins,
		source: scoped(s.checkinSource)}, lq)
}

// GetCheckInSnapshot returns the key result as it was right after a check-in.
func (s *Store) GetCheckInSnapshot(ctx context.Context, checkInID string) (upstream.Metric, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.Metric{}, err
	}
	if !upstream.ValidID(checkInID) {
		return upstream.Metric{}, upstream.NotFound("check-in", checkInID)
	}
	var raw []byte
	err = s.read().QueryRowContext(ctx, "SELECT snapshot FROM checkins WHERE id = ? AND account_id = ?", checkInID, c.AccountID).Scan(&raw)
	if err != nil {
		if isNoRows(err) {
			return upstream.Metric{}, upstream.NotFound("check-in", checkInID)
		}
		return upstream.Metric{}, fmt.Errorf("sqlstore: get check-in: %w", err)
	}
	var m upstream.Metric
	if err := json.Unmarshal(raw, &m); err != nil {
		return upstream.Metric{}, fmt.Errorf("sqlstore: decode snapshot: %w", err)
	}
	// The snapshot shows the key result and its goal's name: it is read as
	// the key result is now.
	if err := s.authorizeMetric(ctx, s.read(), c, upstream.MetricsRead, m.ID); err != nil {
		if upstream.ErrorCode(err) == upstream.CodeNotFound {
			return upstream.Metric{}, upstream.NotFound("check-in", checkInID)
		}
		return upstream.Metric{}, err
	}
	return m, nil
}
