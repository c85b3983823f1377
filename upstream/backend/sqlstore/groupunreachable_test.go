package sqlstore_test

import (
	"context"
	"errors"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore/sqlstoretest"
)

// TestGroupQueueFailsWhenUnreachable: when the account's transaction in
// flight fails because the database stopped acknowledging (its
// connection timed out: a partition), the check-ins queued behind it are
// answered with it — 503 unavailable, none applied — instead of each
// waiting for a connection of its own as long again; the next check-in,
// once the database answers, is applied.
func TestGroupQueueFailsWhenUnreachable(t *testing.T) {
	if !sqlstoretest.Postgres() {
		t.Skip("group commit is PostgreSQL's; set OKRGATE_TEST_POSTGRES")
	}
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, sqlstoretest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	admin := newWriteFixture(t, st).admin
	c, err := upstream.MustCaller(admin)
	if err != nil {
		t.Fatal(err)
	}
	ss, err := st.CreateSession(admin, upstream.SessionInput{Title: "Q2", Start: "2026-04-01", End: "2026-06-30"})
	if err != nil {
		t.Fatal(err)
	}
	g, err := st.CreateGoal(admin, upstream.GoalInput{Name: "partition", SessionID: ss.ID})
	if err != nil {
		t.Fatal(err)
	}
	target := 100.0
	m, err := st.CreateMetric(admin, upstream.MetricInput{Name: "kr", GoalID: g.ID, Target: &target})
	if err != nil {
		t.Fatal(err)
	}
	checkIn := func(v float64) error {
		_, err := st.CheckIn(admin, m.ID, upstream.CheckInInput{Actual: &v})
		return err
	}

	fail := st.HoldFailingWrite(admin) // the account's transaction in flight
	results := make(chan error, 3)
	for i := range 3 {
		n := st.QueuedWrites(c.AccountID)
		go func() { results <- checkIn(float64(10 + i)) }()
		for st.QueuedWrites(c.AccountID) != n+1 {
			time.Sleep(time.Millisecond)
		}
	}
	timedOut := &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ETIMEDOUT)}
	if err := fail(timedOut); !errors.Is(err, syscall.ETIMEDOUT) {
		t.Fatalf("the held write: %v, want its connection's timeout", err)
	}
	for range 3 {
		err := <-results
		if e := upstream.Classify(err); e == nil || e.Code != upstream.CodeDatabaseUnavailable || !errors.Is(err, syscall.ETIMEDOUT) {
			t.Errorf("a check-in queued behind it: %v, want unavailable with the timeout", err)
		}
	}
	actual := func() float64 {
		t.Helper()
		got, err := st.GetMetric(admin, m.ID)
		if err != nil {
			t.Fatal(err)
		}
		return got.Actual
	}
	if a := actual(); a != m.Actual {
		t.Errorf("the key result's actual is %v after check-ins answered unavailable, want %v: one was applied", a, m.Actual)
	}
	if err := checkIn(20); err != nil {
		t.Fatalf("a check-in once the database answers: %v", err)
	}
	if a := actual(); a != 20 {
		t.Errorf("actual %v after the next check-in, want 20", a)
	}
}
