package respcache

import (
	"bytes"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestCacheLane: while a request's execution runs, calls of its version
// join it; calls of later versions wait and are all served by one next
// execution, computed once it ends, with the lowest of their versions as
// since; an answer of that execution that is its own is given to no other
// call, and a lane with nothing running is gone.
func TestCacheLane(t *testing.T) {
	c, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	key := func(v int64) Key { return Key{Scope: Scope{Account: "a", Class: "c", Version: v}, Request: "q"} }
	var computed atomic.Int64
	var sinces sync.Map
	gate := func(body string, release chan struct{}, sharing Sharing) Compute {
		return func(since int64) (Answer, Sharing) {
			computed.Add(1)
			sinces.Store(body, since)
			<-release
			return Answer{Parts: [][]byte{[]byte(body)}}, sharing
		}
	}
	calls := func(f func(*lane) *flight) int {
		c.lanesMu.Lock()
		defer c.lanesMu.Unlock()
		l := c.lanes[key(0).lane()]
		if l == nil || f(l) == nil {
			return 0
		}
		return f(l).calls
	}
	running := func(l *lane) *flight { return l.running }
	next := func(l *lane) *flight { return l.next }

	type result struct {
		a Answer
		o Outcome
	}
	results := make([]result, 5)
	var wg sync.WaitGroup
	first, second := make(chan struct{}), make(chan struct{})
	do := func(i int, v int64, compute Compute) {
		wg.Go(func() { results[i].a, results[i].o = c.Do(key(v), compute) })
	}
	do(0, 1, gate("v1", first, Keep))
	waitUntil(t, func() bool { return computed.Load() == 1 })
	do(1, 1, gate("joined v1", first, Keep)) // joins the running one
	waitUntil(t, func() bool { return calls(running) == 2 })
	do(2, 3, gate("v3", second, Share)) // leads the next
	waitUntil(t, func() bool { return calls(next) == 1 })
	do(3, 2, gate("v2", second, Share))
	do(4, 4, gate("v4", second, Share))
	waitUntil(t, func() bool { return calls(next) == 3 })
	close(first)
	waitUntil(t, func() bool { return computed.Load() == 2 })
	close(second)
	wg.Wait()

	want := []struct {
		body string
		o    Outcome
	}{{"v1", Computed}, {"v1", Joined}, {"v3", Computed}, {"v3", Joined}, {"v3", Joined}}
	for i, w := range want {
		if string(bytes.Join(results[i].a.Parts, nil)) != w.body || results[i].o != w.o {
			t.Errorf("call %d: %q, outcome %v; want %q, %v", i, results[i].a.Parts, results[i].o, w.body, w.o)
		}
	}
	if n := computed.Load(); n != 2 {
		t.Errorf("%d executions, want 2", n)
	}
	if since, _ := sinces.Load("v3"); since != int64(2) {
		t.Errorf("the next execution's since = %v, want 2 (the lowest version it serves)", since)
	}
	if _, ok := c.Get(key(1)); !ok {
		t.Error("the kept answer of version 1 is not kept")
	}
	if _, ok := c.Get(key(3)); ok {
		t.Error("a shared answer was kept")
	}
	if calls(running) != 0 {
		t.Error("the lane outlives its executions")
	}

	// An answer that is its own: the call waiting for it computes alone.
	own, release := make(chan struct{}), make(chan struct{})
	wg.Go(func() { results[0].a, results[0].o = c.Do(key(10), gate("mine", own, Own)) })
	waitUntil(t, func() bool { return calls(running) == 1 })
	wg.Go(func() { results[1].a, results[1].o = c.Do(key(10), gate("again", release, Own)) })
	waitUntil(t, func() bool { return calls(running) == 2 })
	close(own)
	close(release)
	wg.Wait()
	if results[0].o != Computed || results[1].o != Unshared || results[1].a.Parts != nil {
		t.Errorf("an answer of its own: outcomes %v, %v (body %q); want computed, unshared", results[0].o, results[1].o, results[1].a.Parts)
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
