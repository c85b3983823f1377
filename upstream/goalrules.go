package upstream

import "slices"

// ValidAttainmentMode reports whether m is how a goal's attainment is
// computed: average_kr, average_children or average_kr_and_children.
func ValidAttainmentMode(m string) bool {
	return m == AverageKR || m == AverageChildren || m == AverageKRAndChildren
}

// ValidClosedStatus reports whether s is a goal's closed status: active,
// achieved or abandoned.
func ValidClosedStatus(s string) bool {
	return s == GoalActive || s == GoalAchieved || s == GoalAbandoned
}

// Owners settles an item's ownerId and ownerIds, as sent: either may be
// given, the first of ownerIds is the owner when ownerId is not, the
// caller owns what names no owner, and the owner is always among the
// owners (first when added). Duplicates are dropped.
func Owners(ownerID string, ownerIDs []string, caller string) (string, []string) {
	ids := make([]string, 0, len(ownerIDs)+1)
	for _, id := range ownerIDs {
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	if ownerID == "" && len(ids) > 0 {
		ownerID = ids[0]
	}
	if ownerID == "" {
		ownerID = caller
	}
	if !slices.Contains(ids, ownerID) {
		ids = append([]string{ownerID}, ids...)
	}
	return ownerID, ids
}

// GoalFacts are what a store loads for CheckGoal: which owners exist and
// which goals the goal's parent may be.
type GoalFacts struct {
	// OwnerExists reports whether id is a user or team of the account.
	OwnerExists func(id string) bool
	// Goal returns the account's goal id, if there is one.
	Goal func(id string) (Goal, bool)
}

// CheckGoal validates a goal about to be written in session ss, on the
// facts f: a name of at most MaxNameLength bytes, a known attainment mode
// and closed status, dates in order, one owner when the session allows no
// more, owners that exist, and a parent that exists and is not the goal.
// It fills what derives from the goal's fields (parent type and session,
// number of owners, duration, URL) and clears what is embedded on read.
// Whether a new parent would make a cycle is the store's to check (it
// needs the parent's ancestors).
func CheckGoal(g *Goal, ss Session, f GoalFacts) error {
	if g.Name == "" {
		return Invalid("name", "must not be empty")
	}
	if len(g.Name) > MaxNameLength {
		return Invalid("name", "must be at most %d characters", MaxNameLength)
	}
	if !ValidAttainmentMode(g.AttainmentTypeString) {
		return Invalid("attainmentTypeString", "must be average_kr, average_children or average_kr_and_children")
	}
	if !ValidClosedStatus(g.ClosedStatus.Status) {
		return Invalid("closedStatus.status", "must be active, achieved or abandoned")
	}
	if g.DateTo != "" && g.DateFrom != "" && g.DateTo < g.DateFrom {
		return Invalid("dateTo", "must not be before dateFrom")
	}
	if len(g.OwnerIDs) > 1 && ss.Settings.MultipleOwners.DisabledForGoals {
		return Invalid("ownerIds", "the session allows one owner per goal")
	}
	for _, id := range g.OwnerIDs {
		if !f.OwnerExists(id) {
			return Invalid("ownerIds", "no user or team %q", id)
		}
	}
	g.ParentType, g.ParentGoalSessionID = "", ""
	if g.ParentID != "" {
		if g.ParentID == g.ID {
			return Invalid("parentId", "a goal cannot be its own parent")
		}
		p, ok := f.Goal(g.ParentID)
		if !ok {
			return Invalid("parentId", "no goal %q", g.ParentID)
		}
		g.ParentType, g.ParentGoalSessionID = "goal", p.SessionID
	}
	g.NumberOfOwners = len(g.OwnerIDs)
	g.Duration = DurationDays(g.DateFrom, g.DateTo)
	g.URL = "/results/goals/" + g.ID
	g.Metrics, g.Tasks, g.Tags, g.Assignee, g.Assignees = nil, nil, nil, nil, nil
	return nil
}

// CheckGoalLimit enforces session ss's goalsPerOwnerLimit for a goal about
// to be given to owner, who owns n other goals of the session now
// (limit_exceeded). A limit of 0 is no limit.
func CheckGoalLimit(ss Session, owner string, n int) error {
	if lim := ss.Settings.GoalsPerOwnerLimit; lim > 0 && n >= lim {
		return Errorf(CodeLimitExceeded, "owner %q already has %d goals in session %q (limit %d)", owner, n, ss.ID, lim)
	}
	return nil
}
