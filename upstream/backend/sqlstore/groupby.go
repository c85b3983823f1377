package sqlstore

import (
	"context"
	"slices"
	"strings"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/query"
)

func anyOf(field string, ids []string) *query.Expr {
	if len(ids) == 0 {
		return nil
	}
	vals := make([]any, len(ids))
	for i, id := range ids {
		vals[i] = id
	}
	return query.In(field, vals...)
}

// GoalsGroupedByOwners returns goals grouped by owner: a goal with several
// owners appears in each owner's group. Groups are ordered by owner name and
// paged by Skip and Take; goals inside a group follow the query's sort.
func (s *Store) GoalsGroupedByOwners(ctx context.Context, gq upstream.GroupByOwnersQuery) (upstream.GoalsGroupedBy, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.GoalsGroupedBy{}, err
	}
	q := s.read()
	sc, err := s.scopeFor(ctx, q, c)
	if err != nil {
		return upstream.GoalsGroupedBy{}, err
	}
	if err := sc.rule.Sub.Decide(upstream.GoalsRead, nil, nil); err != nil {
		return upstream.GoalsGroupedBy{}, err
	}
	lq := upstream.ListQuery{
		Filter: query.And(anyOf("id", gq.IDs), anyOf("ownerIds", gq.OwnerIDs)),
		Sort:   gq.Sort.Sort,
		Limit:  1 << 30,
	}
	// Only goals the caller sees (no obfuscated stubs: they have no owners),
	// and only key results it sees count in the conditions.
	src, srcArgs := "goals", []any(nil)
	if !sc.all {
		vis, args := sc.goalVisible("", c.AccountID)
		src, srcArgs = "(SELECT * FROM goals WHERE account_id = ? AND "+vis+")", append([]any{c.AccountID}, args...)
	}
	all, _, err := goals.listFrom(ctx, q, src, srcArgs, c.AccountID, lq)
	if err != nil {
		return upstream.GoalsGroupedBy{}, err
	}
	ids := make([]string, len(all))
	for i, g := range all {
		ids[i] = g.ID
	}
	ms, err := metrics.in(ctx, q, c.AccountID, "goal_id", ids)
	if err != nil {
		return upstream.GoalsGroupedBy{}, err
	}
	if !sc.all {
		goalByID := make(map[string]upstream.Goal, len(all))
		for _, g := range all {
			goalByID[g.ID] = g
		}
		ms = slices.DeleteFunc(ms, func(m upstream.Metric) bool {
			g := goalByID[m.GoalID]
			return !sc.rule.Sub.Sees(upstream.MetricItem(m, g), sc.rule.Sessions[g.SessionID])
		})
	}
	byGoal := map[string][]upstream.Metric{}
	for _, m := range ms {
		byGoal[m.GoalID] = append(byGoal[m.GoalID], m)
	}
	now := s.timestamp()
	var kept []upstream.Goal
	for _, g := range all {
		if keepGoal(g, byGoal[g.ID], gq, now) {
			kept = append(kept, g)
		}
	}
	if err := s.enrichGoals(ctx, q, c.AccountID, kept, nil, gq.IncludeMetrics); err != nil {
		return upstream.GoalsGroupedBy{}, err
	}
	if err := s.redactGoals(ctx, q, c, kept, nil); err != nil {
		return upstream.GoalsGroupedBy{}, err
	}
	groups := map[string]*upstream.OwnerGoals{}
	var order []string
	var ownerIDs []string
	for _, g := range kept {
		for _, o := range g.OwnerIDs {
			if len(gq.OwnerIDs) > 0 && !slices.Contains(gq.OwnerIDs, o) {
				continue
			}
			grp, ok := groups[o]
			if !ok {
				grp = &upstream.OwnerGoals{OwnerID: o, Goals: []upstream.Goal{}}
				groups[o] = grp
				order = append(order, o)
				ownerIDs = append(ownerIDs, o)
			}
			grp.Goals = append(grp.Goals, g)
			grp.TotalCount++
		}
	}
	as, err := s.assignees(ctx, q, c.AccountID, ownerIDs)
	if err != nil {
		return upstream.GoalsGroupedBy{}, err
	}
	for id, grp := range groups {
		if a, ok := as[id]; ok {
			grp.Owner = &a
		}
	}
	slices.SortStableFunc(order, func(a, b string) int {
		na, nb := as[a].Name, as[b].Name
		if c := strings.Compare(strings.ToLower(na), strings.ToLower(nb)); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	out := upstream.GoalsGroupedBy{Items: []upstream.OwnerGoals{}, TotalCount: len(order)}
	take := gq.Take
	if take <= 0 {
		take = upstream.DefaultLimit
	}
	for i := gq.Skip; i < len(order) && len(out.Items) < take; i++ {
		out.Items = append(out.Items, *groups[order[i]])
	}
	return out, nil
}

// keepGoal applies the grouping operation's goal-level conditions.
func keepGoal(g upstream.Goal, ms []upstream.Metric, gq upstream.GroupByOwnersQuery, now string) bool {
	switch gq.Deadline {
	case "current":
		if !(g.DateFrom <= now && now <= g.DateTo) {
			return false
		}
	case "past":
		if !(g.DateTo < now) {
			return false
		}
	case "future":
		if !(g.DateFrom > now) {
			return false
		}
	}
	if gq.Attainment != nil && !gq.Attainment.Holds(g.Attainment) {
		return false
	}
	if gq.Confidence != nil {
		var sum float64
		var n int
		for _, m := range ms {
			if m.Confidence != nil {
				sum += *m.Confidence
				n++
			}
		}
		if n == 0 || !gq.Confidence.Holds(sum/float64(n)) {
			return false
		}
	}
	metricCond := len(gq.MetricOwnerIDs) > 0 || gq.MetricBefore != "" || gq.MetricAfter != "" || gq.MetricAttainment != nil
	if !metricCond {
		return true
	}
	for _, m := range ms {
		if len(gq.MetricOwnerIDs) > 0 && !slices.ContainsFunc(m.OwnerIDs, func(o string) bool { return slices.Contains(gq.MetricOwnerIDs, o) }) {
			continue
		}
		if gq.MetricBefore != "" && (m.LastCheckInDate == "" || m.LastCheckInDate[:10] >= gq.MetricBefore) {
			continue
		}
		if gq.MetricAfter != "" && (m.LastCheckInDate == "" || m.LastCheckInDate[:10] <= gq.MetricAfter) {
			continue
		}
		if gq.MetricAttainment != nil && !gq.MetricAttainment.Holds(m.Attainment) {
			continue
		}
		return true
	}
	return false
}
