package respcache

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore/sqlstoretest"
)

// gatedClasses derives classes with a real store, recording the callers of
// each call and counting the reads of what the items name; the first
// derivation waits for release.
type gatedClasses struct {
	st         *sqlstore.Store
	release    chan struct{}
	mu         sync.Mutex
	calls      [][]upstream.Caller
	namedReads int // NamedUsers calls
}

func (g *gatedClasses) VisibilityClassesNamed(ctx context.Context, callers []upstream.Caller, named map[string]bool) ([]string, error) {
	g.mu.Lock()
	g.calls = append(g.calls, callers)
	first := len(g.calls) == 1
	g.mu.Unlock()
	if first {
		<-g.release
	}
	return g.st.VisibilityClassesNamed(ctx, callers, named)
}

func (g *gatedClasses) NamedUsers(ctx context.Context, account string) (map[string]bool, error) {
	g.mu.Lock()
	g.namedReads++
	g.mu.Unlock()
	return g.st.NamedUsers(ctx, account)
}

// TestScopeBurstOfNewCallers: callers whose classes are not known yet,
// arriving while one derivation of their account runs, are derived
// together in the next (one VisibilityClasses call for all of them), and
// each gets the class the store derives for it alone: the team's viewer
// its own, the other viewers one between them.
func TestScopeBurstOfNewCallers(t *testing.T) {
	st := sqlstoretest.Open(t)
	ctx := context.Background()
	b, err := st.Bootstrap(ctx, sqlstore.BootstrapInput{AccountName: "Acme", Email: "admin@acme.test"})
	if err != nil {
		t.Fatal(err)
	}
	admin := upstream.NewContext(ctx, upstream.Caller{AccountID: b.AccountID, UserID: b.UserID, Roles: []string{"admin"}})
	const n = 12
	callers := make([]upstream.Caller, n)
	for i := range callers {
		u, err := st.CreateUser(admin, upstream.UserInput{Email: fmt.Sprintf("v%d@acme.test", i), FirstName: "V", Role: upstream.RoleViewer})
		if err != nil {
			t.Fatal(err)
		}
		tok, err := st.CreateToken(admin, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		if callers[i], err = st.Authenticate(ctx, tok); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.CreateTeam(admin, upstream.TeamInput{Name: "Board", Members: []string{callers[3].UserID}}); err != nil {
		t.Fatal(err)
	}
	g := &gatedClasses{st: st, release: make(chan struct{})}
	s := NewScoper(st, g)

	got := make([]Scope, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	run := func(i int) {
		wg.Go(func() { got[i], errs[i] = s.Scope(upstream.NewContext(ctx, callers[i])) })
	}
	run(0)
	waitFor(t, "the first derivation", func() bool { g.mu.Lock(); defer g.mu.Unlock(); return len(g.calls) == 1 })
	for i := 1; i < n; i++ {
		run(i)
	}
	ch := s.account(b.AccountID)
	waitFor(t, "the others to wait for the next derivation", func() bool {
		ch.mu.Lock()
		defer ch.mu.Unlock()
		return ch.next != nil && len(ch.next.callers) == n-1
	})
	close(g.release)
	wg.Wait()

	if len(g.calls) != 2 || len(g.calls[0]) != 1 || len(g.calls[1]) != n-1 {
		sizes := make([]int, len(g.calls))
		for i, c := range g.calls {
			sizes[i] = len(c)
		}
		t.Fatalf("%d new callers at once: derivations of %v callers, want [1 %d]", n, sizes, n-1)
	}
	if g.namedReads != 1 {
		t.Errorf("%d new callers at once read what the items name %d times, want once", n, g.namedReads)
	}
	alone := func(c upstream.Caller) string {
		classes, err := st.VisibilityClasses(ctx, []upstream.Caller{c})
		if err != nil {
			t.Fatal(err)
		}
		return classes[0] + "\x00scopes:" + scopes(c)
	}
	for i, c := range callers {
		if errs[i] != nil {
			t.Fatalf("caller %d: %v", i, errs[i])
		}
		if want := alone(c); got[i].Class != want {
			t.Errorf("caller %d: class %q, want %q (derived alone)", i, got[i].Class, want)
		}
	}
	if got[3].Class == got[0].Class || got[1].Class != got[0].Class {
		t.Errorf("the team's viewer shares the others' class, or two viewers of no team do not share one: %q, %q, %q", got[0].Class, got[1].Class, got[3].Class)
	}
}

// waitFor polls cond until it holds, failing after 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// TestScopeNamedUsersKept: which users the items name is read once and
// kept across check-ins (a new caller after one reads no item), and read
// again after a write that names a user: a viewer made a goal's owner gets
// the class derived for it alone, its user id in it.
func TestScopeNamedUsersKept(t *testing.T) {
	st := sqlstoretest.Open(t)
	ctx := context.Background()
	b, err := st.Bootstrap(ctx, sqlstore.BootstrapInput{AccountName: "Acme", Email: "admin@acme.test"})
	if err != nil {
		t.Fatal(err)
	}
	admin := upstream.NewContext(ctx, upstream.Caller{AccountID: b.AccountID, UserID: b.UserID, Roles: []string{"admin"}})
	viewer := func(i int) upstream.Caller {
		u, err := st.CreateUser(admin, upstream.UserInput{Email: fmt.Sprintf("v%d@acme.test", i), FirstName: "V", Role: upstream.RoleViewer})
		if err != nil {
			t.Fatal(err)
		}
		tok, err := st.CreateToken(admin, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		c, err := st.Authenticate(ctx, tok)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	v1, v2, v3 := viewer(1), viewer(2), viewer(3)
	sess, err := st.CreateSession(admin, upstream.SessionInput{Title: "Q1", Start: "2026-01-01", End: "2026-03-31"})
	if err != nil {
		t.Fatal(err)
	}
	g, err := st.CreateGoal(admin, upstream.GoalInput{Name: "Open", SessionID: sess.ID})
	if err != nil {
		t.Fatal(err)
	}
	target := 10.0
	m, err := st.CreateMetric(admin, upstream.MetricInput{Name: "Revenue", GoalID: g.ID, Target: &target})
	if err != nil {
		t.Fatal(err)
	}
	gc := &gatedClasses{st: st, release: make(chan struct{})}
	close(gc.release)
	s := NewScoper(st, gc)
	scope := func(c upstream.Caller) Scope {
		sc, err := s.Scope(upstream.NewContext(ctx, c))
		if err != nil {
			t.Fatal(err)
		}
		return sc
	}
	alone := func(c upstream.Caller) string {
		classes, err := st.VisibilityClasses(ctx, []upstream.Caller{c})
		if err != nil {
			t.Fatal(err)
		}
		return classes[0] + "\x00scopes:" + scopes(c)
	}
	first := scope(v1)
	actual := 3.0
	if _, err := st.CheckIn(admin, m.ID, upstream.CheckInInput{Actual: &actual}); err != nil {
		t.Fatal(err)
	}
	if got := scope(v2); got.Class != first.Class || got.Version == first.Version {
		t.Errorf("after a check-in a new viewer of no goal has class %q at version %d, want the first viewer's %q at a later version than %d",
			got.Class, got.Version, first.Class, first.Version)
	}
	if gc.namedReads != 1 {
		t.Errorf("two new viewers around a check-in read what the items name %d times, want once", gc.namedReads)
	}
	if _, err := st.UpdateGoal(admin, g.ID, upstream.GoalPatch{OwnerIDs: &[]string{v3.UserID}}); err != nil {
		t.Fatal(err)
	}
	got := scope(v3)
	if want := alone(v3); got.Class != want || got.Class == first.Class {
		t.Errorf("a viewer made an owner has class %q, want %q (derived alone), not the others' %q", got.Class, want, first.Class)
	}
	if gc.namedReads != 2 {
		t.Errorf("after a goal named a user, what the items name was read %d times in all, want twice", gc.namedReads)
	}
}
