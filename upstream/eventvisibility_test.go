package upstream_test

import (
	"strings"
	"testing"

	"github.com/okrgate/okrgate/upstream"
)

// TestEventVisible: the one rule of who sees an event, for every event
// type a webhook may select, account.changed and a type this server does
// not know, against every combination of what reading its item found.
func TestEventVisible(t *testing.T) {
	want := map[upstream.EventType]upstream.EventItemKind{
		upstream.EventGoalCreated:    upstream.EventItemGoal,
		upstream.EventGoalUpdated:    upstream.EventItemGoal,
		upstream.EventGoalRecomputed: upstream.EventItemGoal,
		upstream.EventMetricCreated:  upstream.EventItemMetric,
		upstream.EventMetricUpdated:  upstream.EventItemMetric,
		upstream.EventCheckInCreated: upstream.EventItemCheckIn,
		upstream.EventTaskCreated:    upstream.EventItemTask,
		upstream.EventTaskUpdated:    upstream.EventItemTask,
		upstream.EventSessionCreated: upstream.EventItemSession,
		upstream.EventSessionUpdated: upstream.EventItemSession,
	}
	types := append(upstream.EventTypes(), upstream.EventAccountChanged, "widget.created")
	for _, typ := range types {
		kind := upstream.EventItemOf(typ)
		if kind != want[typ] { // absent from want: EventItemNone
			t.Errorf("EventItemOf(%s) = %d, want %d", typ, kind, want[typ])
		}
		for _, r := range reads() {
			var visible bool
			switch want[typ] {
			case upstream.EventItemGoal:
				visible = r.Readable && !r.Stub // a private goal's stub is not the goal
			case upstream.EventItemCheckIn:
				visible = r.Readable && r.KeyResultReadable
			case upstream.EventItemMetric, upstream.EventItemTask, upstream.EventItemSession:
				visible = r.Readable
			}
			if got := upstream.EventVisible(typ, r); got != visible {
				t.Errorf("EventVisible(%s, %+v) = %v, want %v", typ, r, got, visible)
			}
		}
	}
	// The cases above are not vacuous: each kind is both shown and hidden.
	shown := map[upstream.EventItemKind]bool{}
	for _, typ := range types {
		for _, r := range reads() {
			if upstream.EventVisible(typ, r) {
				shown[upstream.EventItemOf(typ)] = true
			}
		}
		if strings.HasSuffix(string(typ), ".deleted") && upstream.EventItemOf(typ) != upstream.EventItemNone {
			t.Errorf("%s: a deleted item is read by no one, yet it has an item kind", typ)
		}
	}
	if len(shown) != 5 || shown[upstream.EventItemNone] {
		t.Errorf("kinds ever shown: %v, want the five item kinds", shown)
	}
}

// reads returns every combination of what a read of an event's item found.
func reads() []upstream.EventItemRead {
	var out []upstream.EventItemRead
	for i := range 8 {
		out = append(out, upstream.EventItemRead{Readable: i&1 != 0, Stub: i&2 != 0, KeyResultReadable: i&4 != 0})
	}
	return out
}
