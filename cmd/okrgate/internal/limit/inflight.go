package limit

import (
	"net/http"
	"runtime"
	"strconv"
	"time"
)

// DefaultMaxReads is the default bound on reads executing at once: two per
// processor. The store is in-process SQLite, so a request is CPU work
// almost throughout; more requests at once add latency (and delay the
// probes) without adding throughput (docs/benchmarks.md, "Load shedding").
func DefaultMaxReads() int { return 2 * runtime.GOMAXPROCS(0) }

// DefaultMaxWrites is the default bound on writes executing at once: one per
// processor, at least 2. Writes share SQLite's single writer connection, so
// more would only wait for it.
func DefaultMaxWrites() int { return max(2, runtime.GOMAXPROCS(0)) }

const (
	// DefaultQueueWait is how long a request may wait for a slot before it
	// is shed: long enough to ride out a burst, short enough that a shed
	// request costs the client nothing.
	DefaultQueueWait = 50 * time.Millisecond
	// retryAfter is the Retry-After of a shed request, in seconds.
	retryAfter = 1
)

// Inflight bounds the requests executing at once: reads (GET, HEAD, and
// GraphQL documents without a mutation) and writes (everything else) each
// have their own slots, so a burst of writes cannot starve reads nor the
// other way round. A request that finds no slot within the queue wait is
// answered 503 with Retry-After at once.
type Inflight struct {
	reads, writes chan struct{} // nil: unbounded
	wait          time.Duration
}

// NewInflight returns a limiter of maxReads reads and maxWrites writes
// (0 or less: unbounded) that lets a request wait up to wait for a slot.
func NewInflight(maxReads, maxWrites int, wait time.Duration) *Inflight {
	l := &Inflight{wait: wait}
	if maxReads > 0 {
		l.reads = make(chan struct{}, maxReads)
	}
	if maxWrites > 0 {
		l.writes = make(chan struct{}, maxWrites)
	}
	return l
}

// Handler bounds next.
func (l *Inflight) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		write, r := classify(r)
		slots, kind := l.reads, "read"
		if write {
			slots, kind = l.writes, "write"
		}
		if slots == nil {
			next.ServeHTTP(w, r)
			return
		}
		if !l.acquire(r, slots) {
			w.Header().Set("Retry-After", strconv.Itoa(retryAfter))
			refuse(w, r, http.StatusServiceUnavailable, CodeOverloaded, GQLCodeOverloaded,
				"the server is busy with other "+kind+"s; retry in a moment")
			return
		}
		defer func() { <-slots }()
		next.ServeHTTP(w, r)
	})
}

// acquire takes a slot, waiting at most the queue wait (or until the
// client goes away).
func (l *Inflight) acquire(r *http.Request, slots chan struct{}) bool {
	select {
	case slots <- struct{}{}:
		return true
	default:
	}
	if l.wait <= 0 {
		return false
	}
	t := time.NewTimer(l.wait)
	defer t.Stop()
	select {
	case slots <- struct{}{}:
		return true
	case <-t.C:
		return false
	case <-r.Context().Done():
		return false
	}
}
