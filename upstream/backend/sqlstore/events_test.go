package sqlstore_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore/sqlstoretest"
)

// TestCheckInAppendsAncestorEvents checks that a check-in on a deep key
// result appends, in its transaction, the check-in and one goal.recomputed
// event per goal on the path with its new attainment and ancestors; that a
// rejected write appends nothing; and that positions increase per account.
func TestCheckInAppendsAncestorEvents(t *testing.T) {
	e := newEnv(t)
	s := e.session(upstream.SessionInput{})
	root := e.goal(upstream.GoalInput{Name: "root", SessionID: s.ID})
	mid := e.goal(upstream.GoalInput{Name: "mid", SessionID: s.ID, ParentID: root.ID})
	leaf := e.goal(upstream.GoalInput{Name: "leaf", SessionID: s.ID, ParentID: mid.ID})
	kr := e.metric(upstream.MetricInput{Name: "kr", GoalID: leaf.ID, Target: f(10)})
	head, err := e.store.Head(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if head == 0 {
		t.Fatal("the setup writes appended no events")
	}
	ci, err := e.store.CheckIn(e.ctx, kr.ID, upstream.CheckInInput{Actual: f(5)})
	if err != nil {
		t.Fatal(err)
	}
	evs, err := e.store.Events(e.ctx, head, 100)
	if err != nil {
		t.Fatal(err)
	}
	recomputed := map[string]upstream.Event{}
	var sawCheckIn bool
	for i, ev := range evs {
		if ev.Position != head+int64(i)+1 {
			t.Errorf("event %d at position %d, want %d", i, ev.Position, head+int64(i)+1)
		}
		switch ev.Type {
		case upstream.EventCheckInCreated:
			sawCheckIn = ev.ItemID == ci.ID && ev.GoalID == leaf.ID && ev.SessionID == s.ID
		case upstream.EventGoalRecomputed:
			if _, dup := recomputed[ev.ItemID]; dup {
				t.Errorf("goal %s recomputed twice in one write", ev.ItemID)
			}
			recomputed[ev.ItemID] = ev
		}
	}
	if !sawCheckIn {
		t.Errorf("no checkIn.created event for %s in %+v", ci.ID, evs)
	}
	for _, want := range []struct {
		id        string
		att       float64
		ancestors []string
	}{{leaf.ID, 0.5, []string{mid.ID, root.ID}}, {mid.ID, 0, []string{root.ID}}, {root.ID, 0, nil}} {
		ev, ok := recomputed[want.id]
		if !ok {
			t.Errorf("no goal.recomputed for %s", want.id)
			continue
		}
		if !slices.Equal(ev.Ancestors, want.ancestors) {
			t.Errorf("goal %s ancestors %v, want %v", want.id, ev.Ancestors, want.ancestors)
		}
		if want.id == leaf.ID && (ev.Attainment == nil || *ev.Attainment != want.att) {
			t.Errorf("leaf attainment %v, want %v", ev.Attainment, want.att)
		}
	}
	if _, ok := recomputed[mid.ID]; ok && recomputed[mid.ID].Attainment == nil {
		t.Error("mid recomputed without attainment")
	}

	// A write that fails appends nothing.
	head2, _ := e.store.Head(e.ctx)
	if _, err := e.store.CheckIn(e.ctx, kr.ID, upstream.CheckInInput{}); err == nil {
		t.Fatal("a check-in without actual succeeded")
	}
	if _, err := e.store.UpdateGoal(e.ctx, root.ID, upstream.GoalPatch{ParentID: &leaf.ID}); err == nil {
		t.Fatal("a cycle was accepted")
	}
	if head3, _ := e.store.Head(e.ctx); head3 != head2 {
		t.Errorf("failed writes appended events: head %d -> %d", head2, head3)
	}

	// Another account has its own positions and sees none of these.
	_, other := e.account("Other", "admin@other.test")
	if evs, err := e.store.Events(other, 0, 100); err != nil || len(evs) != 0 {
		t.Errorf("other account reads %d events (%v)", len(evs), err)
	}

	// Deleting a goal appends goal.deleted for it and metric.deleted for its key result.
	head4, _ := e.store.Head(e.ctx)
	if err := e.store.DeleteGoal(e.ctx, leaf.ID); err != nil {
		t.Fatal(err)
	}
	evs, _ = e.store.Events(e.ctx, head4, 100)
	var types []upstream.EventType
	for _, ev := range evs {
		types = append(types, ev.Type)
	}
	for _, want := range []upstream.EventType{upstream.EventGoalDeleted, upstream.EventMetricDeleted} {
		if !slices.Contains(types, want) {
			t.Errorf("delete appended %v, missing %s", types, want)
		}
	}
}

// TestPruneEventsKeepsTheLast checks that pruning keeps each account's last
// event, so positions keep increasing after a prune.
func TestPruneEventsKeepsTheLast(t *testing.T) {
	e := newEnv(t)
	s := e.session(upstream.SessionInput{})
	e.goal(upstream.GoalInput{Name: "g", SessionID: s.ID})
	head, _ := e.store.Head(e.ctx)
	n, err := e.store.PruneEvents(e.ctx, -time.Minute) // everything is older than a minute from now
	if err != nil {
		t.Fatal(err)
	}
	if n != head-1 {
		t.Errorf("pruned %d, want %d", n, head-1)
	}
	e.goal(upstream.GoalInput{Name: "h", SessionID: s.ID})
	evs, _ := e.store.Events(e.ctx, 0, 100)
	if len(evs) == 0 || evs[0].Position != head {
		t.Fatalf("after prune: %+v, want the last kept at %d first", evs, head)
	}
	if evs[len(evs)-1].Position <= head {
		t.Errorf("positions did not increase after a prune")
	}
}

// TestEventsChangedAcrossStores checks LISTEN/NOTIFY on PostgreSQL: a
// store waiting on EventsChanged is woken by a write through another store
// on the same database (another replica), and by nothing else: the waiting
// store has no polling of its own, so only the notification can wake it.
func TestEventsChangedAcrossStores(t *testing.T) {
	if !sqlstoretest.Postgres() {
		t.Skip("LISTEN/NOTIFY is PostgreSQL's; on SQLite one process serves the database")
	}
	e := newEnv(t)
	other, err := sqlstore.Open(context.Background(), e.path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	wait := func(ch <-chan struct{}, what string) {
		t.Helper()
		select {
		case <-ch:
		case <-time.After(30 * time.Second):
			t.Fatalf("not woken: %s", what)
		}
	}
	// The first call starts listening; the listener wakes once when it is
	// ready (it may have missed notifications before).
	wait(other.EventsChanged(), "listener ready")
	woken := other.EventsChanged()
	s := e.session(upstream.SessionInput{})
	wait(woken, "a session created through the other store")
	evs, err := other.Events(e.ctx, 0, 100)
	if err != nil || len(evs) == 0 || evs[len(evs)-1].ItemID != s.ID {
		t.Fatalf("the woken store reads %+v (%v), want the new session last", evs, err)
	}
}
