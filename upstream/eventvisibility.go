package upstream

// Who sees an event. One rule for everything that shows a caller the events
// of the log: the REST event feed (VisibleEvents) and the live
// subscriptions' fan-out (package resolvers), so that neither tells a
// caller more than reading the items would. The caller of the rule reads
// the event's item as the caller — one item at a time for the feed, one
// listing per kind and batch for the fan-out — and the rule decides from
// what the read found. Webhooks are not filtered per caller: only admins,
// who may read every item, manage them, and a delivery names the item
// without carrying it (the receiver reads it with its own token,
// docs/webhooks.md); they select events by type alone (WebhookWants).

// EventItemKind is the kind of item whose reading, as the caller, decides
// whether the caller sees an event.
type EventItemKind uint8

// The kinds of an event's item.
const (
	// EventItemNone: no read makes the event visible. A deletion (who
	// could read the item is no longer known), account.changed and a type
	// this server does not know are hidden from every caller.
	EventItemNone EventItemKind = iota
	EventItemGoal
	EventItemMetric
	// EventItemCheckIn: the check-in and its key result.
	EventItemCheckIn
	EventItemTask
	EventItemSession
)

// EventItemOf returns the kind of item a caller must be able to read to see
// an event of type t: the EventItem of the resource whose Events hold t
// (Resources); EventItemNone for a deletion, account.changed and a type
// this server does not know.
func EventItemOf(t EventType) EventItemKind {
	return eventItems[t]
}

// EventItemRead is what reading an event's item as the caller found.
type EventItemRead struct {
	// Readable: the item was read (false when it is gone or the caller
	// may not read it: not found, forbidden).
	Readable bool
	// Stub: the item read is an obfuscated stub that keeps a private
	// goal's place in a tree, not the goal.
	Stub bool
	// KeyResultReadable: of a check-in, its key result was read too.
	KeyResultReadable bool
}

// EventVisible reports whether a caller sees an event of type t, given what
// reading the event's item (EventItemOf) as the caller found: a goal that
// is not a stub, a check-in whose key result it may read too, a key
// result, task or session it may read; nothing else.
func EventVisible(t EventType, r EventItemRead) bool {
	switch EventItemOf(t) {
	case EventItemGoal:
		return r.Readable && !r.Stub
	case EventItemCheckIn:
		return r.Readable && r.KeyResultReadable
	case EventItemMetric, EventItemTask, EventItemSession:
		return r.Readable
	}
	return false
}
