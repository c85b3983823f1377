package limit

import (
	"math"
	"time"
)

// gradient is an adaptive concurrency limit in the style of Netflix's
// Gradient2 and Envoy's adaptive concurrency filter: it compares how long
// requests take to execute now with how long the same kind of request takes
// when nothing competes with it, and moves the limit by that ratio:
//
//	newLimit = limit + √limit                   if ratio ≤ tolerance
//	newLimit = limit × max(½, tolerance / ratio) otherwise
//
// Requests that take at most tolerance times their baseline let the limit
// grow by about √limit per round (only while the limit is actually used, so an idle
// server does not inflate it); requests that take more than tolerance times
// their baseline shrink it, by at most half per round. Execution time
// excludes the time spent in the admission queue, so the limit settles where
// running one more request at once starts to slow the others down: about
// tolerance × the cores that do the work for CPU-bound requests, more when
// requests wait on a database.
//
// Baselines are kept per class of request (a REST route, a GraphQL
// operation's cost bucket), because a 100 ms tree and a 1 ms goal read
// are not comparable: each request is compared with its own kind. A
// baseline is the smallest execution time seen, drifting up towards newer
// samples taken with little competition, so that it follows a change of
// data or machine but not an overload.
type gradient struct {
	limit, min, max float64
	fixed           bool

	baseline map[string]time.Duration // per class
	ratio    float64                  // smoothed execution time / baseline
	samples  int                      // since the last adjustment
}

const (
	tolerance = 2.0 // execution time may double before the limit shrinks
	// maxClasses bounds the baselines kept: classes are derived from
	// request paths, which clients choose.
	maxClasses = 1024
	// otherClass is where requests of classes beyond maxClasses count.
	otherClass = "other"
)

// newGradient returns a limit starting at initial within [min, max]; a
// fixed one (min == max) never moves.
func newGradient(initial, lo, hi int) *gradient {
	return &gradient{limit: float64(initial), min: float64(lo), max: float64(hi), fixed: lo == hi,
		baseline: map[string]time.Duration{}, ratio: 1}
}

// Limit is the current limit, at least 1.
func (g *gradient) Limit() int { return max(1, int(g.limit)) }

// sample records that a request of class took rtt to execute while
// inflight others were executing.
func (g *gradient) sample(class string, rtt time.Duration, inflight int) {
	if g.fixed {
		return
	}
	rtt = max(rtt, time.Microsecond)
	base, ok := g.baseline[class]
	switch {
	case !ok && len(g.baseline) >= maxClasses:
		class = otherClass
		base, ok = g.baseline[class]
		if !ok || rtt < base {
			base = rtt
		}
	case !ok || rtt < base:
		base = rtt
	case inflight < int(g.min):
		// A request that ran with little competition is a fair sample
		// of its class's time now: drift towards it, so the baseline
		// follows a change of data or machine, but not an overload.
		base += (rtt - base) / 64
	}
	g.baseline[class] = base
	r := min(float64(rtt)/float64(base), 20) // one outlier moves it little
	g.ratio += (r - g.ratio) * 0.1
	g.samples++
	if float64(g.samples) < g.limit {
		return // about one adjustment per round of requests
	}
	g.samples = 0
	next := g.limit + math.Sqrt(g.limit)
	if grad := tolerance / g.ratio; grad < 1 {
		next = g.limit * math.Max(0.5, grad)
	}
	if next > g.limit && float64(inflight+1) < g.limit/2 {
		return // the limit is not what holds requests back: do not grow it
	}
	g.limit = math.Max(g.min, math.Min(g.max, 0.8*g.limit+0.2*next))
}
