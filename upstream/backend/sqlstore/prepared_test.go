package sqlstore

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore/internal/testdb"
)

// TestCheckInPrepared: on SQLite every statement of a check-in — an
// admin's and a member's, on a goal with a parent and on a root goal with
// children — runs as a statement prepared when the store opened, not
// parsed and planned from its text (modernc.org/sqlite prepares a text
// afresh each time: preparing took 30% of a check-in's CPU time when the
// facts statements were left out).
func TestCheckInPrepared(t *testing.T) {
	f := newPlanFixture(t)
	if f.s.pg != nil {
		t.Skip("pgx prepares and caches statements itself")
	}
	target := 10.0
	leaf, err := f.s.CreateMetric(f.admin, upstream.MetricInput{Name: "leaf KR", GoalID: f.child.ID, Target: &target})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var stmts []string
	f.s.trace = func(stmt string, _ []any) {
		mu.Lock()
		defer mu.Unlock()
		stmts = append(stmts, stmt)
	}
	defer func() { f.s.trace = nil }()
	for i, c := range []struct {
		who    string
		metric string
	}{{"admin", f.metric.ID}, {"member", f.metric.ID}, {"admin", leaf.ID}} {
		ctx := f.admin
		if c.who == "member" {
			ctx = f.member
		}
		mu.Lock()
		stmts = nil
		mu.Unlock()
		actual := float64(5 + i)
		if _, err := f.s.CheckIn(ctx, c.metric, upstream.CheckInInput{Actual: &actual}); err != nil {
			t.Fatalf("%s's check-in: %v", c.who, err)
		}
		mu.Lock()
		got := slices.Clone(stmts)
		mu.Unlock()
		if len(got) < 6 {
			t.Fatalf("%s's check-in: %d statements traced, want at least 6: %q", c.who, len(got), got)
		}
		for _, st := range got {
			if f.s.stmts.m[st] == nil {
				t.Errorf("%s's check-in on %s runs a statement that is not prepared: %.200s", c.who, c.metric, oneLine(st))
			}
		}
	}
}

// TestAuthenticatePrepared: on SQLite the reads of Authenticate, which
// every request makes, run as statements prepared when the store opened,
// for a token whose use was just recorded (no write) and for a wrong one.
func TestAuthenticatePrepared(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, testdb.DSN(t, "auth.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.pg != nil {
		t.Skip("pgx prepares and caches statements itself")
	}
	b, err := s.Bootstrap(ctx, BootstrapInput{AccountName: "Auth", Email: "admin@auth.test"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Authenticate(ctx, b.Token); err != nil { // records the token's use
		t.Fatal(err)
	}
	var mu sync.Mutex
	var stmts []string
	s.trace = func(stmt string, _ []any) {
		mu.Lock()
		defer mu.Unlock()
		stmts = append(stmts, stmt)
	}
	defer func() { s.trace = nil }()
	c, err := s.Authenticate(ctx, b.Token)
	if err != nil || c.UserID != b.UserID || c.AccountID != b.AccountID {
		t.Fatalf("Authenticate = %+v, %v; want user %s of %s", c, err, b.UserID, b.AccountID)
	}
	if _, err := s.Authenticate(ctx, b.Token+"x"); upstream.ErrorCode(err) != upstream.CodeUnauthenticated {
		t.Fatalf("a wrong token: %v, want unauthenticated", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(stmts) != 3 {
		t.Fatalf("%d statements traced, want 3 (two for the token, one for the wrong one): %q", len(stmts), stmts)
	}
	for _, st := range stmts {
		if s.stmts.r[st] == nil {
			t.Errorf("Authenticate runs a statement that is not prepared: %.200s", oneLine(st))
		}
	}
}
