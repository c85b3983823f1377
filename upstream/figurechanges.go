package upstream

// FigureChanges are the items whose figures the writes of a stretch of an
// account's event log changed, when those writes were check-ins and
// nothing else (FigureChangesOf). Shared GraphQL answers are derived from
// the previous answer of their request by reading these items again
// (docs/graphql-execution.md, "Answers derived after check-ins").
type FigureChanges struct {
	// Goals are the goals a check-in recomputed, and the goal of each key
	// result checked in (its entity tag covers its key results).
	Goals map[string]bool
	// Metrics are the key results checked in: their figures changed and
	// each has one check-in more.
	Metrics map[string]bool
}

// FigureChangesOf returns what events changed when every one of them is
// part of a check-in's write (ByCheckIn: the check-in, its key result's new
// figures, the goals it recomputed to new values): no item was created, deleted or moved, no owner, access
// entry, team, user, role, grant or session changed, so every other item
// reads as before and every list holds the same items in the same order,
// but for the check-ins of the key results checked in. ok is false for any
// other event: then anything may have changed.
func FigureChangesOf(events []Event) (c FigureChanges, ok bool) {
	c = FigureChanges{Goals: map[string]bool{}, Metrics: map[string]bool{}}
	for _, e := range events {
		switch {
		case !e.ByCheckIn:
			return FigureChanges{}, false
		case e.Type == EventGoalRecomputed:
			c.Goals[e.ItemID] = true
		case e.Type == EventCheckInCreated:
		case e.Type == EventMetricUpdated:
			c.Metrics[e.ItemID] = true
		default:
			return FigureChanges{}, false
		}
		if e.GoalID != "" {
			c.Goals[e.GoalID] = true
		}
	}
	return c, true
}
