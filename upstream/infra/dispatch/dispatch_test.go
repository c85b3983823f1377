package dispatch_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore/sqlstoretest"
	"github.com/okrgate/okrgate/upstream/infra/dispatch"
)

// fast is a retry schedule short enough for tests.
var fast = upstream.WebhookRetryPolicy{First: 20 * time.Millisecond, MaxGap: 50 * time.Millisecond, For: time.Minute}

// env is a store on a real database with an account, and a receiver on
// 127.0.0.1 that records what it gets.
type env struct {
	t     *testing.T
	store *sqlstore.Store
	ctx   context.Context

	mu       sync.Mutex
	got      []received
	answer   func(n int) int // status of the n-th request (1-based)
	receiver *httptest.Server
}

type received struct {
	header http.Header
	body   []byte
}

func newEnv(t *testing.T) *env {
	t.Helper()
	allow := upstream.WebhookTargetPolicy{AllowPrivate: true}
	st := sqlstoretest.Open(t, sqlstore.WithWebhookPolicy(allow))
	b, err := st.Bootstrap(context.Background(), sqlstore.BootstrapInput{AccountName: "Acme", Email: "admin@acme.test"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := st.Authenticate(context.Background(), b.Token)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, store: st, ctx: upstream.NewContext(context.Background(), c), answer: func(int) int { return http.StatusNoContent }}
	e.receiver = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		e.mu.Lock()
		e.got = append(e.got, received{r.Header.Clone(), body})
		status := e.answer(len(e.got))
		e.mu.Unlock()
		w.WriteHeader(status)
	}))
	t.Cleanup(e.receiver.Close)
	return e
}

// run starts a dispatcher until the test ends.
func (e *env) run(o dispatch.Options) {
	o.Policy = upstream.WebhookTargetPolicy{AllowPrivate: true}
	if o.Retry == (upstream.WebhookRetryPolicy{}) {
		o.Retry = fast
	}
	if o.Poll == 0 {
		o.Poll = 20 * time.Millisecond
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := dispatch.New(e.store, o).Run(ctx); err != nil {
			e.t.Error(err)
		}
	}()
	e.t.Cleanup(func() { cancel(); <-done })
}

// webhook creates a webhook to the receiver.
func (e *env) webhook(events ...upstream.EventType) upstream.NewWebhook {
	e.t.Helper()
	w, err := e.store.CreateWebhook(e.ctx, upstream.WebhookInput{URL: e.receiver.URL + "/hook", Events: events})
	if err != nil {
		e.t.Fatal(err)
	}
	return w
}

// waitFor polls cond until it holds or the deadline passes.
func (e *env) waitFor(what string, cond func() bool) {
	e.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			e.t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (e *env) payloads() []upstream.WebhookPayload {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []upstream.WebhookPayload
	for _, r := range e.got {
		var p upstream.WebhookPayload
		if err := json.Unmarshal(r.body, &p); err != nil {
			e.t.Errorf("delivery body %q: %v", r.body, err)
		}
		out = append(out, p)
	}
	return out
}

// tree makes a session, a goal with a key result, and returns the key result.
func (e *env) tree() (upstream.Session, upstream.Goal, upstream.Metric) {
	e.t.Helper()
	s, err := e.store.CreateSession(e.ctx, upstream.SessionInput{Title: "Q1", Start: "2026-01-01", End: "2026-03-31"})
	if err != nil {
		e.t.Fatal(err)
	}
	g, err := e.store.CreateGoal(e.ctx, upstream.GoalInput{Name: "g", SessionID: s.ID})
	if err != nil {
		e.t.Fatal(err)
	}
	target := 10.0
	m, err := e.store.CreateMetric(e.ctx, upstream.MetricInput{Name: "kr", GoalID: g.ID, Target: &target})
	if err != nil {
		e.t.Fatal(err)
	}
	return s, g, m
}

func (e *env) checkIn(metricID string, v float64) upstream.CheckIn {
	e.t.Helper()
	ci, err := e.store.CheckIn(e.ctx, metricID, upstream.CheckInInput{Actual: &v})
	if err != nil {
		e.t.Fatal(err)
	}
	return ci
}

// TestDeliveriesAreSignedAndVerify checks that a receiver gets each
// selected event once, as JSON whose signature verifies with the
// webhook's secret, with the delivery's id in header and body.
func TestDeliveriesAreSignedAndVerify(t *testing.T) {
	e := newEnv(t)
	w := e.webhook(upstream.EventCheckInCreated, upstream.EventGoalRecomputed)
	e.run(dispatch.Options{})
	_, g, m := e.tree()
	ci := e.checkIn(m.ID, 5)
	e.waitFor("the check-in's delivery", func() bool {
		for _, p := range e.payloads() {
			if p.Type == upstream.EventCheckInCreated && p.Event.ItemID == ci.ID {
				return true
			}
		}
		return false
	})
	e.mu.Lock()
	got := append([]received(nil), e.got...)
	e.mu.Unlock()
	sawGoal := false
	for _, r := range got {
		if err := upstream.VerifyWebhook([]byte(w.Secret), r.header.Get(upstream.WebhookSignatureHeader), r.body, time.Now(), 5*time.Minute); err != nil {
			t.Errorf("delivery does not verify: %v (%s)", err, r.body)
		}
		if err := upstream.VerifyWebhook([]byte("whsec_not_the_secret"), r.header.Get(upstream.WebhookSignatureHeader), r.body, time.Now(), 5*time.Minute); err == nil {
			t.Error("delivery verifies with another secret")
		}
		var p upstream.WebhookPayload
		_ = json.Unmarshal(r.body, &p)
		if r.header.Get("Okrgate-Delivery") != p.ID || r.header.Get("Okrgate-Event") != string(p.Type) || p.WebhookID != w.ID {
			t.Errorf("headers %v do not match payload %+v", r.header, p)
		}
		if r.header.Get("Content-Type") != "application/json" {
			t.Errorf("content type %q", r.header.Get("Content-Type"))
		}
		if p.Type != upstream.EventCheckInCreated && p.Type != upstream.EventGoalRecomputed {
			t.Errorf("delivered %s, which the webhook does not select", p.Type)
		}
		if p.Type == upstream.EventGoalRecomputed && p.Event.ItemID == g.ID && p.Event.Attainment != nil && *p.Event.Attainment == 0.5 {
			sawGoal = true
		}
	}
	if !sawGoal {
		e.waitFor("the goal's recomputed attainment", func() bool {
			for _, p := range e.payloads() {
				if p.Type == upstream.EventGoalRecomputed && p.Event.ItemID == g.ID && p.Event.Attainment != nil && *p.Event.Attainment == 0.5 {
					return true
				}
			}
			return false
		})
	}
}

// TestRetriedUntilSuccess checks that a receiver answering 500 three
// times and then 200 gets the delivery four times, and that the delivery
// lists the four attempts with their statuses and next-attempt times.
func TestRetriedUntilSuccess(t *testing.T) {
	e := newEnv(t)
	e.answer = func(n int) int {
		if n <= 3 {
			return http.StatusInternalServerError
		}
		return http.StatusOK
	}
	w := e.webhook(upstream.EventSessionCreated)
	e.run(dispatch.Options{})
	if _, err := e.store.CreateSession(e.ctx, upstream.SessionInput{Title: "Q1", Start: "2026-01-01", End: "2026-03-31"}); err != nil {
		t.Fatal(err)
	}
	var d upstream.WebhookDelivery
	e.waitFor("the delivery to succeed", func() bool {
		ds, err := e.store.ListWebhookDeliveries(e.ctx, w.ID, 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(ds) == 1 && ds[0].Status == upstream.DeliverySucceeded {
			d = ds[0]
			return true
		}
		return false
	})
	if len(d.Attempts) != 4 {
		t.Fatalf("attempts %+v, want 4", d.Attempts)
	}
	for i, a := range d.Attempts {
		wantStatus, wantNext := 500, true
		if i == 3 {
			wantStatus, wantNext = 200, false
		}
		if a.Attempt != i+1 || a.StatusCode != wantStatus || (a.NextAttemptAt != "") != wantNext || (a.Error != "") != wantNext {
			t.Errorf("attempt %d: %+v", i+1, a)
		}
	}
	ids := map[string]bool{}
	for _, p := range e.payloads() {
		ids[p.ID] = true
	}
	if len(ids) != 1 || len(e.payloads()) != 4 {
		t.Errorf("receiver got %d requests of %d deliveries, want 4 of 1", len(e.payloads()), len(ids))
	}
}

// TestAbandonedAfterRetryTime checks that a delivery whose receiver keeps
// failing is abandoned once the retry time runs out, and marked failed.
func TestAbandonedAfterRetryTime(t *testing.T) {
	e := newEnv(t)
	e.answer = func(int) int { return http.StatusServiceUnavailable }
	w := e.webhook(upstream.EventSessionCreated)
	e.run(dispatch.Options{Retry: upstream.WebhookRetryPolicy{First: 10 * time.Millisecond, MaxGap: 20 * time.Millisecond, For: 100 * time.Millisecond}})
	if _, err := e.store.CreateSession(e.ctx, upstream.SessionInput{Title: "Q1", Start: "2026-01-01", End: "2026-03-31"}); err != nil {
		t.Fatal(err)
	}
	e.waitFor("the delivery to be abandoned", func() bool {
		ds, _ := e.store.ListWebhookDeliveries(e.ctx, w.ID, 0, 10)
		return len(ds) == 1 && ds[0].Status == upstream.DeliveryFailed && ds[0].CompletedAt != "" && ds[0].NextAttemptAt == ""
	})
}

// TestRefusedTargetIsRecorded checks that a delivery to a target the
// dispatcher's policy refuses is never sent, and the refusal is recorded:
// a literal loopback address (the webhook was saved while private
// addresses were allowed), and a name that resolves to one (checked when
// connecting, after resolution: DNS may change after the webhook was saved).
func TestRefusedTargetIsRecorded(t *testing.T) {
	e := newEnv(t)
	literal := e.webhook(upstream.EventSessionCreated)
	_, port, _ := strings.Cut(strings.TrimPrefix(e.receiver.URL, "http://"), ":")
	named, err := e.store.CreateWebhook(e.ctx, upstream.WebhookInput{URL: "http://localhost:" + port + "/hook", Events: []upstream.EventType{upstream.EventSessionCreated}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = dispatch.New(e.store, dispatch.Options{Retry: fast, Poll: 20 * time.Millisecond}).Run(ctx) // private addresses refused
	}()
	defer func() { cancel(); <-done }()
	if _, err := e.store.CreateSession(e.ctx, upstream.SessionInput{Title: "Q1", Start: "2026-01-01", End: "2026-03-31"}); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{literal.ID, named.ID} {
		e.waitFor("a refused attempt", func() bool {
			ds, _ := e.store.ListWebhookDeliveries(e.ctx, id, 0, 10)
			return len(ds) == 1 && len(ds[0].Attempts) > 0 && ds[0].Attempts[0].StatusCode == 0 &&
				strings.Contains(ds[0].Attempts[0].Error, "target refused")
		})
	}
	if n := len(e.payloads()); n != 0 {
		t.Errorf("the refused targets received %d requests", n)
	}
	// localhost resolved to a loopback address; the record does not say which.
	ds, _ := e.store.ListWebhookDeliveries(e.ctx, named.ID, 0, 10)
	if msg := ds[0].Attempts[0].Error; hasAddress(msg) {
		t.Errorf("the refusal of a resolved address names it: %q", msg)
	}
}

// hasAddress reports whether s names a loopback address in any spelling.
func hasAddress(s string) bool {
	return strings.Contains(s, "127.0.0.1") || strings.Contains(s, "::1") || strings.Contains(s, "[::")
}

// TestDeliveryErrorsNameNoAddress checks that the error an attempt records,
// which admins read in the deliveries listing, names the kind of failure
// but not the address the host name resolved to.
func TestDeliveryErrorsNameNoAddress(t *testing.T) {
	e := newEnv(t)
	closed := httptest.NewServer(http.NotFoundHandler())
	_, port, _ := strings.Cut(strings.TrimPrefix(closed.URL, "http://"), ":")
	closed.Close() // nothing listens on the port any more
	w, err := e.store.CreateWebhook(e.ctx, upstream.WebhookInput{URL: "http://localhost:" + port + "/hook",
		Events: []upstream.EventType{upstream.EventSessionCreated}})
	if err != nil {
		t.Fatal(err)
	}
	e.run(dispatch.Options{})
	if _, err := e.store.CreateSession(e.ctx, upstream.SessionInput{Title: "Q1", Start: "2026-01-01", End: "2026-03-31"}); err != nil {
		t.Fatal(err)
	}
	var msg string
	e.waitFor("a failed attempt", func() bool {
		ds, _ := e.store.ListWebhookDeliveries(e.ctx, w.ID, 0, 10)
		if len(ds) == 1 && len(ds[0].Attempts) > 0 {
			msg = ds[0].Attempts[0].Error
			return true
		}
		return false
	})
	if msg != "connection refused" {
		t.Errorf("attempt error %q, want %q", msg, "connection refused")
	}
	if hasAddress(msg) {
		t.Errorf("the attempt error names the dialled address: %q", msg)
	}
}

// TestRolledBackWritesAreNeverDelivered checks that only committed events
// are delivered: writes that fail (validation, and a conditional write
// whose transaction appended its events and then failed its If-Match
// check) leave no delivery; the next committed write's events follow the
// previous ones without a gap.
func TestRolledBackWritesAreNeverDelivered(t *testing.T) {
	e := newEnv(t)
	e.webhook(upstream.AllEvents)
	e.run(dispatch.Options{})
	_, g, m := e.tree()
	head, err := e.store.Head(e.ctx)
	if err != nil {
		t.Fatal(err)
	}

	// Fails validation: no event.
	if _, err := e.store.CheckIn(e.ctx, m.ID, upstream.CheckInInput{}); err == nil {
		t.Fatal("a check-in without actual succeeded")
	}
	// Runs, appends goal.updated, then fails its precondition and rolls back.
	rolledBack := "renamed in a rolled-back transaction"
	stale := upstream.WriteOptions{Precondition: &upstream.Precondition{Kind: upstream.KindGoal, ID: g.ID, IfMatch: []string{`"not-the-version"`}}}
	if _, err := e.store.Writing(stale).UpdateGoal(e.ctx, g.ID, upstream.GoalPatch{Name: &rolledBack}); upstream.ErrorCode(err) != upstream.CodePreconditionFailed {
		t.Fatalf("conditional update: %v, want precondition_failed", err)
	}
	if h, _ := e.store.Head(e.ctx); h != head {
		t.Fatalf("failed writes moved the head %d -> %d", head, h)
	}
	ci := e.checkIn(m.ID, 7) // committed: its events come right after head

	e.waitFor("the committed check-in", func() bool {
		for _, p := range e.payloads() {
			if p.Event.ItemID == ci.ID {
				return true
			}
		}
		return false
	})
	log, err := e.store.Events(e.ctx, 0, 500)
	if err != nil {
		t.Fatal(err)
	}
	committed := map[int64]upstream.Event{}
	for _, ev := range log {
		committed[ev.Position] = ev
	}
	for _, p := range e.payloads() {
		c, ok := committed[p.Event.Position]
		if !ok || c.Type != p.Type || c.ItemID != p.Event.ItemID {
			t.Errorf("delivered %s of %s at %d, which is not in the committed log", p.Type, p.Event.ItemID, p.Event.Position)
		}
		if p.Type == upstream.EventGoalUpdated && p.Event.ItemID == g.ID {
			t.Errorf("the rolled-back update of %s was delivered", g.ID)
		}
	}
	if got, _ := e.store.GetGoal(e.ctx, g.ID); got.Name == rolledBack {
		t.Error("the rolled-back rename was kept")
	}
}
