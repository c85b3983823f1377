package limit

import (
	"context"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestSharesAreMaxMinFair: the limit is divided max-min fairly over the
// flows' demands: a flow that demands less than an equal part is owed what
// it demands, the rest is shared equally; a flow idle long enough is
// forgotten.
func TestSharesAreMaxMinFair(t *testing.T) {
	clock := newFakeClock()
	a := NewAdmission(Config{MaxReads: 10, MaxWrites: 1, Procs: 2}, clock, nil)
	l := a.reads
	now := clock.Now()
	for key, busy := range map[string]float64{"light": 1, "heavy": 50, "mid": 5, "gone": 0.001} {
		f := l.flowOf(key, now)
		f.area = busy // request-seconds over the one-second interval
	}
	l.mu.Lock()
	l.reshare(now.Add(time.Second), time.Second)
	l.mu.Unlock()
	want := map[string]float64{"light": 1, "mid": 4.5, "heavy": 4.5}
	for key, share := range want {
		if f := l.flows[key]; f == nil || f.share != share {
			t.Errorf("%s: %+v, want share %v", key, f, share)
		}
	}
	if _, ok := l.flows["gone"]; ok || len(l.flows) != 3 {
		t.Errorf("flows %v; want the idle one forgotten", l.flows)
	}
}

// TestFloodLeavesQuietKeyItsShare: one key floods (its requests fill the
// slots and queue), another keeps two requests running. Once the shares are
// known, a slot the quiet key frees is kept for it rather than given to the
// flood's waiters, and its next request is admitted at once; a slot the
// flood frees goes to the flood's waiters; and once the quiet key has been
// gone for reserveFor, the slot kept for it goes to the flood too.
func TestFloodLeavesQuietKeyItsShare(t *testing.T) {
	clock := newFakeClock()
	a := NewAdmission(Config{MaxReads: 4, MaxWrites: 1, Procs: 2}, clock, nil)
	l := a.reads
	admit := func(key string) func() {
		t.Helper()
		rel, err := a.Admit(context.Background(), false, key, "goal")
		if err != nil {
			t.Fatal(err)
		}
		return rel
	}
	quiet := []func(){admit("quiet"), admit("quiet")}
	flood := []func(){admit("flood"), admit("flood")}
	out := make(chan result, 10)
	for range 6 {
		admitAsync(t, a, l, "flood", "goal", out)
	}
	clock.Advance(DefaultInterval)
	allowed(a, clock) // the interval ends: demands 2 and 8, shares 2 and 2
	if q, f := l.flows["quiet"], l.flows["flood"]; q.share != 2 || f.share != 2 {
		t.Fatalf("shares %v and %v, want 2 and 2", q.share, f.share)
	}

	quiet[0]() // frees a slot owed to quiet
	if _, inflight, q := l.state(); inflight != 3 || q != 6 || len(out) != 0 {
		t.Fatalf("inflight %d, queued %d, admitted %d; want the slot kept for quiet", inflight, q, len(out))
	}
	quiet[0] = admitNow(t, a, l, "quiet")

	flood[0]() // frees a slot owed to the flood
	r := <-out
	if r.err != nil || r.key != "flood" {
		t.Fatalf("got %+v; want a flood waiter admitted", r)
	}
	flood[0] = r.release

	for _, rel := range quiet { // quiet leaves
		rel()
	}
	if _, inflight, q := l.state(); inflight != 2 || q != 5 {
		t.Fatalf("inflight %d, queued %d; want quiet's slots kept for reserveFor", inflight, q)
	}
	clock.Advance(reserveFor)
	for range 2 {
		r := <-out
		if r.err != nil {
			t.Fatal(r.err)
		}
		flood = append(flood, r.release)
	}
	if _, inflight, q := l.state(); inflight != 4 || q != 3 {
		t.Fatalf("inflight %d, queued %d; want the flood in every slot", inflight, q)
	}
	for _, rel := range flood {
		rel()
	}
	for range 3 {
		(<-out).release()
	}
}

// admitNow admits a request of key that must not wait.
func admitNow(t *testing.T, a *Admission, l *lane, key string) func() {
	t.Helper()
	out := make(chan result, 1)
	admitAsync(t, a, l, key, "goal", out)
	if len(out) == 0 {
		t.Fatalf("%s's request was queued; want it admitted at once", key)
	}
	r := <-out
	if r.err != nil {
		t.Fatal(r.err)
	}
	return r.release
}

// TestEstimateFollowsTheLimit: a request that took 400 ms while four ran
// at once is estimated at 400 ms while the limit is 4, and at 200 ms once
// the limit is 2: with half as many at once, each runs in about half the
// time, and a queue drains as fast as before.
func TestEstimateFollowsTheLimit(t *testing.T) {
	clock := newFakeClock()
	a := NewAdmission(Config{MaxReads: 4, MaxWrites: 1, Procs: 1}, clock, nil)
	var others []func()
	for range 3 {
		others = append(others, admitNow(t, a, a.reads, "k"))
	}
	tree, err := a.Admit(context.Background(), false, "k", "tree")
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(400 * time.Millisecond)
	tree()
	l := a.reads
	l.mu.Lock()
	at4 := l.estimate("tree")
	l.lim = newGradient(2, 2, 2)
	at2 := l.estimate("tree")
	l.mu.Unlock()
	if at4 != 400*time.Millisecond || at2 != 200*time.Millisecond {
		t.Errorf("estimates %s at a limit of 4 and %s at 2; want 400ms and 200ms", at4, at2)
	}
	for _, rel := range others {
		rel()
	}
}

// TestShedKeysShareAfterServedKeys: a key that had most of its requests
// of the interval refused (shed) is given its share after the keys served,
// from what they leave; without refusals, or with a few, the same demands
// are shared max-min fairly (equally); the gauge counts the keys of each
// kind.
func TestShedKeysShareAfterServedKeys(t *testing.T) {
	for _, tc := range []struct {
		name              string
		asked, refused    int
		quiet, flood      float64
		served, shedCount int
	}{
		{"no refusals", 40, 0, 2, 2, 2, 0},
		{"a few refused", 40, 20, 2, 2, 2, 0},
		{"most refused", 40, 21, 3, 1, 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := newFakeClock()
			a := NewAdmission(Config{MaxReads: 4, MaxWrites: 1, Procs: 2}, clock, nil)
			l := a.reads
			now := clock.Now()
			l.flowOf("quiet", now).area = 3 // request-seconds over the one-second interval
			flood := l.flowOf("flood", now)
			flood.area, flood.asked, flood.refused = 50, tc.asked, tc.refused
			l.mu.Lock()
			l.reshare(now.Add(time.Second), time.Second)
			l.mu.Unlock()
			if q, f := l.flows["quiet"].share, l.flows["flood"].share; q != tc.quiet || f != tc.flood {
				t.Errorf("shares: quiet %v, flood %v; want %v and %v", q, f, tc.quiet, tc.flood)
			}
			if s, d := l.keys(false), l.keys(true); s != tc.served || d != tc.shedCount {
				t.Errorf("keys served %d, shed %d; want %d and %d", s, d, tc.served, tc.shedCount)
			}
		})
	}
}

// TestUnderShareWaiterGoesFirst: the slots are full, the flood (over its
// share) has requests queued, and the quiet key (under its share) queues
// one after them; the slot the flood frees goes to the quiet key's
// request, not to the flood's earlier ones.
func TestUnderShareWaiterGoesFirst(t *testing.T) {
	clock := newFakeClock()
	a := NewAdmission(Config{MaxReads: 4, MaxWrites: 1, Procs: 2}, clock, nil)
	l := a.reads
	quiet := admitNow(t, a, l, "quiet")
	var flood []func()
	for range 3 {
		flood = append(flood, admitNow(t, a, l, "flood"))
	}
	out := make(chan result, 10)
	for range 3 {
		admitAsync(t, a, l, "flood", "goal", out)
	}
	l.mu.Lock()
	l.flows["quiet"].share, l.flows["flood"].share = 3, 1
	l.mu.Unlock()
	admitAsync(t, a, l, "quiet", "goal", out)
	if _, inflight, q := l.state(); inflight != 4 || q != 4 || len(out) != 0 {
		t.Fatalf("inflight %d, queued %d, decided %d; want 4, 4, 0", inflight, q, len(out))
	}
	flood[0]()
	r := <-out
	if r.err != nil || r.key != "quiet" {
		t.Fatalf("got %+v; want the quiet key's request admitted first", r)
	}
	r.release()
	quiet()
	for _, rel := range flood[1:] {
		rel()
	}
	clock.Advance(reserveFor) // the slots kept for the quiet key lapse
	for range 3 {
		r := <-out
		if r.err != nil {
			t.Fatal(r.err)
		}
		r.release()
	}
}

// TestRefusalMarksKeyShed: requests refused after waiting all they may are
// counted by their key's share state, and a key with most of its requests
// of an interval refused is shed at the next reshare, as the gauge shows;
// an interval without refusals serves it again.
func TestRefusalMarksKeyShed(t *testing.T) {
	clock := newFakeClock()
	m := NewMetrics()
	a := NewAdmission(Config{MaxReads: 1, MaxWrites: 1, Target: 50 * time.Millisecond, Burst: 100 * time.Millisecond}, clock, m)
	reg := prometheus.NewRegistry()
	if err := m.Register(reg, a); err != nil {
		t.Fatal(err)
	}
	l := a.reads
	running := admitNow(t, a, l, "flood")
	out := make(chan result, 2)
	admitAsync(t, a, l, "flood", "goal", out)
	admitAsync(t, a, l, "flood", "goal", out)
	clock.Advance(100 * time.Millisecond)
	for range 2 {
		if r := <-out; r.err == nil {
			t.Fatal("a waiter was admitted; want it refused after the burst allowance")
		}
	}
	// Its key held a slot and has no share yet (none is computed before
	// the first interval ends): over its share.
	if n := testutil.ToFloat64(m.refusals.WithLabelValues("read", ReasonTimeout, shareOver)); n != 2 {
		t.Errorf("refusals{share=over} = %v, want 2", n)
	}
	clock.Advance(DefaultInterval)
	allowed(a, clock)
	if got := keysGauge(t, reg, "shed"); got != 1 || l.keys(false) != 0 {
		t.Errorf("keys shed %v, served %d; want 1 and 0", got, l.keys(false))
	}
	running()
	clock.Advance(DefaultInterval / 2)
	admitNow(t, a, l, "flood")()
	clock.Advance(DefaultInterval / 2)
	allowed(a, clock)
	if l.keys(true) != 0 || l.keys(false) != 1 {
		t.Errorf("keys shed %d, served %d after an interval without refusals; want 0 and 1", l.keys(true), l.keys(false))
	}
}

// keysGauge is okrgate_admission_keys{lane="read",state=state} of reg.
func keysGauge(t *testing.T, reg *prometheus.Registry, state string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "okrgate_admission_keys" {
			continue
		}
		for _, met := range mf.GetMetric() {
			labels := map[string]string{}
			for _, lp := range met.GetLabel() {
				labels[lp.GetName()] = lp.GetValue()
			}
			if labels["lane"] == "read" && labels["state"] == state {
				return met.GetGauge().GetValue()
			}
		}
	}
	t.Fatalf("no okrgate_admission_keys{lane=read,state=%s}", state)
	return 0
}

// TestFloodShedQuietKeyOwedMore: through Admit alone, a flood that had
// most of its requests of an interval refused is shed, and the quiet key
// that kept three requests running is owed more than half of the limit,
// where max-min would have split it equally (demands 2.7 and 4.3).
func TestFloodShedQuietKeyOwedMore(t *testing.T) {
	clock := newFakeClock()
	a := NewAdmission(Config{MaxReads: 4, MaxWrites: 1, Procs: 2, Target: 50 * time.Millisecond, Burst: 100 * time.Millisecond}, clock, nil)
	l := a.reads
	allowed(a, clock) // the first interval starts now
	var flood []func()
	for range 4 {
		flood = append(flood, admitNow(t, a, l, "flood"))
	}
	out := make(chan result, 30)
	for range 30 {
		admitAsync(t, a, l, "flood", "goal", out)
	}
	clock.Advance(100 * time.Millisecond)
	for range 30 {
		if r := <-out; r.err == nil {
			t.Fatal("a flood waiter was admitted; want it refused after the burst allowance")
		}
	}
	var quiet []func()
	for _, rel := range flood[1:] {
		rel()
		quiet = append(quiet, admitNow(t, a, l, "quiet"))
	}
	clock.Advance(DefaultInterval - 100*time.Millisecond)
	allowed(a, clock) // the interval ends: the shares are computed
	q, f := l.flows["quiet"], l.flows["flood"]
	if !f.shed || q.shed {
		t.Fatalf("flood shed %v, quiet shed %v; want only the flood shed", f.shed, q.shed)
	}
	if q.share <= 2 || f.share >= 2 || q.share+f.share > 4 {
		t.Errorf("shares: quiet %.2f, flood %.2f; want quiet over half the limit of 4, the flood under", q.share, f.share)
	}
	for _, rel := range append(quiet, flood[0]) {
		rel()
	}
}
