package resolvers

import (
	"context"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/query"
)

// maxLiveDepth bounds the walk up a goal's parents when an event does not
// name its ancestors.
const maxLiveDepth = 64

// liveGoal reads the goal of e as the subscriber; false when it may not
// read it or it is not at or below root.
func (r *Resolver) liveGoal(ctx context.Context, e upstream.Event, root string) (*upstream.Goal, bool, error) {
	g, err := r.API.GetGoal(ctx, e.ItemID)
	if err != nil || g.Obfuscated {
		// Not found, not readable, or readable only as a stub that keeps a
		// private goal's place in a tree: that it changed is not shown.
		return nil, false, nil
	}
	if root != "" && g.ID != root && len(e.Ancestors) == 0 && !r.underRoot(ctx, g.ParentID, root) {
		return nil, false, nil
	}
	return &g, true, nil
}

// underRoot reports whether the goal id is root or below it, walking up as
// the subscriber (a goal it may not read ends the walk).
func (r *Resolver) underRoot(ctx context.Context, id, root string) bool {
	for i := 0; id != "" && i < maxLiveDepth; i++ {
		if id == root {
			return true
		}
		g, err := r.API.GetGoal(ctx, id)
		if err != nil {
			return false
		}
		id = g.ParentID
	}
	return false
}

// liveCheckIn reads the check-in of e as the subscriber (its key result
// must be readable).
func (r *Resolver) liveCheckIn(ctx context.Context, e upstream.Event) (*upstream.CheckIn, bool, error) {
	p, err := r.API.ListCheckIns(ctx, upstream.ListQuery{Filter: query.Eq("id", e.ItemID), Limit: 1})
	if err != nil || len(p.Items) == 0 {
		return nil, false, nil
	}
	ci := p.Items[0]
	if _, err := r.API.GetMetric(ctx, ci.MetricID); err != nil {
		return nil, false, nil
	}
	return &ci, true, nil
}

// liveTask reads the task of e as the subscriber; with goal set, only a
// task of that goal or of one of its key results.
func (r *Resolver) liveTask(ctx context.Context, e upstream.Event, goal string) (*upstream.Task, bool, error) {
	t, err := r.API.GetTask(ctx, e.ItemID)
	if err != nil {
		return nil, false, nil
	}
	if goal != "" {
		owner := ""
		switch t.ParentType {
		case upstream.ParentGoal:
			owner = t.ParentID
		case upstream.ParentMetric:
			if m, err := r.API.GetMetric(ctx, t.ParentID); err == nil {
				owner = m.GoalID
			}
		}
		if owner != goal {
			return nil, false, nil
		}
	}
	return &t, true, nil
}
