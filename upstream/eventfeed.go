package upstream

import (
	"context"

	"github.com/okrgate/okrgate/upstream/query"
)

// Bounds of one page of the event feed (GET /api/v2/events).
const (
	DefaultFeedEvents = 100
	MaxFeedEvents     = MaxEventsPerRead
)

// FeedEvent is an event of the log as a caller sees it in the event feed
// (GET /api/v2/events): the event of an item the caller may read, or, for
// one it may not read (or that is gone, so that who could read it is no
// longer known), only its position, marked hidden. A hidden event keeps a
// reader's position moving without telling it what happened.
type FeedEvent struct {
	Position int64 `json:"position"`
	// Hidden marks an event whose item the caller may not read: no other
	// field is set.
	Hidden     bool      `json:"hidden,omitempty"`
	Type       EventType `json:"type,omitempty"`
	ItemID     string    `json:"itemId,omitempty"`
	GoalID     string    `json:"goalId,omitempty"`
	SessionID  string    `json:"sessionId,omitempty"`
	Attainment *float64  `json:"attainment,omitempty"`
	Ancestors  []string  `json:"ancestors,omitempty"`
	At         string    `json:"at,omitempty"`
}

// EventFeed is one page of the event feed: the events after the position
// asked for, and the head of the log when they were read (at least the
// last item's position).
type EventFeed struct {
	Items []FeedEvent `json:"items"`
	Head  int64       `json:"head"`
}

// Event returns the log entry f stands for in the log of account: a hidden
// event is an entry with a position and no type, which no subscription
// selects.
func (f FeedEvent) Event(account string) Event {
	return Event{Position: f.Position, AccountID: account, Type: f.Type, ItemID: f.ItemID, GoalID: f.GoalID,
		SessionID: f.SessionID, Attainment: f.Attainment, Ancestors: f.Ancestors, At: f.At}
}

// EventItems are the services an event's item is read through: those of
// the kinds the log records (EventItemOf).
type EventItems interface {
	GoalService
	MetricService
	TaskService
	SessionService
}

// VisibleEvents returns events as the caller of ctx may see them: each
// item is read through api as the caller, and an event whose item it may
// not read — a private goal, an obfuscated stub, a key result, check-in or
// task under one, a deleted item, a type it does not know — is hidden.
// The feed thus tells a caller no more than reading the items would; a
// subscriber still reads each item itself when it is delivered. A read
// that fails for another reason than not found or forbidden (the store
// unavailable) is an error: hiding the event would lose it for good.
func VisibleEvents(ctx context.Context, api EventItems, events []Event) ([]FeedEvent, error) {
	out := make([]FeedEvent, 0, len(events))
	for _, e := range events {
		ok, err := eventVisible(ctx, api, e)
		if err != nil {
			return nil, err
		}
		if !ok {
			out = append(out, FeedEvent{Position: e.Position, Hidden: true})
			continue
		}
		out = append(out, FeedEvent{Position: e.Position, Type: e.Type, ItemID: e.ItemID, GoalID: e.GoalID,
			SessionID: e.SessionID, Attainment: e.Attainment, Ancestors: e.Ancestors, At: e.At})
	}
	return out, nil
}

// eventVisible reports whether the caller of ctx sees e (EventVisible),
// reading its item through api as the caller. A read that fails for
// another reason than not found or forbidden is an error.
func eventVisible(ctx context.Context, api EventItems, e Event) (bool, error) {
	var read EventItemRead
	var err error
	switch EventItemOf(e.Type) {
	case EventItemGoal:
		var g Goal
		g, err = api.GetGoal(ctx, e.ItemID)
		read = EventItemRead{Readable: err == nil, Stub: g.Obfuscated}
	case EventItemMetric:
		_, err = api.GetMetric(ctx, e.ItemID)
		read.Readable = err == nil
	case EventItemCheckIn:
		var p Page[CheckIn]
		p, err = api.ListCheckIns(ctx, ListQuery{Filter: query.Eq("id", e.ItemID), Limit: 1})
		if err == nil && len(p.Items) > 0 {
			read.Readable = true
			_, err = api.GetMetric(ctx, p.Items[0].MetricID)
			read.KeyResultReadable = err == nil
		}
	case EventItemTask:
		_, err = api.GetTask(ctx, e.ItemID)
		read.Readable = err == nil
	case EventItemSession:
		_, err = api.GetSession(ctx, e.ItemID)
		read.Readable = err == nil
	}
	switch ErrorCode(err) {
	case "", CodeNotFound, CodeForbidden, CodeInsufficientScope:
		return EventVisible(e.Type, read), nil
	}
	return false, err
}
