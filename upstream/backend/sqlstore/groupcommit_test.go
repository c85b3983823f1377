package sqlstore_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore/sqlstoretest"
)

// TestGroupCommit: on PostgreSQL, the writes of one account queued while
// one of its transactions is in flight are applied together in the next
// transaction, one COMMIT for all: each check-in gets its own result and is
// there once acknowledged; a write refused by the rules (a key result that
// does not exist), one failing on the server (a statement that errs) and
// one whose queued statement fails with the next write's round trip, or
// before the COMMIT when it is the last, fail alone, rolled back to their
// savepoints (the write after the late failure runs again); a write whose client gives
// up while it waits leaves the queue and is not applied; every figure is
// what a computation from scratch gives, and the events keep the order of
// the queue, without gaps.
func TestGroupCommit(t *testing.T) {
	if !sqlstoretest.Postgres() {
		t.Skip("group commit is PostgreSQL's (SQLite has one writer and no flush per commit); set OKRGATE_TEST_POSTGRES")
	}
	ctx := context.Background()
	dsn := sqlstoretest.DSN(t)
	var mu sync.Mutex
	begins := 0 // transactions begun
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
	account := c.AccountID
	ss, err := st.CreateSession(admin, upstream.SessionInput{Title: "Q2", Start: "2026-04-01", End: "2026-06-30"})
	if err != nil {
		t.Fatal(err)
	}
	g, err := st.CreateGoal(admin, upstream.GoalInput{Name: "group", SessionID: ss.ID})
	if err != nil {
		t.Fatal(err)
	}
	target := 100.0
	var krs []upstream.Metric
	for range 4 {
		m, err := st.CreateMetric(admin, upstream.MetricInput{Name: "kr", GoalID: g.ID, Target: &target})
		if err != nil {
			t.Fatal(err)
		}
		krs = append(krs, m)
	}
	raw := sqlstoretest.OpenRaw(t, dsn)
	var events0 int
	if err := raw.QueryRowContext(ctx, raw.Q("SELECT count(*) FROM events WHERE account_id = ?"), account).Scan(&events0); err != nil {
		t.Fatal(err)
	}

	mu.Lock()
	begins = 0
	mu.Unlock()
	release := st.HoldWrites(admin) // the account's transaction in flight
	type outcome struct {
		name string
		err  error
	}
	results := make(chan outcome, 8)
	queue := func(name string, ctx context.Context, write func(ctx context.Context) error) {
		t.Helper()
		n := st.QueuedWrites(account)
		go func() { results <- outcome{name, write(ctx)} }()
		for st.QueuedWrites(account) != n+1 {
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
	queue("late failure", admin, st.LateFailingWrite)
	queue("server error", admin, st.FailingWrite)
	gone, cancel := context.WithCancel(admin)
	queue("gone", gone, checkIn(krs[3].ID, 99))
	queue("kr2", admin, checkIn(krs[2].ID, 30))
	queue("kr0 again", admin, checkIn(krs[0].ID, 40))
	queue("late failure, last", admin, st.LateFailingWrite)
	cancel()
	if o := <-results; o.name != "gone" || !errors.Is(o.err, context.Canceled) {
		t.Fatalf("first answer %s: %v, want gone: context canceled", o.name, o.err)
	}
	if n := st.QueuedWrites(account); n != 8 {
		t.Fatalf("%d writes queued after one gave up, want 8", n)
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}
	got := map[string]error{}
	for range 8 {
		o := <-results
		got[o.name] = o.err
	}
	for _, name := range []string{"kr0", "kr1", "kr2", "kr0 again"} {
		if got[name] != nil {
			t.Errorf("%s: %v", name, got[name])
		}
	}
	if upstream.ErrorCode(got["missing"]) != upstream.CodeNotFound {
		t.Errorf("check-in on a missing key result: %v, want not found", got["missing"])
	}
	for _, name := range []string{"server error", "late failure", "late failure, last"} {
		if got[name] == nil {
			t.Errorf("%s: the write whose statement failed succeeded", name)
		}
	}

	// The transaction held, then one for the eight writes queued.
	mu.Lock()
	if begins != 2 {
		t.Errorf("%d transactions begun, want 2", begins)
	}
	mu.Unlock()
	var rows int
	if err := raw.QueryRowContext(ctx, raw.Q("SELECT count(*) FROM checkins WHERE account_id = ?"), account).Scan(&rows); err != nil {
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
	if err := sqlstoretest.CheckFigures(ctx, raw, account); err != nil {
		t.Error(err)
	}

	// The check-in events in the order of the queue; positions 1..n.
	r, err := raw.QueryContext(ctx, raw.Q(`SELECT c.metric_id FROM events e JOIN checkins c ON c.account_id = e.account_id AND c.id = e.item_id
		WHERE e.account_id = ? AND e.type = ? ORDER BY e.position`), account, string(upstream.EventCheckInCreated))
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for r.Next() {
		var id string
		if err := r.Scan(&id); err != nil {
			t.Fatal(err)
		}
		order = append(order, id)
	}
	r.Close()
	want := []string{krs[0].ID, krs[1].ID, krs[2].ID, krs[0].ID}
	if len(order) != len(want) {
		t.Fatalf("check-in events for %v, want %v", order, want)
	}
	for i := range want {
		if order[i] != want[i] {
			t.Errorf("check-in event %d is of %s, want %s", i, order[i], want[i])
		}
	}
	var n, last int
	if err := raw.QueryRowContext(ctx, raw.Q("SELECT count(*), max(position) FROM events WHERE account_id = ?"), account).Scan(&n, &last); err != nil {
		t.Fatal(err)
	}
	if n != last || n <= events0 {
		t.Errorf("%d events up to position %d (before the group: %d)", n, last, events0)
	}
}

// TestGroupCheckInsFoldOnce: on SQLite and on PostgreSQL, check-ins side
// by side in a group transaction leave the recomputation of their paths to the group, which runs it once
// before the next write that is not a check-in (which reads the figures the
// check-ins before it left) and once before the COMMIT. Each check-in keeps
// its own answer, row and checkIn.created event, in the order of the queue;
// each run of check-ins is followed by the goal.recomputed events of its
// paths; and every figure is what a computation from scratch gives.
func TestGroupCheckInsFoldOnce(t *testing.T) {
	ctx := context.Background()
	dsn := sqlstoretest.DSN(t)
	// path-facts statements (a recomputation each)
	st, pathReads := countingStore(t, ctx, dsn, func(stmt string) bool { return strings.Contains(stmt, "WITH RECURSIVE up(") })
	admin := newWriteFixture(t, st).admin
	c, err := upstream.MustCaller(admin)
	if err != nil {
		t.Fatal(err)
	}
	leaf, krs := chainWithKeyResults(t, st, admin, 2)
	head, err := st.Head(admin)
	if err != nil {
		t.Fatal(err)
	}

	release := st.HoldWrites(admin)
	var wg sync.WaitGroup
	checkIns := make([]upstream.CheckIn, 4)
	errs := make([]error, 4)
	var renamed upstream.Goal
	var renameErr error
	queue := func(write func()) {
		t.Helper()
		n := st.QueuedWrites(c.AccountID)
		wg.Add(1)
		go func() { defer wg.Done(); write() }()
		for st.QueuedWrites(c.AccountID) != n+1 {
			time.Sleep(time.Millisecond)
		}
	}
	checkIn := func(i int, kr string, actual float64) func() {
		return func() { checkIns[i], errs[i] = st.CheckIn(admin, kr, upstream.CheckInInput{Actual: &actual}) }
	}
	queue(checkIn(0, krs[0].ID, 50))
	queue(checkIn(1, krs[1].ID, 100))
	queue(checkIn(2, krs[0].ID, 70))
	name := "leaf, renamed"
	queue(func() { renamed, renameErr = st.UpdateGoal(admin, leaf.ID, upstream.GoalPatch{Name: &name}) })
	queue(checkIn(3, krs[0].ID, 0))
	pathReads.Store(0)
	trips := st.RoundTripCount()
	if err := release(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	// The held write's COMMIT; then the group's: BEGIN, the lock and the
	// three check-ins' facts; their writes with the recomputation's facts;
	// the update's facts; the last check-in's facts (alone, no run); the
	// recomputation's facts; COMMIT. (SQLite runs its statements one by
	// one.)
	if n := st.RoundTripCount() - trips; sqlstoretest.Postgres() && n > 7 {
		t.Errorf("%d round trips for the held write and the group, want at most 7", n)
	}
	for i, err := range errs {
		if err != nil {
			t.Fatalf("check-in %d: %v", i, err)
		}
	}
	if renameErr != nil {
		t.Fatal(renameErr)
	}
	for i, want := range []float64{0.5, 1, 0.7, 0} {
		if checkIns[i].Attainment != want {
			t.Errorf("check-in %d answered attainment %v, want %v", i, checkIns[i].Attainment, want)
		}
	}
	// The third read the key result as the first left it, not as loaded
	// ahead of both.
	if checkIns[2].PreviousActual != 50 {
		t.Errorf("check-in 2 answered previous actual %v, want 50", checkIns[2].PreviousActual)
	}
	// The update read the figures the three check-ins before it left.
	if renamed.Attainment != 0.85 {
		t.Errorf("the goal updated after three check-ins answered attainment %v, want 0.85", renamed.Attainment)
	}
	// Two recomputations for the check-ins (before the update and before
	// the COMMIT), at most one for the update: not one per check-in.
	if n := pathReads.Load(); n > 3 {
		t.Errorf("%d path recomputations for four check-ins and an update, want at most 3", n)
	}
	raw := sqlstoretest.OpenRaw(t, dsn)
	if err := sqlstoretest.CheckFigures(ctx, raw, c.AccountID); err != nil {
		t.Error(err)
	}
	if g, err := st.GetGoal(admin, leaf.ID); err != nil || g.Attainment != 0.5 {
		t.Errorf("leaf after the group: attainment %v (%v), want 0.5", g.Attainment, err)
	}

	// The events: each check-in's, in the order of the queue, and after each
	// run of check-ins the recomputed leaf with the attainment it left.
	evs, err := st.Events(admin, head, 100)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i, e := range evs {
		if e.Position != head+int64(i)+1 {
			t.Errorf("event %d at position %d, want %d", i, e.Position, head+int64(i)+1)
		}
		switch {
		case e.Type == upstream.EventCheckInCreated:
			got = append(got, "checkIn "+e.ItemID)
		case e.Type == upstream.EventGoalRecomputed && e.ItemID == leaf.ID:
			got = append(got, fmt.Sprint("leaf ", *e.Attainment))
		case e.Type == upstream.EventGoalUpdated:
			got = append(got, "updated "+e.ItemID)
		}
	}
	want := []string{"checkIn " + checkIns[0].ID, "checkIn " + checkIns[1].ID, "checkIn " + checkIns[2].ID, "leaf 0.85",
		"updated " + leaf.ID, "checkIn " + checkIns[3].ID, "leaf 0.5"}
	if !slices.Equal(got, want) {
		t.Errorf("events\n%q, want\n%q", got, want)
	}
}

// TestGroupRunFallsBack: when a statement of a check-in applied on facts
// loaded ahead fails on the server with a later round trip, the run rolls
// back to its savepoint and its writes run again one by one: the failing
// one fails alone, the check-ins beside it are kept, and every figure is
// what a computation from scratch gives.
func TestGroupRunFallsBack(t *testing.T) {
	if !sqlstoretest.Postgres() {
		t.Skip("group commit is PostgreSQL's; set OKRGATE_TEST_POSTGRES")
	}
	ctx := context.Background()
	dsn := sqlstoretest.DSN(t)
	st, fellBack := countingStore(t, ctx, dsn, func(stmt string) bool { return stmt == "ROLLBACK TO group_run" })
	admin := newWriteFixture(t, st).admin
	c, err := upstream.MustCaller(admin)
	if err != nil {
		t.Fatal(err)
	}
	ss, err := st.CreateSession(admin, upstream.SessionInput{Title: "Q2", Start: "2026-04-01", End: "2026-06-30"})
	if err != nil {
		t.Fatal(err)
	}
	g, err := st.CreateGoal(admin, upstream.GoalInput{Name: "g", SessionID: ss.ID})
	if err != nil {
		t.Fatal(err)
	}
	target := 100.0
	kr, err := st.CreateMetric(admin, upstream.MetricInput{Name: "kr", GoalID: g.ID, Target: &target})
	if err != nil {
		t.Fatal(err)
	}
	release := st.HoldWrites(admin)
	errs := make([]error, 4)
	var wg sync.WaitGroup
	queue := func(i int, write func() error) {
		t.Helper()
		n := st.QueuedWrites(c.AccountID)
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = write() }()
		for st.QueuedWrites(c.AccountID) != n+1 {
			time.Sleep(time.Millisecond)
		}
	}
	checkIn := func(actual float64) func() error {
		return func() error {
			_, err := st.CheckIn(admin, kr.ID, upstream.CheckInInput{Actual: &actual})
			return err
		}
	}
	queue(0, checkIn(10))
	queue(1, func() error { return st.LateFailingCheckIn(admin) })
	queue(2, checkIn(20))
	queue(3, checkIn(30))
	if err := release(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	for _, i := range []int{0, 2, 3} {
		if errs[i] != nil {
			t.Errorf("check-in %d: %v", i, errs[i])
		}
	}
	if errs[1] == nil {
		t.Error("the write whose statement failed succeeded")
	}
	if n := fellBack.Load(); n != 1 {
		t.Errorf("the run fell back %d times, want 1", n)
	}
	raw := sqlstoretest.OpenRaw(t, dsn)
	var rows int
	if err := raw.QueryRowContext(ctx, raw.Q("SELECT count(*) FROM checkins WHERE account_id = ? AND metric_id = ?"), c.AccountID, kr.ID).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if rows != 3 {
		t.Errorf("%d check-ins stored, want 3", rows)
	}
	if m, err := st.GetMetric(admin, kr.ID); err != nil || m.Actual != 30 {
		t.Errorf("key result: actual %v (%v), want 30", m.Actual, err)
	}
	if err := sqlstoretest.CheckFigures(ctx, raw, c.AccountID); err != nil {
		t.Error(err)
	}
}

// countingStore opens the store at dsn counting the statements it runs that
// match, closed when t ends.
func countingStore(t *testing.T, ctx context.Context, dsn string, match func(stmt string) bool) (*sqlstore.Store, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	st, err := sqlstore.Open(ctx, dsn, sqlstore.WithStatementObserver(func(stmt string, _ []any) {
		if match(stmt) {
			n.Add(1)
		}
	}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, &n
}

// chainWithKeyResults creates, as admin, a session with a root objective,
// a leaf under it and n key results on the leaf (each with target 100):
// the path the group-commit tests check in on. It returns the leaf and
// the key results.
func chainWithKeyResults(t *testing.T, st *sqlstore.Store, admin context.Context, n int) (leaf upstream.Goal, krs []upstream.Metric) {
	t.Helper()
	ss, err := st.CreateSession(admin, upstream.SessionInput{Title: "Q2", Start: "2026-04-01", End: "2026-06-30"})
	if err != nil {
		t.Fatal(err)
	}
	root, err := st.CreateGoal(admin, upstream.GoalInput{Name: "root", SessionID: ss.ID})
	if err != nil {
		t.Fatal(err)
	}
	if leaf, err = st.CreateGoal(admin, upstream.GoalInput{Name: "leaf", SessionID: ss.ID, ParentID: root.ID}); err != nil {
		t.Fatal(err)
	}
	target := 100.0
	for range n {
		m, err := st.CreateMetric(admin, upstream.MetricInput{Name: "kr", GoalID: leaf.ID, Target: &target})
		if err != nil {
			t.Fatal(err)
		}
		krs = append(krs, m)
	}
	return leaf, krs
}
