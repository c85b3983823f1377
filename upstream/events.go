package upstream

import (
	"context"
	"strings"
	"time"
)

// EventType names what happened to a resource. The names are part of the
// public contract (subscriptions, webhooks, docs/graphql-live.md "Subscriptions").
type EventType string

// The event types. A write appends the events of everything it changed in
// the same transaction as the change (the outbox): no acknowledged change
// is without its events, and no event exists for a rolled-back change.
const (
	EventCheckInCreated EventType = "checkIn.created"
	EventGoalCreated    EventType = "goal.created"
	EventGoalUpdated    EventType = "goal.updated"
	EventGoalDeleted    EventType = "goal.deleted"
	// EventGoalRecomputed is a goal whose derived figures (attainment,
	// aggregates, counts) a write recomputed to new values: one per
	// affected goal, the changed goal and each ancestor, so a tree view
	// updates every level.
	EventGoalRecomputed EventType = "goal.recomputed"
	EventMetricCreated  EventType = "metric.created"
	EventMetricUpdated  EventType = "metric.updated"
	EventMetricDeleted  EventType = "metric.deleted"
	EventTaskCreated    EventType = "task.created"
	EventTaskUpdated    EventType = "task.updated"
	EventTaskDeleted    EventType = "task.deleted"
	EventSessionCreated EventType = "session.created"
	EventSessionUpdated EventType = "session.updated"
	EventSessionDeleted EventType = "session.deleted"
	// EventAccountChanged marks a write that changed none of the items
	// above (a team, a user, a role, a grant, content): every write of an
	// account moves its log, so the log's position is the account's data
	// version (shared GraphQL answers are keyed by it:
	// docs/graphql-execution.md, "Shared answers"). No subscription or
	// webhook selects it; the REST feed shows it as a hidden entry.
	EventAccountChanged EventType = "account.changed"
)

// Event is one entry of the event log. It names the item and the keys a
// subscriber filters by; the item itself is read afresh, as the subscriber,
// when the event is delivered, so an event never carries what the
// subscriber may not read.
type Event struct {
	// Position increases with every event of the account, in commit order;
	// a subscriber resumes after the last position it saw.
	Position  int64     `json:"position"`
	AccountID string    `json:"accountId"`
	Type      EventType `json:"type"`
	ItemID    string    `json:"itemId"`
	// GoalID is the goal the item belongs to (a check-in's, key result's
	// or task's goal; the goal itself for goal events); empty for sessions
	// and for tasks without a goal.
	GoalID    string `json:"goalId,omitempty"`
	SessionID string `json:"sessionId,omitempty"`
	// Attainment is the goal's recomputed attainment (goal.recomputed) or
	// the key result's after a check-in (checkIn.created).
	Attainment *float64 `json:"attainment,omitempty"`
	// Ancestors are the ids of the goal's ancestors, nearest first, where
	// the write knew them (goal.recomputed); subscriptions rooted at a
	// goal use them.
	Ancestors []string `json:"ancestors,omitempty"`
	At        string   `json:"at"`
	// ByCheckIn marks the events of a check-in's write (its key result's
	// new figures, the goals it recomputed): it changed figures and
	// nothing else (KeepsClasses).
	ByCheckIn bool `json:"byCheckIn,omitempty"`
}

// EventLog reads the event log of the caller's account.
type EventLog interface {
	// Events returns up to limit events of the caller's account after
	// position after, in position order.
	Events(ctx context.Context, after int64, limit int) ([]Event, error)
	// Head returns the last position of the caller's account (0 when none).
	Head(ctx context.Context) (int64, error)
	// EventsChanged returns a channel closed at the next commit that
	// appends events; fetch a new one after each wake.
	EventsChanged() <-chan struct{}
}

// DefaultEventRetention is how long the log keeps events: a subscriber
// that reconnects with a position older than that resumes from the oldest
// event kept (documented in docs/graphql-live.md, "Subscriptions").
const DefaultEventRetention = 7 * 24 * time.Hour

// MaxEventsPerRead bounds one read of the log.
const MaxEventsPerRead = 500

// CoalesceEvents returns events with repeated goal.recomputed events of one
// goal folded into the last one: a write that recomputes a goal twice (a
// move: old and new parent paths share ancestors) reports its final figures
// once. The order of first appearance is kept.
func CoalesceEvents(events []Event) []Event {
	last := map[string]int{}
	for i, e := range events {
		if e.Type == EventGoalRecomputed {
			last[e.ItemID] = i
		}
	}
	out := events[:0:0]
	seen := map[string]bool{}
	for _, e := range events {
		if e.Type != EventGoalRecomputed {
			out = append(out, e)
			continue
		}
		if seen[e.ItemID] {
			continue
		}
		seen[e.ItemID] = true
		out = append(out, events[last[e.ItemID]])
	}
	return out
}

// GoalChangeFilter selects the events of the goalChanged subscription.
type GoalChangeFilter struct {
	SessionID, RootGoalID string
}

// Match reports whether e is a change of a goal this filter selects: a
// goal created, updated or recomputed, in the session (when set) and at or
// below the root goal (when set, judged by the event's ancestors).
func (f GoalChangeFilter) Match(e Event) bool {
	switch e.Type {
	case EventGoalCreated, EventGoalUpdated, EventGoalRecomputed:
	default:
		return false
	}
	if f.SessionID != "" && e.SessionID != f.SessionID {
		return false
	}
	if f.RootGoalID != "" && e.ItemID != f.RootGoalID {
		found := false
		for _, a := range e.Ancestors {
			if a == f.RootGoalID {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// CheckInFilter selects the events of the checkInCreated subscription.
type CheckInFilter struct {
	GoalID, SessionID string
}

// Match reports whether e is a check-in this filter selects.
func (f CheckInFilter) Match(e Event) bool {
	return e.Type == EventCheckInCreated &&
		(f.GoalID == "" || e.GoalID == f.GoalID) &&
		(f.SessionID == "" || e.SessionID == f.SessionID)
}

// TaskFilter selects the events of the taskChanged subscription.
type TaskFilter struct {
	GoalID string
}

// Match reports whether e is a task created or updated that this filter
// selects.
func (f TaskFilter) Match(e Event) bool {
	return (e.Type == EventTaskCreated || e.Type == EventTaskUpdated) && (f.GoalID == "" || e.GoalID == f.GoalID)
}

// VisibilityClasser is implemented by an event log's store when it can tell
// which callers read alike, so that live subscriptions read each event's
// item once per class instead of once per subscriber. It is optional, and
// given as such (live.Hub.Classes) rather than found by a type
// assertion on the log: without it a subscriber's class is its caller
// (user and roles).
type VisibilityClasser interface {
	// VisibilityClasses returns the visibility class of each caller, all
	// of one account, derived now from their current rights: callers with
	// the same class are decided alike on every item, and see the same.
	VisibilityClasses(ctx context.Context, callers []Caller) ([]string, error)
}

// NamedClasser derives visibility classes (VisibilityClasser) in two
// parts: which users of an account its items name (VisibilityClassOf's
// named, the part that reads every item), and the classes of callers
// given that. What items name changes only with events that may change
// classes (KeepsClasses), so a caller of NamedUsers can keep its answer
// across the versions whose events all keep classes, and the classes of
// new callers then cost no read of the items.
type NamedClasser interface {
	// NamedUsers returns, for every user of the account, whether some
	// item of the account names it.
	NamedUsers(ctx context.Context, account string) (map[string]bool, error)
	// VisibilityClassesNamed is VisibilityClasses with named as
	// NamedUsers returned it; a caller's user named does not hold is
	// looked for in the items.
	VisibilityClassesNamed(ctx context.Context, callers []Caller, named map[string]bool) ([]string, error)
}

// KeepsClasses reports whether e leaves every visibility class of its
// account as it was (VisibilityClasser): a check-in (its events are
// ByCheckIn) and a recomputation of derived figures change no owner,
// access entry, role, team or grant, and name no user in a document. Every
// other event may; a write that changes more than figures has one of them
// besides its recomputations.
func KeepsClasses(e Event) bool {
	return e.Type == EventCheckInCreated || e.Type == EventGoalRecomputed || e.ByCheckIn
}

// VisibilityClassOf is the visibility class of sub (VisibilityClasser):
// what Subject's decisions depend on. An admin is decided alike on
// everything. Otherwise the principals a grant or an access entry may name
// (role and team ids), the actions held everywhere and on what it owns,
// and the user id only when named is true — when some item names the user
// (as an owner, in an access entry): a decision compares the user id with
// nothing else, so users whom no item names are decided alike.
func VisibilityClassOf(sub *Subject, named bool) string {
	if sub.Admin {
		return "admin"
	}
	var b strings.Builder
	for _, p := range sub.Principals() {
		if p == sub.UserID {
			continue
		}
		b.WriteString(p)
		b.WriteByte(',')
	}
	b.WriteByte('|')
	first := true
	sub.eachAction(func(a Action, own bool) { // ActionList, joined by commas
		if !first {
			b.WriteByte(',')
		}
		first = false
		b.WriteString(string(a))
		if own {
			b.WriteString(":own")
		}
	})
	b.WriteByte('|')
	if named {
		b.WriteString(sub.UserID)
	}
	return b.String()
}
