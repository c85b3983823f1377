package limit

import (
	"net/http"
	"strconv"
	"time"
)

// Defaults of the concurrency bounds (docs/decisions.md, "Load shedding").
const (
	DefaultMaxReads  = 32
	DefaultMaxWrites = 8
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
