package upstream

import "slices"

// Item describes what an action applies to, for the per-item access rules
// (owners, private goals, an item's access list, its session's access).
// A nil *Item means an account-level action with no particular item.
type Item struct {
	Kind      string // "goal", "metric", "task", "session", "dashboard", ...
	ID        string
	Owners    []string
	SessionID string
	Private   bool
	Access    *Access
}

// SessionAccess is a session's own access as an Access value.
func SessionAccess(ss Session) *Access {
	return &Access{Inherits: ss.Inherits, OwnerPermissions: ss.OwnerPermissions, Permissions: ss.Permissions}
}

// GoalItem is a goal as an item: its owners, its session, its privacy and access.
func GoalItem(g Goal) *Item {
	return &Item{Kind: "goal", ID: g.ID, Owners: g.OwnerIDs, SessionID: g.SessionID, Private: g.Private, Access: g.Access}
}

// MetricItem is a key result as an item: it belongs to its owners and its
// goal's owners, is private when it or its goal is, and takes its goal's
// access.
func MetricItem(m Metric, g Goal) *Item {
	return &Item{Kind: "metric", ID: m.ID, Owners: append(slices.Clone(m.OwnerIDs), g.OwnerIDs...), SessionID: g.SessionID,
		Private: m.Private || g.Private, Access: g.Access}
}

// SessionItem is a session as an item: its own access, inheriting nothing.
func SessionItem(ss Session) *Item {
	return &Item{Kind: "session", ID: ss.ID, Access: SessionAccess(ss)}
}

// DashboardItem is a dashboard as an item: its owners and its access.
func DashboardItem(id string, owners []string, a *Access) *Item {
	return &Item{Kind: "dashboard", ID: id, Owners: owners, Access: a}
}

// TaskItem is a task as an item: it belongs to its owner and to the owners
// of its parent, and is private when its parent is, with the parent's
// access. parent is the parent goal's or key result's item (GoalItem,
// MetricItem), nil when the task has none or it is gone.
func TaskItem(t Task, parent *Item) *Item {
	it := &Item{Kind: "task", ID: t.ID, Owners: []string{t.OwnerID}, SessionID: t.SessionID}
	if parent != nil {
		it.Owners = append(it.Owners, parent.Owners...)
		it.Private, it.Access = parent.Private, parent.Access
	}
	return it
}

// GoalActions are the actions currentUserAllowedActions reports on a goal.
func GoalActions() []Action {
	return []Action{GoalsRead, GoalsUpdate, GoalsDelete, MetricsCreate, TasksCreate}
}

// MetricActions are the actions currentUserAllowedActions reports on a key result.
func MetricActions() []Action {
	return []Action{MetricsRead, MetricsUpdate, MetricsDelete, MetricsCheckIn, TasksCreate}
}

// SessionActions are the actions currentUserAllowedActions reports on a session.
func SessionActions() []Action { return []Action{SessionsRead, SessionsManage, GoalsCreate} }

// DashboardActions are the actions currentUserAllowedActions reports on a dashboard.
func DashboardActions() []Action { return []Action{DashboardsRead, DashboardsEdit, DashboardsAdmin} }

// DefaultAccess is the access a new session or dashboard gets: it
// inherits, names no principal, and its owners may change and check in
// what lies in a session, or edit a dashboard.
func DefaultAccess(itemType string) Access {
	grant := map[string]int{}
	switch itemType {
	case "session":
		for _, a := range []Action{GoalsUpdate, GoalsDelete, MetricsUpdate, MetricsDelete, MetricsCheckIn, TasksUpdate, TasksDelete} {
			grant[string(a)] = 1
		}
	case "dashboard":
		grant[string(DashboardsEdit)] = 1
	}
	return Access{Inherits: true, OwnerPermissions: &OwnerPermissions{Grant: grant, Deny: map[string]int{}},
		Permissions: []PermissionEntry{}}
}

// CheckAccess validates an item's access about to be set: every entry
// names a principal and grants or denies only actions of the catalogue
// (or "*"). Whether the principals exist is for the store to check.
func CheckAccess(in Access) error {
	for i, p := range in.Permissions {
		if p.PrincipalID == "" {
			return Invalid("permissions", "entry %d names no principalId", i)
		}
		for a := range p.Grant {
			if a != "*" && !KnownAction(a) {
				return Invalid("permissions", "entry %d grants unknown action %q", i, a)
			}
		}
		for a := range p.Deny {
			if a != "*" && !KnownAction(a) {
				return Invalid("permissions", "entry %d denies unknown action %q", i, a)
			}
		}
	}
	return nil
}
