package limit

import (
	"testing"
	"time"
)

// TestGradientFollowsExecutionTime: requests that take their baseline time
// while the limit is used let it grow; requests that take 5 times their
// baseline shrink it, never under the minimum; an idle server does not
// grow it; classes are compared each with its own baseline.
func TestGradientFollowsExecutionTime(t *testing.T) {
	g := newGradient(4, 2, 100)
	for range 200 {
		g.sample("goal", time.Millisecond, g.Limit())
		g.sample("tree", 100*time.Millisecond, g.Limit())
	}
	grown := g.Limit()
	if grown <= 8 {
		t.Fatalf("limit %d after requests at their baseline; want it grown", grown)
	}
	for range 400 {
		g.sample("goal", 5*time.Millisecond, g.Limit())
	}
	if g.Limit() >= grown {
		t.Fatalf("limit %d after slow requests; want under %d", g.Limit(), grown)
	}
	for range 2000 {
		g.sample("goal", 50*time.Millisecond, g.Limit())
	}
	if g.Limit() != 2 {
		t.Errorf("limit %d; want the minimum 2", g.Limit())
	}

	idle := newGradient(4, 2, 100)
	for range 200 {
		idle.sample("goal", time.Millisecond, 0)
	}
	if idle.Limit() != 4 {
		t.Errorf("idle limit %d; want 4 (unchanged)", idle.Limit())
	}

	fixed := newGradient(3, 3, 3)
	for range 200 {
		fixed.sample("goal", time.Second, 3)
	}
	if fixed.Limit() != 3 {
		t.Errorf("fixed limit moved to %d", fixed.Limit())
	}
}

// TestAdmissionWriteFloor: with MinWrites, the adaptive write limit starts
// at it and stays there however much slower writes become (a database
// farther away); reads keep their own range.
func TestAdmissionWriteFloor(t *testing.T) {
	a := NewAdmission(Config{MaxReads: Auto, MaxWrites: Auto, Procs: 2, MinWrites: 8}, nil, nil)
	if got := a.writes.lim.Limit(); got != 8 {
		t.Fatalf("write limit %d at the start, want the floor 8", got)
	}
	for range 2000 {
		a.writes.lim.sample("POST /checkin", time.Millisecond, a.writes.lim.Limit())
	}
	for range 2000 {
		a.writes.lim.sample("POST /checkin", 500*time.Millisecond, a.writes.lim.Limit())
	}
	if got := a.writes.lim.Limit(); got != 8 {
		t.Errorf("write limit %d after writes became 500 times slower, want the floor 8", got)
	}
	b := NewAdmission(Config{MaxReads: Auto, MaxWrites: Auto, Procs: 2}, nil, nil)
	for range 2000 {
		b.writes.lim.sample("POST /checkin", time.Millisecond, b.writes.lim.Limit())
	}
	for range 2000 {
		b.writes.lim.sample("POST /checkin", 500*time.Millisecond, b.writes.lim.Limit())
	}
	if got := b.writes.lim.Limit(); got != 1 {
		t.Errorf("write limit %d without a floor, want 1", got)
	}
}

// TestGradientBoundsClasses: classes past maxClasses share one baseline.
func TestGradientBoundsClasses(t *testing.T) {
	g := newGradient(4, 2, 100)
	for i := range maxClasses + 50 {
		g.sample(string(rune('a'+i%26))+string(rune(i)), time.Millisecond, 4)
	}
	if len(g.baseline) > maxClasses+1 {
		t.Errorf("%d baselines kept", len(g.baseline))
	}
}
