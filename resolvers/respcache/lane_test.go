package respcache

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestCacheLane: calls of a version join the execution of that version
// running; a call of a later version does not wait for the earlier one: its
// execution starts at once and answers while the earlier one is still
// blocked, the calls of its version joining it. The earlier one then ends
// for its own calls, its answer not kept over the later version's; an
// answer that is its own is given to no other call, and a lane with
// nothing running is gone.
func TestCacheLane(t *testing.T) {
	c, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	key := func(v int64) Key { return Key{Scope: Scope{Account: "a", Class: "c", Version: v}, Request: "q"} }
	var computed atomic.Int64
	gate := func(body string, release chan struct{}, sharing Sharing) Compute {
		return func(since int64) (Answer, Sharing) {
			computed.Add(1)
			<-release
			return Answer{Parts: [][]byte{[]byte(body)}}, sharing
		}
	}
	calls := func(v int64) int {
		c.lanesMu.Lock()
		defer c.lanesMu.Unlock()
		l := c.lanes[key(0).lane()]
		if l == nil || l.flights[v] == nil {
			return 0
		}
		return l.flights[v].calls
	}
	body := func(a Answer) string {
		var s string
		for _, p := range a.Parts {
			s += string(p)
		}
		return s
	}

	type result struct {
		a Answer
		o Outcome
	}
	results := make([]result, 4)
	var wg sync.WaitGroup
	first, second := make(chan struct{}), make(chan struct{})
	done := make([]chan struct{}, 4)
	do := func(i int, v int64, compute Compute) {
		done[i] = make(chan struct{})
		wg.Go(func() {
			defer close(done[i])
			results[i].a, results[i].o = c.Do(key(v), compute)
		})
	}
	do(0, 1, gate("v1", first, Keep))
	waitUntil(t, func() bool { return computed.Load() == 1 })
	do(1, 1, gate("joined v1", first, Keep)) // joins the running one
	waitUntil(t, func() bool { return calls(1) == 2 })
	do(2, 2, gate("v2", second, Keep)) // starts at once, v1 still blocked
	waitUntil(t, func() bool { return computed.Load() == 2 })
	do(3, 2, gate("joined v2", second, Keep))
	waitUntil(t, func() bool { return calls(2) == 2 })
	close(second)
	<-done[2]
	<-done[3]
	select {
	case <-done[0]:
		t.Fatal("the execution of version 1 ended before it was released")
	default:
	}
	if _, ok := c.Get(key(2)); !ok {
		t.Error("the answer of version 2 is not kept")
	}
	close(first)
	wg.Wait()

	want := []struct {
		body string
		o    Outcome
	}{{"v1", Computed}, {"v1", Joined}, {"v2", Computed}, {"v2", Joined}}
	for i, w := range want {
		if body(results[i].a) != w.body || results[i].o != w.o {
			t.Errorf("call %d: %q, outcome %v; want %q, %v", i, body(results[i].a), results[i].o, w.body, w.o)
		}
	}
	if n := computed.Load(); n != 2 {
		t.Errorf("%d executions, want 2", n)
	}
	if _, ok := c.Get(key(1)); ok {
		t.Error("the answer of version 1, ended last, was kept over version 2's")
	}
	if _, ok := c.Get(key(2)); !ok {
		t.Error("the answer of version 2 is not kept after version 1's ended")
	}
	c.lanesMu.Lock()
	lanes := len(c.lanes)
	c.lanesMu.Unlock()
	if lanes != 0 {
		t.Error("the lane outlives its executions")
	}

	// An answer that is its own: the call waiting for it computes alone.
	own, release := make(chan struct{}), make(chan struct{})
	wg.Go(func() { results[0].a, results[0].o = c.Do(key(10), gate("mine", own, Own)) })
	waitUntil(t, func() bool { return calls(10) == 1 })
	wg.Go(func() { results[1].a, results[1].o = c.Do(key(10), gate("again", release, Own)) })
	waitUntil(t, func() bool { return calls(10) == 2 })
	close(own)
	close(release)
	wg.Wait()
	if results[0].o != Computed || results[1].o != Unshared || results[1].a.Parts != nil {
		t.Errorf("an answer of its own: outcomes %v, %v (body %q); want computed, unshared", results[0].o, results[1].o, body(results[1].a))
	}
}

// waitUntil polls cond until it holds, failing after 10 s.
func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
	}
}
