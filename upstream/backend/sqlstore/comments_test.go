package sqlstore_test

import (
	"testing"

	"github.com/okrgate/okrgate/upstream"
)

// TestComments: a member comments on a key result it may read; a viewer
// lists it but may not comment; a comment on a private objective's key
// result is hidden from a member who may not read the objective; another
// member may not delete a comment, its author and the admin may.
func TestComments(t *testing.T) {
	e := newEnv(t)
	member, viewer := e.user("member"), e.user("viewer")
	memberCtx, viewerCtx := upstream.NewContext(e.ctx, member), upstream.NewContext(e.ctx, viewer)
	s := e.session(upstream.SessionInput{})
	target := 10.0
	public := e.metric(upstream.MetricInput{Name: "Revenue", Target: &target, GoalID: e.goal(upstream.GoalInput{Name: "Grow", SessionID: s.ID}).ID})
	private := e.metric(upstream.MetricInput{Name: "Secret", Target: &target, GoalID: e.goal(upstream.GoalInput{Name: "Hidden", SessionID: s.ID, Private: true}).ID})

	mine, err := e.store.CreateComment(memberCtx, upstream.CommentInput{TargetID: public.ID, Text: "  on track  "})
	if err != nil {
		t.Fatal(err)
	}
	if mine.Text != "on track" || mine.CreatedBy != member.UserID || mine.TargetType != upstream.CommentTargetMetric {
		t.Errorf("created %+v", mine)
	}
	if _, err := e.store.CreateComment(viewerCtx, upstream.CommentInput{TargetID: public.ID, Text: "x"}); upstream.ErrorCode(err) != upstream.CodeForbidden {
		t.Errorf("a viewer comments: %v, want forbidden", err)
	}
	if _, err := e.store.CreateComment(memberCtx, upstream.CommentInput{TargetID: private.ID, Text: "x"}); err == nil {
		t.Error("a member commented on a private objective's key result it may not read")
	}
	secret, err := e.store.CreateComment(e.ctx, upstream.CommentInput{TargetID: private.ID, Text: "admins only"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		who  string
		c    upstream.Caller
		want int
	}{{"viewer", viewer, 1}, {"member", member, 1}} {
		p, err := e.store.ListComments(upstream.NewContext(e.ctx, tc.c), upstream.ListQuery{Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Items) != tc.want || p.TotalCount != tc.want || p.Items[0].ID != mine.ID {
			t.Errorf("%s lists %+v, want only %s", tc.who, p, mine.ID)
		}
	}
	all, err := e.store.ListComments(e.ctx, upstream.ListQuery{Limit: 10})
	if err != nil || len(all.Items) != 2 {
		t.Errorf("the admin lists %+v, %v; want both", all, err)
	}
	if err := e.store.DeleteComment(viewerCtx, mine.ID); upstream.ErrorCode(err) != upstream.CodeForbidden {
		t.Errorf("a viewer deletes another's comment: %v, want forbidden", err)
	}
	if err := e.store.DeleteComment(memberCtx, secret.ID); upstream.ErrorCode(err) != upstream.CodeNotFound {
		t.Errorf("a member deletes a comment it may not see: %v, want not_found", err)
	}
	if err := e.store.DeleteComment(memberCtx, mine.ID); err != nil {
		t.Errorf("the author deletes its comment: %v", err)
	}
	if err := e.store.DeleteComment(e.ctx, secret.ID); err != nil {
		t.Errorf("the admin deletes a comment: %v", err)
	}
}

// TestCommentsGoWithTheirKeyResult: deleting a key result deletes its
// comments, and deleting an objective those of its key results; the other
// key results' comments stay.
func TestCommentsGoWithTheirKeyResult(t *testing.T) {
	e := newEnv(t)
	s := e.session(upstream.SessionInput{})
	target := 10.0
	g := e.goal(upstream.GoalInput{Name: "Grow", SessionID: s.ID})
	kept := e.metric(upstream.MetricInput{Name: "Kept", Target: &target, GoalID: e.goal(upstream.GoalInput{Name: "Other", SessionID: s.ID}).ID})
	m1 := e.metric(upstream.MetricInput{Name: "One", Target: &target, GoalID: g.ID})
	m2 := e.metric(upstream.MetricInput{Name: "Two", Target: &target, GoalID: g.ID})
	for _, m := range []upstream.Metric{kept, m1, m2} {
		if _, err := e.store.CreateComment(e.ctx, upstream.CommentInput{TargetID: m.ID, Text: "on " + m.Name}); err != nil {
			t.Fatal(err)
		}
	}
	count := func() int {
		t.Helper()
		p, err := e.store.ListComments(e.ctx, upstream.ListQuery{Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		return p.TotalCount
	}
	if err := e.store.DeleteMetric(e.ctx, m1.ID); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 2 {
		t.Errorf("%d comments after their key result was deleted, want 2", n)
	}
	if err := e.store.DeleteGoal(e.ctx, g.ID); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 1 {
		t.Errorf("%d comments after the objective was deleted, want 1 (the other key result's)", n)
	}
}
