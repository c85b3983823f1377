package sqlstore_test

import (
	"context"
	"testing"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/query"
)

// privateUnderPublic is the tree of the figures rule (docs/authorization.md,
// "Figures count every item"): a public goal whose only key result is
// private, checked in at 37%, and whose only child goal is private, its key
// result checked in at 91%; all the admin's.
type privateUnderPublic struct {
	session           string
	parent, child     upstream.Goal
	parentKR, childKR upstream.Metric
}

func (e *env) privateUnderPublic() privateUnderPublic {
	e.t.Helper()
	var p privateUnderPublic
	p.session = e.session(upstream.SessionInput{}).ID
	p.parent = e.goal(upstream.GoalInput{Name: "public parent", SessionID: p.session})
	p.child = e.goal(upstream.GoalInput{Name: "private child", SessionID: p.session, ParentID: p.parent.ID, Private: true})
	target := 100.0
	p.parentKR = e.metric(upstream.MetricInput{Name: "private kr", GoalID: p.parent.ID, Target: &target, Private: true})
	p.childKR = e.metric(upstream.MetricInput{Name: "child kr", GoalID: p.child.ID, Target: &target})
	e.checkIn(e.ctx, p.parentKR.ID, 37)
	e.checkIn(e.ctx, p.childKR.ID, 91)
	return p
}

func (e *env) checkIn(ctx context.Context, metric string, actual float64) {
	e.t.Helper()
	if _, err := e.store.CheckIn(ctx, metric, upstream.CheckInInput{Actual: &actual}); err != nil {
		e.t.Fatal(err)
	}
}

// figures are the derived fields of a goal.
type figures struct {
	Attainment, Aggregated, Children, Full       float64
	ChildrenCount, SubTree, FullSubTree, Metrics int
}

func figuresOf(g upstream.Goal) figures {
	return figures{g.Attainment, g.AggregatedAttainment, g.ChildrenAggregatedAttainment, g.FullAggregatedAttainment,
		g.ChildrenCount, g.SubTreeCount, g.FullSubTreeCount, g.MetricsCount}
}

// TestFiguresCountPrivateItems checks the figures rule on the store: a
// member reading the public parent sees the figures every reader sees,
// private items counted (its private key result's 37% as its attainment,
// its private child's 91% in its aggregates, both in its counts), while
// the items themselves stay hidden: no embedded key result, no child in
// the listing, the child 404. A check-in on the private child recomputes
// the parent, and the event log's goal.recomputed of the parent, read
// back as the member as a subscription does, shows the new figures; the
// child's own events are not readable by the member.
func TestFiguresCountPrivateItems(t *testing.T) {
	e := newEnv(t)
	p := e.privateUnderPublic()
	member := upstream.NewContext(context.Background(), e.user(upstream.RoleMember))

	want := figures{Attainment: 0.37, Aggregated: 0.91, Children: 0.91, Full: (0.37 + 0.91) / 2,
		ChildrenCount: 1, SubTree: 1, FullSubTree: 1, Metrics: 1}
	for who, ctx := range map[string]context.Context{"admin": e.ctx, "member": member} {
		g, err := e.store.GetGoal(ctx, p.parent.ID)
		if err != nil {
			t.Fatalf("%s reads the parent: %v", who, err)
		}
		if got := figuresOf(g); !sameFigures(got, want) {
			t.Errorf("%s sees the parent's figures %+v, want %+v (every reader the same)", who, got, want)
		}
	}
	g, _ := e.store.GetGoal(member, p.parent.ID)
	if len(g.Metrics) != 0 {
		t.Errorf("the member sees the private key result: %+v", g.Metrics)
	}
	kids, err := e.store.ListGoals(member, upstream.ListQuery{Filter: query.Eq("parentId", p.parent.ID)})
	if err != nil || kids.TotalCount != 0 {
		t.Errorf("the member's children listing: %d (%v), want none", kids.TotalCount, err)
	}
	if _, err := e.store.GetGoal(member, p.child.ID); upstream.ErrorCode(err) != upstream.CodeNotFound {
		t.Errorf("the member reads the private child: %v", err)
	}

	head, err := e.store.Head(member)
	if err != nil {
		t.Fatal(err)
	}
	e.checkIn(e.ctx, p.childKR.ID, 95)
	events, err := e.store.Events(member, head, upstream.MaxEventsPerRead)
	if err != nil {
		t.Fatal(err)
	}
	f := upstream.GoalChangeFilter{SessionID: p.session}
	var parentEvents int
	for _, ev := range events {
		if !f.Match(ev) {
			continue
		}
		g, err := e.store.GetGoal(member, ev.ItemID)
		switch {
		case ev.ItemID == p.child.ID:
			if upstream.ErrorCode(err) != upstream.CodeNotFound {
				t.Errorf("the member reads the private child's %s event: %v", ev.Type, err)
			}
		case ev.ItemID == p.parent.ID && ev.Type == upstream.EventGoalRecomputed:
			parentEvents++
			if err != nil {
				t.Fatalf("the member cannot read the parent's event: %v", err)
			}
			want.Aggregated, want.Children, want.Full = 0.95, 0.95, (0.37+0.95)/2
			if got := figuresOf(g); !sameFigures(got, want) || ev.Attainment == nil || *ev.Attainment != g.Attainment {
				t.Errorf("after the private check-in the member reads the parent's figures %+v (event attainment %v), want %+v", got, ev.Attainment, want)
			}
		default:
			t.Errorf("unexpected event %s of %s", ev.Type, ev.ItemID)
		}
	}
	if parentEvents != 1 {
		t.Errorf("%d goal.recomputed events of the parent after a check-in below it, want 1", parentEvents)
	}
}

func sameFigures(a, b figures) bool {
	return near(a.Attainment, b.Attainment) && near(a.Aggregated, b.Aggregated) && near(a.Children, b.Children) &&
		near(a.Full, b.Full) && a.ChildrenCount == b.ChildrenCount && a.SubTree == b.SubTree &&
		a.FullSubTree == b.FullSubTree && a.Metrics == b.Metrics
}
