package resolvers

import (
	"context"

	"github.com/okrgate/okrgate/upstream"
)

// The items of live updates. The fan-out hands a subscription's group the
// events of one read of the log at once (live.Stream); each function here
// reads their items with one listing per kind — the fetchers behind the
// edges (fetch.go) — as the subscriber, so a check-in at the leaf of a
// deep chain, an event per level, costs one read of goals per group, not
// one per level. Whether the subscriber sees an event is the event feed's
// rule (upstream.EventVisible) on what those reads found.

// maxLiveDepth bounds the walk up a goal's parents when an event does not
// name its ancestors.
const maxLiveDepth = 64

func liveGoalID(g *upstream.Goal) string     { return g.ID }
func liveMetricID(m *upstream.Metric) string { return m.ID }

// eventIDs returns the distinct item ids of evs.
func eventIDs(evs []upstream.Event) []string {
	ids := make([]string, 0, len(evs))
	seen := make(map[string]bool, len(evs))
	for _, e := range evs {
		if !seen[e.ItemID] {
			seen[e.ItemID] = true
			ids = append(ids, e.ItemID)
		}
	}
	return ids
}

// itemsByID reads the items of ids through fetch as the caller of ctx: an
// id without an item (gone, or not readable) is absent from the map.
func itemsByID[T any](ctx context.Context, fetch fetcher[T], ids []string) map[string]T {
	out := make(map[string]T, len(ids))
	if len(ids) == 0 {
		return out
	}
	per, err := fetch(ctx, ids, fetchArgs{})
	if err != nil {
		return out // not shown: the subscriber learns nothing of it
	}
	for id, items := range per {
		if len(items) > 0 {
			out[id] = items[0]
		}
	}
	return out
}

// liveGoals reads the goals of evs as the subscriber; ok[k] false when it
// may not read the goal of evs[k] (or only as a stub that keeps a private
// goal's place in a tree), or it is not at or below root.
func (r *Resolver) liveGoals(ctx context.Context, evs []upstream.Event, root string) ([]*upstream.Goal, []bool) {
	goals := itemsByID(ctx, byID(r.API.ListGoals, liveGoalID), eventIDs(evs))
	items, ok := make([]*upstream.Goal, len(evs)), make([]bool, len(evs))
	for k, e := range evs {
		g, found := goals[e.ItemID]
		if !upstream.EventVisible(e.Type, upstream.EventItemRead{Readable: found, Stub: g.Obfuscated}) {
			continue
		}
		if root != "" && g.ID != root && len(e.Ancestors) == 0 && !r.underRoot(ctx, g.ParentID, root) {
			continue
		}
		items[k], ok[k] = &g, true
	}
	return items, ok
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

// liveCheckIns reads the check-ins of evs as the subscriber (each one's key
// result must be readable).
func (r *Resolver) liveCheckIns(ctx context.Context, evs []upstream.Event) ([]*upstream.CheckIn, []bool) {
	checkIns := itemsByID(ctx, byID(r.API.ListCheckIns, func(c *upstream.CheckIn) string { return c.ID }), eventIDs(evs))
	var metricIDs []string
	for _, c := range checkIns {
		metricIDs = append(metricIDs, c.MetricID)
	}
	metrics := itemsByID(ctx, byID(r.API.ListMetrics, liveMetricID), sortedSet(metricIDs))
	items, ok := make([]*upstream.CheckIn, len(evs)), make([]bool, len(evs))
	for k, e := range evs {
		c, found := checkIns[e.ItemID]
		_, metricFound := metrics[c.MetricID]
		if upstream.EventVisible(e.Type, upstream.EventItemRead{Readable: found, KeyResultReadable: found && metricFound}) {
			items[k], ok[k] = &c, true
		}
	}
	return items, ok
}

// liveTasks reads the tasks of evs as the subscriber; with goal set, only
// tasks of that goal or of one of its key results.
func (r *Resolver) liveTasks(ctx context.Context, evs []upstream.Event, goal string) ([]*upstream.Task, []bool) {
	tasks := itemsByID(ctx, byID(r.API.ListTasks, func(t *upstream.Task) string { return t.ID }), eventIDs(evs))
	var metrics map[string]upstream.Metric
	if goal != "" {
		var metricIDs []string
		for _, t := range tasks {
			if t.ParentType == upstream.ParentMetric {
				metricIDs = append(metricIDs, t.ParentID)
			}
		}
		metrics = itemsByID(ctx, byID(r.API.ListMetrics, liveMetricID), sortedSet(metricIDs))
	}
	items, ok := make([]*upstream.Task, len(evs)), make([]bool, len(evs))
	for k, e := range evs {
		t, found := tasks[e.ItemID]
		if !upstream.EventVisible(e.Type, upstream.EventItemRead{Readable: found}) {
			continue
		}
		if goal != "" {
			owner := ""
			switch t.ParentType {
			case upstream.ParentGoal:
				owner = t.ParentID
			case upstream.ParentMetric:
				owner = metrics[t.ParentID].GoalID
			}
			if owner != goal {
				continue
			}
		}
		items[k], ok[k] = &t, true
	}
	return items, ok
}
