package sqlstore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/okrgate/okrgate/upstream/backend/sqlstore/sqlstoretest"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
)

// TestStoreRefusesHugeNumbers: the store itself — behind REST and GraphQL
// alike — refuses numbers whose figures JSON could not carry.
func TestStoreRefusesHugeNumbers(t *testing.T) {
	e := newEnv(t)
	s := e.session(upstream.SessionInput{})
	g := e.goal(upstream.GoalInput{Name: "G", SessionID: s.ID})
	m := e.metric(upstream.MetricInput{Name: "M", GoalID: g.ID, Target: ref(100.0)})
	for name, tc := range map[string]struct {
		err   error
		field string
	}{
		"check-in 1e297": {err: second(e.store.CheckIn(e.ctx, m.ID, upstream.CheckInInput{Actual: ref(1e297)})), field: "actual"},
		"check-in over an almost empty range": {err: func() error {
			tiny := e.metric(upstream.MetricInput{Name: "Tiny", GoalID: g.ID, InitialValue: 0, Target: ref(1e-290)})
			_, err := e.store.CheckIn(e.ctx, tiny.ID, upstream.CheckInInput{Actual: ref(1e15)})
			return err
		}(), field: "actual"},
		"create target 1e300":      {err: second(e.store.CreateMetric(e.ctx, upstream.MetricInput{Name: "X", GoalID: g.ID, Target: ref(1e300)})), field: "target"},
		"update initialValue 1e20": {err: second(e.store.UpdateMetric(e.ctx, m.ID, upstream.MetricPatch{InitialValue: ref(1e20)})), field: "initialValue"},
		"KPI value -1e300":         {err: second(e.store.CreateKPI(e.ctx, upstream.KPIInput{Name: "K", Value: -1e300})), field: "value"},
	} {
		var ue *upstream.Error
		if !asError(tc.err, &ue) || ue.Code != upstream.CodeInvalid || len(ue.Fields) != 1 || ue.Fields[0].Field != tc.field {
			t.Errorf("%s: %v, want invalid_input naming %s", name, tc.err, tc.field)
		}
	}
	if got, err := e.store.GetMetric(e.ctx, m.ID); err != nil || got.Actual != 0 || got.InitialValue != 0 {
		t.Errorf("a refused write changed the key result: %+v %v", got, err)
	}
}

// TestConditionalWrite: the store checks If-Match inside the write's
// transaction and reports the version it left.
func TestConditionalWrite(t *testing.T) {
	e := newEnv(t)
	s := e.session(upstream.SessionInput{})
	g := e.goal(upstream.GoalInput{Name: "G", SessionID: s.ID})
	v1, err := e.store.Version(e.ctx, upstream.KindGoal, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	stale := &upstream.Precondition{Kind: upstream.KindGoal, ID: g.ID, IfMatch: []string{`"00"`}}
	if _, err := e.store.Writing(upstream.WriteOptions{Precondition: stale}).UpdateGoal(e.ctx, g.ID, upstream.GoalPatch{Name: ref("H")}); upstream.ErrorCode(err) != upstream.CodePreconditionFailed {
		t.Fatalf("stale If-Match: %v", err)
	}
	if v, _ := e.store.Version(e.ctx, upstream.KindGoal, g.ID); v != v1 {
		t.Error("a failed precondition wrote")
	}
	cur := &upstream.Precondition{Kind: upstream.KindGoal, ID: g.ID, IfMatch: []string{v1}}
	if _, err := e.store.Writing(upstream.WriteOptions{Precondition: cur}).UpdateGoal(e.ctx, g.ID, upstream.GoalPatch{Name: ref("H")}); err != nil {
		t.Fatal(err)
	}
	v2, _ := e.store.Version(e.ctx, upstream.KindGoal, g.ID)
	if cur.ETag != v2 || v2 == v1 || !cur.Done {
		t.Errorf("after the write: ETag %q, version %q (was %q), done %v", cur.ETag, v2, v1, cur.Done)
	}
	// A key result's change is part of its goal's version.
	e.metric(upstream.MetricInput{Name: "M", GoalID: g.ID, Target: ref(10.0)})
	if v3, _ := e.store.Version(e.ctx, upstream.KindGoal, g.ID); v3 == v2 {
		t.Error("adding a key result did not change the goal's version")
	}
	if _, err := e.store.Version(e.ctx, upstream.KindGoal, "000000000000000000000000"); upstream.ErrorCode(err) != upstream.CodeNotFound {
		t.Errorf("version of an unknown goal: %v", err)
	}
}

// TestIdempotencyKeyLifecycle walks a key through reserve, apply, record,
// replay, reuse, lease take-over and expiry, on a pinned clock.
func TestIdempotencyKeyLifecycle(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	st, err := sqlstore.Open(context.Background(), sqlstoretest.DSN(t), sqlstore.WithClock(func() time.Time { return now }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	b, err := st.Bootstrap(context.Background(), sqlstore.BootstrapInput{AccountName: "Acme", Email: "a@acme.test"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := st.Authenticate(context.Background(), b.Token)
	if err != nil {
		t.Fatal(err)
	}
	ctx := upstream.NewContext(context.Background(), c)
	ss, err := st.CreateSession(ctx, upstream.SessionInput{Title: "Q", Start: "2026-01-01", End: "2026-12-31"})
	if err != nil {
		t.Fatal(err)
	}
	k := upstream.IdempotencyKey{AccountID: c.AccountID, UserID: c.UserID, Method: "POST", Path: "/api/v1/goals", Key: "k", Hash: "h1"}
	reserve := func(k upstream.IdempotencyKey) (*upstream.IdempotentResponse, upstream.Code) {
		t.Helper()
		r, err := st.ReserveIdempotencyKey(ctx, k)
		return r, upstream.ErrorCode(err)
	}
	if r, code := reserve(k); r != nil || code != "" {
		t.Fatalf("first reserve: %v %s", r, code)
	}
	if _, code := reserve(k); code != upstream.CodeIdempotencyKeyInUse {
		t.Errorf("reserve while running: %s", code)
	}
	// A request that died before writing: after the lease the key is free.
	now = now.Add(upstream.IdempotencyLease + time.Second)
	if r, code := reserve(k); r != nil || code != "" {
		t.Fatalf("reserve after the lease: %v %s", r, code)
	}
	// The write marks the key applied in its own transaction: released or
	// not, a retry never writes again.
	if _, err := st.Writing(upstream.WriteOptions{Idempotency: &k}).CreateGoal(ctx, upstream.GoalInput{Name: "G", SessionID: ss.ID}); err != nil {
		t.Fatal(err)
	}
	if err := st.ReleaseIdempotencyKey(ctx, k); err != nil {
		t.Fatal(err)
	}
	now = now.Add(upstream.IdempotencyLease + time.Second)
	if _, code := reserve(k); code != upstream.CodeIdempotencyKeyInUse {
		t.Errorf("reserve of an applied key: %s", code)
	}
	want := upstream.IdempotentResponse{Status: 201, ContentType: "application/json", Location: "/x", Body: []byte(`{"id":"1"}`)}
	if err := st.CompleteIdempotencyKey(ctx, k, want); err != nil {
		t.Fatal(err)
	}
	if r, code := reserve(k); code != "" || r == nil || r.Status != 201 || string(r.Body) != string(want.Body) || r.Location != "/x" {
		t.Errorf("replay: %+v %s", r, code)
	}
	other := k
	other.Hash = "h2"
	if _, code := reserve(other); code != upstream.CodeIdempotencyKeyReused {
		t.Errorf("reuse with another request: %s", code)
	}
	// Other users and paths have keys of their own.
	for _, mod := range []func(*upstream.IdempotencyKey){
		func(k *upstream.IdempotencyKey) { k.UserID = "u2" },
		func(k *upstream.IdempotencyKey) { k.Path = "/api/v1/sessions" },
	} {
		k2 := other
		mod(&k2)
		if r, code := reserve(k2); r != nil || code != "" {
			t.Errorf("a key of another scope: %v %s", r, code)
		}
	}
	// After the TTL the key is forgotten.
	now = now.Add(upstream.IdempotencyTTL + time.Second)
	if r, code := reserve(other); r != nil || code != "" {
		t.Errorf("reserve after expiry: %v %s", r, code)
	}
}

func second[T any](_ T, err error) error { return err }

func asError(err error, target **upstream.Error) bool { return errors.As(err, target) }

func ref[T any](v T) *T { return &v }
