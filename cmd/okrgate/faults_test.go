package main

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// TestReadinessCached: the readiness check runs in the background; a probe
// waits at most readyWait for it, reuses its result while it is fresh,
// reports a check that does not come back for readyStalled as not ready
// (a partition), and a slow check that does come back as its result (a
// slow database is ready). The clock is the test's, so nothing depends on
// how fast the machine is.
func TestReadinessCached(t *testing.T) {
	var mu sync.Mutex
	now := time.Unix(1000, 0)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }

	release := make(chan error)
	calls := 0
	r := newReadiness(func(ctx context.Context) error {
		mu.Lock()
		calls++
		mu.Unlock()
		return <-release
	})
	r.now = clock
	ctx := context.Background()

	if err := r.Ready(ctx); !errors.Is(err, errReadyPending) {
		t.Fatalf("before the first check came back: %v, want pending", err)
	}
	release <- nil // the check comes back: ready
	waitFor(t, func() bool { return r.Ready(ctx) == nil })
	for range 5 {
		if err := r.Ready(ctx); err != nil {
			t.Fatalf("fresh result: %v", err)
		}
	}
	mu.Lock()
	n := calls
	mu.Unlock()
	if n != 1 {
		t.Fatalf("%d checks for fresh probes, want 1", n)
	}

	// A slow database: the next check is in flight for less than
	// readyStalled; probes answer the last result.
	advance(readyFresh)
	if err := r.Ready(ctx); err != nil {
		t.Fatalf("slow check in flight: %v, want ready", err)
	}
	advance(readyStalled / 2)
	if err := r.Ready(ctx); err != nil {
		t.Fatalf("slow check in flight: %v, want ready", err)
	}
	// A partition: the check has not come back for readyStalled.
	advance(readyStalled)
	if err := r.Ready(ctx); !errors.Is(err, errReadyStalled) {
		t.Fatalf("stalled check: %v, want stalled", err)
	}
	failed := errors.New("connection refused")
	release <- failed
	waitFor(t, func() bool { return errors.Is(r.Ready(ctx), failed) })

	// Recovery: once the result is stale, the next check runs.
	advance(readyFresh)
	go func() { release <- nil }()
	waitFor(t, func() bool { return r.Ready(ctx) == nil })
}

// waitFor polls cond until it holds, failing t after a generous bound.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		if cond() {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatal("condition not reached within 30s")
}
