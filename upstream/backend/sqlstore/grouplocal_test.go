package sqlstore_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore/sqlstoretest"
)

// TestLocalGroupCommit: on SQLite, the writes of an account queued while
// one of its transactions holds the writer are applied together in one
// transaction: each check-in gets its own result, a check-in refused by
// the rules (a key result that does not exist) fails alone, a write whose
// client gives up while it waits is not applied. When a write fails in the
// database (a statement that errs), the group's transaction is rolled back
// and every write of it runs again alone, so the others are applied all
// the same and the failing one fails. Every figure is what a computation
// from scratch gives, and the check-in events keep the order of the queue.
func TestLocalGroupCommit(t *testing.T) {
	if sqlstoretest.Postgres() {
		t.Skip("SQLite's group transaction; PostgreSQL's is TestGroupCommit")
	}
	for _, failing := range []bool{false, true} {
		name := "decided"
		if failing {
			name = "database failure"
		}
		t.Run(name, func(t *testing.T) { testLocalGroup(t, failing) })
	}
}

func testLocalGroup(t *testing.T, failing bool) {
	ctx := context.Background()
	dsn := sqlstoretest.DSN(t)
	st, err := sqlstore.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	admin := newWriteFixture(t, st).admin
	c, err := upstream.MustCaller(admin)
	if err != nil {
		t.Fatal(err)
	}
	leaf, krs := chainWithKeyResults(t, st, admin, 4)
	txs0, writes0 := st.GroupedWrites()

	release := st.HoldWrites(admin)
	var wg sync.WaitGroup
	results := map[string]error{}
	var mu sync.Mutex
	queue := func(name string, ctx context.Context, write func(ctx context.Context) error) {
		t.Helper()
		n := st.QueuedWrites(c.AccountID)
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := write(ctx)
			mu.Lock()
			results[name] = err
			mu.Unlock()
		}()
		for st.QueuedWrites(c.AccountID) != n+1 {
			time.Sleep(time.Millisecond)
		}
	}
	checkIn := func(id string, actual float64) func(ctx context.Context) error {
		return func(ctx context.Context) error {
			_, err := st.CheckIn(ctx, id, upstream.CheckInInput{Actual: &actual})
			return err
		}
	}
	queue("kr0", admin, checkIn(krs[0].ID, 10))
	queue("missing", admin, checkIn("0123456789abcdef01234567", 5))
	queue("kr1", admin, checkIn(krs[1].ID, 20))
	if failing {
		queue("server error", admin, st.FailingWrite)
	}
	gone, cancel := context.WithCancel(admin)
	queue("gone", gone, checkIn(krs[3].ID, 99))
	queue("kr2", admin, checkIn(krs[2].ID, 30))
	queue("kr0 again", admin, checkIn(krs[0].ID, 40))
	cancel()
	for st.QueuedWrites(c.AccountID) == 6+boolInt(failing) {
		time.Sleep(time.Millisecond) // "gone" leaves the queue
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	for _, name := range []string{"kr0", "kr1", "kr2", "kr0 again"} {
		if results[name] != nil {
			t.Errorf("%s: %v", name, results[name])
		}
	}
	if upstream.ErrorCode(results["missing"]) != upstream.CodeNotFound {
		t.Errorf("check-in on a missing key result: %v, want not found", results["missing"])
	}
	if !errors.Is(results["gone"], context.Canceled) {
		t.Errorf("check-in whose client gave up: %v, want context canceled", results["gone"])
	}
	if failing && results["server error"] == nil {
		t.Error("the write whose statement failed succeeded")
	}
	// The held write, then one group of the writes queued (the one that
	// gave up left the queue).
	txs, writes := st.GroupedWrites()
	if want := int64(5 + boolInt(failing)); txs-txs0 != 2 || writes-writes0 != want+1 {
		t.Errorf("%d group transactions of %d writes, want 2 of %d", txs-txs0, writes-writes0, want+1)
	}

	raw := sqlstoretest.OpenRaw(t, dsn)
	var rows int
	if err := raw.QueryRowContext(ctx, raw.Q("SELECT count(*) FROM checkins WHERE account_id = ?"), c.AccountID).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if rows != 4 {
		t.Errorf("%d check-ins stored, want 4", rows)
	}
	for i, want := range []float64{40, 20, 30, 0} {
		m, err := st.GetMetric(admin, krs[i].ID)
		if err != nil {
			t.Fatal(err)
		}
		if m.Actual != want {
			t.Errorf("key result %d: actual %v, want %v", i, m.Actual, want)
		}
	}
	if err := sqlstoretest.CheckFigures(ctx, raw, c.AccountID); err != nil {
		t.Error(err)
	}
	if g, err := st.GetGoal(admin, leaf.ID); err != nil || g.Attainment != 0.225 {
		t.Errorf("leaf after the group: attainment %v (%v), want 0.225", g.Attainment, err)
	}
	r, err := raw.QueryContext(ctx, raw.Q(`SELECT c.metric_id FROM events e JOIN checkins c ON c.account_id = e.account_id AND c.id = e.item_id
		WHERE e.account_id = ? AND e.type = ? ORDER BY e.position`), c.AccountID, string(upstream.EventCheckInCreated))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var order []string
	for r.Next() {
		var id string
		if err := r.Scan(&id); err != nil {
			t.Fatal(err)
		}
		order = append(order, id)
	}
	if want := []string{krs[0].ID, krs[1].ID, krs[2].ID, krs[0].ID}; !slices.Equal(order, want) {
		t.Errorf("check-in events of %v, want %v", order, want)
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
