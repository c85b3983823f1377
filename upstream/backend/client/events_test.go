package client_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/client"
	"github.com/okrgate/okrgate/upstream/transport/rest"
)

// TestEventFeedFollowed: the client reads the facade's event feed as each
// caller may see it (a viewer gets the private goal's event as a position
// without a type, at the admin's position), and EventsChanged wakes after
// a write to a followed account made behind the client's back.
func TestEventFeedFollowed(t *testing.T) {
	b := newBackend(t, rest.Options{})
	c := b.newClient(t, client.Options{EventPoll: 20 * time.Millisecond})
	ctx := context.Background()
	as := func(token string) context.Context {
		caller, err := c.Authenticate(ctx, token)
		if err != nil {
			t.Fatal(err)
		}
		return upstream.NewContext(ctx, caller)
	}
	admin, viewer := as(b.env.Admin), as(b.env.Viewer)
	start, err := c.Head(viewer) // follows the account from here on
	if err != nil {
		t.Fatal(err)
	}
	wake := c.EventsChanged()

	direct, err := b.store.Authenticate(ctx, b.env.Admin)
	if err != nil {
		t.Fatal(err)
	}
	st := upstream.NewContext(ctx, direct)
	s, err := b.store.CreateSession(st, upstream.SessionInput{Title: "Q1", Start: "2027-01-01", End: "2027-03-31"})
	if err != nil {
		t.Fatal(err)
	}
	open, err := b.store.CreateGoal(st, upstream.GoalInput{Name: "Open", SessionID: s.ID})
	if err != nil {
		t.Fatal(err)
	}
	secret, err := b.store.CreateGoal(st, upstream.GoalInput{Name: "Secret", SessionID: s.ID, Private: true})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-wake:
	case <-time.After(time.Minute):
		t.Fatal("EventsChanged did not wake after writes to a followed account")
	}

	av, err := c.Events(admin, start, 100)
	if err != nil {
		t.Fatal(err)
	}
	vv, err := c.Events(viewer, start, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(av) != 3 || len(vv) != 3 {
		t.Fatalf("after %d: admin %+v, viewer %+v; want the session's and both goals' events", start, av, vv)
	}
	for i := range av {
		if av[i].Position != vv[i].Position || av[i].AccountID != direct.AccountID || vv[i].AccountID != direct.AccountID {
			t.Errorf("event %d: admin %+v, viewer %+v", i, av[i], vv[i])
		}
	}
	if av[1].ItemID != open.ID || av[2].ItemID != secret.ID || av[2].Type != upstream.EventGoalCreated {
		t.Errorf("the admin's events %+v", av)
	}
	if vv[1].ItemID != open.ID || vv[2].ItemID != "" || vv[2].Type != "" {
		t.Errorf("the viewer's events %+v: want the open goal, and the private one as a position only", vv)
	}
	if head, err := c.Head(viewer); err != nil || head != av[2].Position {
		t.Errorf("Head = %d, %v; want %d", head, err, av[2].Position)
	}
}

// TestEventFeedMissing: against an upstream without the feed, Discover
// says so and reading the log is a clear error.
func TestEventFeedMissing(t *testing.T) {
	b := newBackend(t, rest.Options{NoGatewayRoutes: true})
	c := b.newClient(t, client.Options{})
	caps, err := c.Discover(context.Background())
	if err != nil || caps.Events {
		t.Fatalf("Discover = %+v, %v; want no event feed", caps, err)
	}
	caller, err := c.Authenticate(context.Background(), b.env.Admin)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Head(upstream.NewContext(context.Background(), caller))
	if upstream.ErrorCode(err) != upstream.CodeUnavailable || !strings.Contains(upstream.ErrorMessage(err), "no event feed") {
		t.Errorf("Head against an upstream without the feed: %v", err)
	}
}
