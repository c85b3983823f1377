package limit

import (
	"context"
	"errors"
	"testing"
	"time"
)

// result is what one Admit returned.
type result struct {
	key     string
	release func()
	err     error
}

// admitAsync starts an Admit and waits until it is queued or decided.
func admitAsync(t *testing.T, a *Admission, l *lane, key, class string, out chan<- result) {
	t.Helper()
	_, _, before := l.state()
	decided := make(chan struct{}, 1)
	go func() {
		rel, err := a.Admit(context.Background(), l == a.writes, key, class)
		decided <- struct{}{}
		out <- result{key, rel, err}
	}()
	waitFor(t, "queued or decided", func() bool {
		_, _, q := l.state()
		return q > before || len(decided) > 0
	})
}

// teach runs n requests of class one at a time, each taking d, so that the
// lane's estimate of the class is d.
func teach(t *testing.T, a *Admission, clock *fakeClock, class string, d time.Duration, n int) {
	t.Helper()
	for range n {
		rel, err := a.Admit(context.Background(), false, "teacher", class)
		if err != nil {
			t.Fatal(err)
		}
		clock.Advance(d)
		rel()
	}
}

// TestBurstIsQueuedNotRefused: with 2 requests executing at a fixed limit
// of 2, a burst of 30 more waits and is served as the first ones finish;
// none is refused.
func TestBurstIsQueuedNotRefused(t *testing.T) {
	clock := newFakeClock()
	a := NewAdmission(Config{MaxReads: 2, MaxWrites: 1}, clock, nil)
	teach(t, a, clock, "tree", 20*time.Millisecond, 3)
	var running []func()
	for range 2 {
		rel, err := a.Admit(context.Background(), false, "k", "tree")
		if err != nil {
			t.Fatal(err)
		}
		running = append(running, rel)
	}
	out := make(chan result, 30)
	for range 30 {
		admitAsync(t, a, a.reads, "k", "tree", out)
	}
	if _, inflight, queued := a.reads.state(); inflight != 2 || queued != 30 {
		t.Fatalf("inflight %d, queued %d; want 2 and 30", inflight, queued)
	}
	served := 0
	for len(running) > 0 {
		clock.Advance(20 * time.Millisecond)
		running[0]()
		running = running[1:]
		if served < 30 {
			r := <-out
			if r.err != nil {
				t.Fatalf("request %d refused: %v", served, r.err)
			}
			running = append(running, r.release)
			served++
		}
	}
	if served != 30 {
		t.Errorf("served %d of 30", served)
	}
}

// TestWaitingPastTheAllowanceIsRefused: a request still queued once it
// has waited Burst is refused with reason timeout and a Retry-After.
func TestWaitingPastTheAllowanceIsRefused(t *testing.T) {
	clock := newFakeClock()
	a := NewAdmission(Config{MaxReads: 1, MaxWrites: 1, Burst: 2 * time.Second}, clock, nil)
	rel, err := a.Admit(context.Background(), true, "k", "w")
	if err != nil {
		t.Fatal(err)
	}
	defer rel()
	out := make(chan result, 1)
	admitAsync(t, a, a.writes, "k", "w", out)
	clock.Advance(time.Second)
	if len(out) != 0 {
		t.Fatal("refused before its allowance")
	}
	clock.Advance(time.Second)
	r := <-out
	var ref *Refusal
	if !errors.As(r.err, &ref) || ref.Reason != ReasonTimeout || ref.Lane != "write" || ref.RetryAfter() < time.Second {
		t.Fatalf("got %v, want a write refusal for timeout", r.err)
	}
	if _, _, q := a.writes.state(); q != 0 {
		t.Errorf("%d still queued", q)
	}
}

// standing makes the read lane's queue a standing one: a request waits 1 s
// (over the 250 ms target) and the interval ends.
func standing(t *testing.T, a *Admission, clock *fakeClock, hold func()) func() {
	t.Helper()
	out := make(chan result, 1)
	admitAsync(t, a, a.reads, "slow", "hold", out)
	clock.Advance(time.Second)
	hold()
	r := <-out
	if r.err != nil {
		t.Fatal(r.err)
	}
	clock.Advance(DefaultInterval)
	if allowed(a, clock) != DefaultTarget {
		t.Fatal("the queue is not standing")
	}
	return r.release
}

// TestStandingQueueRefusesByEstimateFairly: once the queue is standing, a
// request whose estimated wait is over the target is refused at once with
// a Retry-After from that estimate; the estimate is per key, so another
// account's request is still queued while the flooding key's are refused.
func TestStandingQueueRefusesByEstimateFairly(t *testing.T) {
	clock := newFakeClock()
	a := NewAdmission(Config{MaxReads: 1, MaxWrites: 1}, clock, nil)
	teach(t, a, clock, "goal", 100*time.Millisecond, 3)
	hold, err := a.Admit(context.Background(), false, "k", "hold")
	if err != nil {
		t.Fatal(err)
	}
	hold = standing(t, a, clock, hold)
	out := make(chan result, 10)
	for range 3 { // waits of 0, 100 and 200 ms: within the target
		admitAsync(t, a, a.reads, "flood", "goal", out)
	}
	_, err = a.Admit(context.Background(), false, "flood", "goal") // 300 ms
	var ref *Refusal
	if !errors.As(err, &ref) || ref.Reason != ReasonWait || ref.Retry != 300*time.Millisecond || ref.RetryAfter() != time.Second {
		t.Fatalf("third flood request: %v (%#v), want refused for wait, retry in 1 s", err, *ref)
	}
	admitAsync(t, a, a.reads, "other", "goal", out) // 100 ms: one of flood's
	if _, _, q := a.reads.state(); q != 4 {
		t.Fatalf("queued %d, want flood's 3 and other's 1", q)
	}
	// Served fairly: other's request goes before flood's second.
	var order []string
	for range 4 {
		clock.Advance(50 * time.Millisecond)
		hold()
		r := <-out
		if r.err != nil {
			t.Fatal(r.err)
		}
		order = append(order, r.key)
		hold = r.release
	}
	hold()
	if order[1] != "other" {
		t.Errorf("served %v; want other's request second", order)
	}
}

// TestCancelledWhileQueued: a request whose client goes away leaves the
// queue and takes no slot.
func TestCancelledWhileQueued(t *testing.T) {
	clock := newFakeClock()
	a := NewAdmission(Config{MaxReads: 1, MaxWrites: 1}, clock, nil)
	hold, _ := a.Admit(context.Background(), false, "k", "c")
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { _, err := a.Admit(ctx, false, "k", "c"); errc <- err }()
	waitFor(t, "queued", func() bool { _, _, q := a.reads.state(); return q == 1 })
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v", err)
	}
	hold()
	if _, inflight, q := a.reads.state(); inflight != 0 || q != 0 {
		t.Errorf("inflight %d, queued %d after cancel", inflight, q)
	}
}

// TestUnbounded: a limit of 0 admits everything at once.
func TestUnbounded(t *testing.T) {
	a := NewAdmission(Config{MaxReads: 0, MaxWrites: 0}, newFakeClock(), nil)
	for range 100 {
		if _, err := a.Admit(context.Background(), false, "k", "c"); err != nil {
			t.Fatal(err)
		}
	}
	if r, w := a.Limits(); r != 0 || w != 0 {
		t.Errorf("limits %d %d", r, w)
	}
}

// TestOverloadIsRemembered: a queue that stood stays overloaded (waits
// allowed up to the target only) while it drains for a moment with work
// still executing, and is forgotten after overloadMemory intervals, or at
// once when the lane falls idle.
func TestOverloadIsRemembered(t *testing.T) {
	clock := newFakeClock()
	a := NewAdmission(Config{MaxReads: 2, MaxWrites: 1}, clock, nil)
	background, err := a.Admit(context.Background(), false, "k", "long")
	if err != nil {
		t.Fatal(err)
	}
	hold, err := a.Admit(context.Background(), false, "k", "hold")
	if err != nil {
		t.Fatal(err)
	}
	standing(t, a, clock, hold)() // stood, then drained
	quick := func() {
		t.Helper()
		// admitted at once (as "slow", whose share is not held)
		rel, err := a.Admit(context.Background(), false, "slow", "goal")
		if err != nil {
			t.Fatal(err)
		}
		rel()
	}
	quick()
	clock.Advance(DefaultInterval)
	if got := allowed(a, clock); got != DefaultTarget {
		t.Fatalf("allowed %s right after a standing queue drained; want the target", got)
	}
	for range overloadMemory {
		clock.Advance(DefaultInterval)
		quick()
	}
	if got := allowed(a, clock); got != DefaultBurst {
		t.Errorf("allowed %s after %d quiet intervals; want the burst allowance", got, overloadMemory)
	}

	hold, _ = a.Admit(context.Background(), false, "k", "hold")
	standing(t, a, clock, hold)()
	background()
	quick() // idle for no time: clients backing off together
	if got := allowed(a, clock); got != DefaultTarget {
		t.Errorf("allowed %s after a pause; want the target", got)
	}
	clock.Advance(DefaultInterval)
	quick() // idle for an interval
	if got := allowed(a, clock); got != DefaultBurst {
		t.Errorf("allowed %s on a lane idle for an interval; want the burst allowance", got)
	}
}

// TestBurstAfterIdleIsQueuedWhateverTheEstimate: while the estimates are
// fresh, a request estimated to wait longer than Burst is refused at once;
// after an idle interval they are not trusted until a request completes,
// and a burst is queued whatever they say.
func TestBurstAfterIdleIsQueuedWhateverTheEstimate(t *testing.T) {
	clock := newFakeClock()
	a := NewAdmission(Config{MaxReads: 1, MaxWrites: 1}, clock, nil)
	teach(t, a, clock, "tree", time.Second, 3)
	hold, err := a.Admit(context.Background(), false, "k", "tree")
	if err != nil {
		t.Fatal(err)
	}
	out := make(chan result, 10)
	for range 3 { // estimated waits of 0, 1 and 2 s: within the burst allowance
		admitAsync(t, a, a.reads, "k", "tree", out)
	}
	var ref *Refusal
	if _, err := a.Admit(context.Background(), false, "k", "tree"); !errors.As(err, &ref) || ref.Reason != ReasonWait {
		t.Fatalf("estimated wait 3 s: got %v, want refused at once", err)
	}
	for range 3 {
		clock.Advance(100 * time.Millisecond)
		hold()
		r := <-out
		if r.err != nil {
			t.Fatal(r.err)
		}
		hold = r.release
	}
	hold()

	clock.Advance(DefaultInterval) // idle
	hold, err = a.Admit(context.Background(), false, "k", "tree")
	if err != nil {
		t.Fatal(err)
	}
	for range 10 { // estimated waits of 1 to 10 s
		admitAsync(t, a, a.reads, "k", "tree", out)
	}
	if _, _, q := a.reads.state(); q != 10 || len(out) != 0 {
		t.Fatalf("queued %d, decided %d; want all 10 queued", q, len(out))
	}
	// Served faster than estimated: 100 ms each.
	for range 10 {
		clock.Advance(100 * time.Millisecond)
		hold()
		r := <-out
		if r.err != nil {
			t.Fatalf("refused: %v", r.err)
		}
		hold = r.release
	}
	hold()
}

// allowed is the read lane's allowance now.
func allowed(a *Admission, clock *fakeClock) time.Duration {
	a.reads.mu.Lock()
	defer a.reads.mu.Unlock()
	return a.reads.allowance(clock.Now())
}
