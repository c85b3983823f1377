package sqlstore

import (
	"context"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/okrgate/okrgate/upstream"
)

// visibilityReads counts, among statements, the reads that derive a caller's
// visibility: its subject (user document, grants), the account's sessions
// (the scope), the goals and key results hidden from it, and the obfuscated
// goals.
var pgPlaceholder = regexp.MustCompile(`\$[0-9]+`)

func visibilityReads(stmts []string) map[string]int {
	kinds := map[string]string{
		"subject":  "WITH u(doc) AS (SELECT doc FROM users WHERE id = ? AND account_id = ?)",
		"sessions": "SELECT doc FROM sessions WHERE account_id = ? AND (TRUE)",
		"hidden":   "WITH RECURSIVE s(id)",
		"stubs":    "WITH RECURSIVE inv(id)",
	}
	out := map[string]int{}
	for _, st := range stmts {
		st = pgPlaceholder.ReplaceAllString(oneLine(st), "?") // the observer sees PostgreSQL's $n there
		for k, prefix := range kinds {
			if strings.HasPrefix(st, prefix) {
				out[k]++
			}
		}
	}
	return out
}

// TestVisibilityOncePerRequest: a GraphQL-like request — sessions, their
// goals, the goals' children, key results, check-ins and tasks, and a goal
// by id, some of them at once as loaders do — derives the member's
// visibility (subject, sessions, obfuscated goals) once; a write of the
// request clears what it derived, so the next read derives it afresh.
func TestVisibilityOncePerRequest(t *testing.T) {
	f := newPlanFixture(t)
	var mu sync.Mutex
	var stmts []string
	f.s.trace = func(stmt string, _ []any) {
		mu.Lock()
		defer mu.Unlock()
		stmts = append(stmts, stmt)
	}
	defer func() { f.s.trace = nil }()
	req := upstream.WithMemo(f.member)
	tree := func() {
		t.Helper()
		shapes := map[string]bool{"sessions by id": true, "goals by sessionId": true, "goals by parentId": true,
			"metrics by goalId": true, "checkins by metricId": true, "tasks by parentId": true, "goal": true, "goals page": true}
		var wg sync.WaitGroup
		errs := make(chan error, len(shapes))
		for _, sh := range f.shapes() {
			if !shapes[sh.name] {
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs <- sh.call(req)
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	before := f.s.QueryCount()
	tree()
	first := f.s.QueryCount() - before
	want := map[string]int{"subject": 1, "sessions": 1, "hidden": 1, "stubs": 1}
	if got := visibilityReads(stmts); !equalCounts(got, want) {
		t.Fatalf("visibility reads of one request: %v, want %v", got, want)
	}
	before = f.s.QueryCount()
	tree()
	second := f.s.QueryCount() - before
	if got := visibilityReads(stmts); !equalCounts(got, want) {
		t.Fatalf("visibility reads after the request's second tree: %v, want %v", got, want)
	}
	// The subject is one statement (user, team roles, grants: subjectSQL),
	// the scope's sessions one, the hidden goals and key results one, the
	// obfuscated goals one.
	if first-second != 4 {
		t.Fatalf("statements of the tree: %d first in the request, %d again; want 4 fewer (the visibility reads)", first, second)
	}

	// A write of the request clears the memo: the next reads derive again.
	if _, err := f.s.CreateGoal(req, upstream.GoalInput{Name: "Mine", SessionID: f.session.ID}); err != nil {
		t.Fatal(err)
	}
	stmts = nil
	tree()
	if got := visibilityReads(stmts); !equalCounts(got, want) {
		t.Fatalf("visibility reads after a write: %v, want %v (derived afresh, once)", got, want)
	}

	// Without a memo every listing derives the scope again.
	stmts = nil
	plain := f.member
	for range 2 {
		if _, err := f.s.ListGoals(plain, upstream.ListQuery{}); err != nil {
			t.Fatal(err)
		}
	}
	if got := visibilityReads(stmts); got["sessions"] != 4 || got["hidden"] != 4 || got["stubs"] != 2 {
		t.Fatalf("visibility reads of two listings without a memo: %v, want sessions and hidden items four times (the scope, then the items' decisions), stubs twice", got)
	}
}

func equalCounts(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestMemoDeriveOnce: concurrent Derive calls of one key share one
// derivation; an error is not kept; Clear makes the next call derive again.
func TestMemoDeriveOnce(t *testing.T) {
	m := upstream.MemoFrom(upstream.WithMemo(context.Background()))
	var mu sync.Mutex
	n := 0
	derive := func() (any, error) {
		mu.Lock()
		defer mu.Unlock()
		n++
		return n, nil
	}
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if v, err := m.Derive("k", derive); err != nil || v != 1 {
				t.Errorf("Derive: %v, %v; want 1", v, err)
			}
		}()
	}
	wg.Wait()
	if _, err := m.Derive("e", func() (any, error) { return nil, context.Canceled }); err != context.Canceled {
		t.Fatalf("failing derive: %v", err)
	}
	if v, err := m.Derive("e", func() (any, error) { return "ok", nil }); err != nil || v != "ok" {
		t.Fatalf("derive after an error: %v, %v; want a fresh derivation", v, err)
	}
	m.Clear()
	if v, _ := m.Derive("k", derive); v != 2 {
		t.Fatalf("Derive after Clear: %v, want 2", v)
	}
}
