package upstream

import (
	"maps"
	"slices"
	"testing"
)

func TestFigureChangesOf(t *testing.T) {
	checkIn := []Event{
		{Type: EventMetricUpdated, ItemID: "m1", GoalID: "g1", ByCheckIn: true},
		{Type: EventGoalRecomputed, ItemID: "g1", GoalID: "g1", ByCheckIn: true},
		{Type: EventGoalRecomputed, ItemID: "g0", GoalID: "g0", ByCheckIn: true},
		{Type: EventCheckInCreated, ItemID: "c1", GoalID: "g1", ByCheckIn: true},
	}
	c, ok := FigureChangesOf(checkIn)
	if !ok || !slices.Equal(slices.Sorted(maps.Keys(c.Goals)), []string{"g0", "g1"}) ||
		!slices.Equal(slices.Sorted(maps.Keys(c.Metrics)), []string{"m1"}) {
		t.Fatalf("check-in: %+v %v", c, ok)
	}
	for _, e := range []Event{
		{Type: EventGoalUpdated, ItemID: "g1", GoalID: "g1"},
		{Type: EventGoalRecomputed, ItemID: "g1", GoalID: "g1"}, // not a check-in's
		{Type: EventMetricUpdated, ItemID: "m1", GoalID: "g1"},
		{Type: EventAccountChanged},
		{Type: EventGoalCreated, ItemID: "g2", ByCheckIn: true}, // never a check-in's: refused all the same
		{Type: EventTaskUpdated, ItemID: "t1", ByCheckIn: true},
	} {
		if _, ok := FigureChangesOf(append(slices.Clone(checkIn), e)); ok {
			t.Errorf("%s (byCheckIn %v) accepted", e.Type, e.ByCheckIn)
		}
	}
	if c, ok := FigureChangesOf(nil); !ok || len(c.Goals)+len(c.Metrics) != 0 {
		t.Errorf("no events: %+v %v", c, ok)
	}
}
