package sqlstore_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
)

// TestRequestMemo: within one request (upstream.WithMemo) reads derive the
// caller's roles, teams and grants once; a write decides on fresh grants
// whatever the memo holds, and clears the memo when it commits.
func TestRequestMemo(t *testing.T) {
	e := newEnv(t)
	s := e.session(upstream.SessionInput{})
	e.goal(upstream.GoalInput{Name: "Grow", SessionID: s.ID})
	c := e.user(upstream.RoleViewer)
	req := upstream.WithMemo(upstream.NewContext(context.Background(), c))
	list := func() int64 {
		t.Helper()
		before := e.store.QueryCount()
		p, err := e.store.ListGoals(req, upstream.ListQuery{})
		if err != nil || p.TotalCount != 1 {
			t.Fatalf("viewer lists goals: %v, %v", p, err)
		}
		return e.store.QueryCount() - before
	}
	first, second := list(), list()
	t.Logf("statements of a goal listing: %d first in the request, %d after", first, second)
	if second >= first {
		t.Fatalf("second read of the request ran %d statements, the first %d: the subject was derived again", second, first)
	}

	// A viewer may not create goals; an admin grants it in another request.
	if _, err := e.store.CreateGoal(req, upstream.GoalInput{Name: "Nope", SessionID: s.ID}); upstream.ErrorCode(err) != upstream.CodeForbidden {
		t.Fatalf("viewer creates a goal: %v, want forbidden", err)
	}
	if _, err := e.store.CreatePermission(e.ctx, upstream.PermissionInput{Action: string(upstream.GoalsCreate), Principals: []string{c.UserID}}); err != nil {
		t.Fatal(err)
	}
	// The memo still holds the subject without the grant, but the write
	// derives its own.
	if _, err := e.store.CreateGoal(req, upstream.GoalInput{Name: "Granted", SessionID: s.ID}); err != nil {
		t.Fatalf("viewer with the grant creates a goal in the same request: %v", err)
	}
	// The commit cleared the memo: the next read derives the subject again.
	if third := list2(t, e, req, 2); third != first {
		t.Fatalf("read after the write ran %d statements, want %d (a fresh derivation)", third, first)
	}
	// Without a memo, every read derives it, and one listing derives it
	// more than once (the listing's scope, then the items' allowed actions).
	plain := upstream.NewContext(context.Background(), c)
	if a, b := list2(t, e, plain, 2), list2(t, e, plain, 2); a != b || a <= first {
		t.Fatalf("reads without a memo ran %d and %d statements, want the same, more than %d", a, b, first)
	}
}

// list2 lists goals as ctx, expecting want of them, and returns the
// statements it ran.
func list2(t *testing.T, e *env, ctx context.Context, want int) int64 {
	t.Helper()
	before := e.store.QueryCount()
	p, err := e.store.ListGoals(ctx, upstream.ListQuery{})
	if err != nil || p.TotalCount != want {
		t.Fatalf("list goals: %d, %v; want %d", p.TotalCount, err, want)
	}
	return e.store.QueryCount() - before
}

// TestMetricAllowedActions: a listing's currentUserAllowedActions for key
// results, per caller — the admin's without reading goals, the others'
// from the goal, its owners and the session.
func TestMetricAllowedActions(t *testing.T) {
	e := newEnv(t)
	s := e.session(upstream.SessionInput{})
	as := func(role string) (context.Context, string) {
		c := e.user(role)
		return upstream.WithMemo(upstream.NewContext(context.Background(), c)), c.UserID
	}
	member, memberID := as(upstream.RoleMember)
	viewer, _ := as(upstream.RoleViewer)
	mine := e.goal(upstream.GoalInput{Name: "Mine", SessionID: s.ID, OwnerID: memberID})
	theirs := e.goal(upstream.GoalInput{Name: "Theirs", SessionID: s.ID})
	e.metric(upstream.MetricInput{Name: "M1", GoalID: mine.ID, Target: f(10)})
	e.metric(upstream.MetricInput{Name: "M2", GoalID: theirs.ID, Target: f(10)})
	acts := func(ctx context.Context) map[string]string {
		t.Helper()
		p, err := e.store.ListMetrics(ctx, upstream.ListQuery{})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, m := range p.Items {
			out[m.Name] = strings.Join(m.CurrentUserAllowedActions, " ")
		}
		return out
	}
	all := "metrics:read metrics:update metrics:delete metrics:checkin tasks:create"
	for name, tc := range map[string]struct {
		ctx  context.Context
		want map[string]string
	}{
		"admin":  {e.ctx, map[string]string{"M1": all, "M2": all}},
		"member": {member, map[string]string{"M1": all, "M2": "metrics:read tasks:create"}},
		"viewer": {viewer, map[string]string{"M1": "metrics:read", "M2": "metrics:read"}},
	} {
		if got := acts(tc.ctx); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %v, want %v", name, got, tc.want)
		}
	}
}

// user creates a user of the env's account with a built-in role and
// returns it authenticated by a token of its own.
func (e *env) user(role string) upstream.Caller {
	e.t.Helper()
	u, err := e.store.CreateUser(e.ctx, sqlstore.UserInput{Email: role + "@acme.test", FirstName: role, Role: role})
	if err != nil {
		e.t.Fatal(err)
	}
	tok, err := e.store.CreateUserToken(e.ctx, u.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	c, err := e.store.Authenticate(context.Background(), tok.Token)
	if err != nil {
		e.t.Fatal(err)
	}
	return c
}
