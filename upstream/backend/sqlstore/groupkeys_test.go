package sqlstore_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore/sqlstoretest"
)

// TestGroupKeepsIdempotency: check-ins sent with Idempotency-Keys and
// applied together in one group transaction each keep their own result
// (their own check-in, one event each naming it) and their own key: the
// keys of those that succeeded are marked applied in the group's
// transaction, so a retry is refused (idempotency_key_in_use) rather than
// applied twice; the key of the one that failed (a key result that does
// not exist) is not, and is free again once released. Counts, not
// timings: the writes are queued behind a transaction the test holds.
func TestGroupKeepsIdempotency(t *testing.T) {
	if !sqlstoretest.Postgres() {
		t.Skip("group commit is PostgreSQL's; set OKRGATE_TEST_POSTGRES")
	}
	ctx := context.Background()
	dsn := sqlstoretest.DSN(t)
	var mu sync.Mutex
	begins := 0
	st, err := sqlstore.Open(ctx, dsn, sqlstore.WithStatementObserver(func(stmt string, _ []any) {
		if strings.HasPrefix(stmt, "BEGIN") {
			mu.Lock()
			begins++
			mu.Unlock()
		}
	}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	w := newWriteFixture(t, st)
	admin := w.admin
	c, err := upstream.MustCaller(admin)
	if err != nil {
		t.Fatal(err)
	}
	ss, err := st.CreateSession(admin, upstream.SessionInput{Title: "Q3", Start: "2026-07-01", End: "2026-09-30"})
	if err != nil {
		t.Fatal(err)
	}
	g, err := st.CreateGoal(admin, upstream.GoalInput{Name: "keys", SessionID: ss.ID})
	if err != nil {
		t.Fatal(err)
	}
	target := 100.0
	var krs []string
	for range 3 {
		m, err := st.CreateMetric(admin, upstream.MetricInput{Name: "kr", GoalID: g.ID, Target: &target})
		if err != nil {
			t.Fatal(err)
		}
		krs = append(krs, m.ID)
	}
	krs = append(krs, "0123456789abcdef01234567") // no such key result: fails
	keys := make([]upstream.IdempotencyKey, len(krs))
	for i := range krs {
		keys[i] = upstream.IdempotencyKey{AccountID: c.AccountID, UserID: c.UserID, Method: "POST",
			Path: "/api/v1/metrics/" + krs[i] + "/checkin", Key: fmt.Sprint("key-", i), Hash: "h"}
		if r, err := st.ReserveIdempotencyKey(admin, keys[i]); r != nil || err != nil {
			t.Fatalf("reserve %d: %v %v", i, r, err)
		}
	}

	mu.Lock()
	begins = 0
	mu.Unlock()
	release := st.HoldWrites(admin)
	type outcome struct {
		i   int
		ci  upstream.CheckIn
		err error
	}
	results := make(chan outcome, len(krs))
	for i := range krs {
		n := st.QueuedWrites(c.AccountID)
		go func() {
			actual := float64(10 * (i + 1))
			ci, err := st.Writing(upstream.WriteOptions{Idempotency: &keys[i]}).CheckIn(admin, krs[i], upstream.CheckInInput{Actual: &actual})
			results <- outcome{i, ci, err}
		}()
		for st.QueuedWrites(c.AccountID) != n+1 {
			time.Sleep(time.Millisecond)
		}
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}
	got := make([]outcome, len(krs))
	for range krs {
		o := <-results
		got[o.i] = o
	}
	mu.Lock()
	if begins != 2 {
		t.Errorf("%d transactions begun, want 2 (the one held, one for the group)", begins)
	}
	mu.Unlock()

	raw := sqlstoretest.OpenRaw(t, dsn)
	seen := map[string]bool{}
	for i, o := range got[:3] {
		if o.err != nil {
			t.Fatalf("check-in %d: %v", i, o.err)
		}
		if o.ci.MetricID != krs[i] || o.ci.Actual != float64(10*(i+1)) || seen[o.ci.ID] {
			t.Errorf("check-in %d: %+v, want its own", i, o.ci)
		}
		seen[o.ci.ID] = true
		var events int
		if err := raw.QueryRowContext(ctx, raw.Q("SELECT count(*) FROM events WHERE account_id = ? AND type = ? AND item_id = ?"),
			c.AccountID, string(upstream.EventCheckInCreated), o.ci.ID).Scan(&events); err != nil {
			t.Fatal(err)
		}
		if events != 1 {
			t.Errorf("check-in %d: %d events, want 1", i, events)
		}
		if state := keyState(t, raw, keys[i]); state != "applied" {
			t.Errorf("check-in %d's key is %q, want applied", i, state)
		}
		// A retry with the key, its answer not recorded yet: refused,
		// never applied twice.
		if _, err := st.ReserveIdempotencyKey(admin, keys[i]); upstream.ErrorCode(err) != upstream.CodeIdempotencyKeyInUse {
			t.Errorf("retry of check-in %d: %v, want idempotency_key_in_use", i, err)
		}
	}
	if upstream.ErrorCode(got[3].err) != upstream.CodeNotFound {
		t.Errorf("check-in on a missing key result: %v, want not found", got[3].err)
	}
	if state := keyState(t, raw, keys[3]); state == "applied" {
		t.Error("the failed check-in's key is marked applied")
	}
	if err := st.ReleaseIdempotencyKey(admin, keys[3]); err != nil {
		t.Fatal(err)
	}
	if r, err := st.ReserveIdempotencyKey(admin, keys[3]); r != nil || err != nil {
		t.Errorf("the failed check-in's key after release: %v %v, want free", r, err)
	}
	var rows int
	if err := raw.QueryRowContext(ctx, raw.Q("SELECT count(*) FROM checkins WHERE account_id = ?"), c.AccountID).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if rows != 3 {
		t.Errorf("%d check-ins stored, want 3", rows)
	}
}

// keyState is the state column of k's row.
func keyState(t *testing.T, raw *sqlstoretest.Raw, k upstream.IdempotencyKey) string {
	t.Helper()
	var state string
	if err := raw.QueryRowContext(context.Background(), raw.Q("SELECT state FROM idempotency_keys WHERE account_id = ? AND user_id = ? AND key = ?"),
		k.AccountID, k.UserID, k.Key).Scan(&state); err != nil {
		t.Fatal(err)
	}
	return state
}
