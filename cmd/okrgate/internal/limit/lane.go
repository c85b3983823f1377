package limit

import (
	"context"
	"math"
	"sync"
	"time"
)

// Reasons of refusals, as counted in the metrics.
const (
	// ReasonWait: the estimated wait was over what the queue allows.
	ReasonWait = "wait"
	// ReasonTimeout: the request waited as long as the queue allows.
	ReasonTimeout = "timeout"
)

// Refusal is the error of a request that was not admitted.
type Refusal struct {
	Lane   string // "read" or "write"
	Reason string // ReasonWait or ReasonTimeout
	// Retry is when the queue should have room again.
	Retry time.Duration
}

func (r *Refusal) Error() string {
	return "the server is busy with other " + r.Lane + "s; retry in a moment"
}

// RetryAfter is the delay a client should wait before retrying, in whole
// seconds (at least one), as the Retry-After header gives it.
func (r *Refusal) RetryAfter() time.Duration {
	return time.Duration(math.Ceil(min(max(r.Retry, time.Second), maxRetryAfter).Seconds())) * time.Second
}

// maxRetryAfter caps Retry-After.
const maxRetryAfter = 30 * time.Second

// lane admits one kind of request (reads or writes): at most its limit
// execute at once, and the others wait in a fair queue whose waiting time
// is managed like CoDel's (Nichols and Jacobson; Facebook applies it to RPC
// queues): a queue in which every request of an Interval waited longer than
// Target is a standing queue, and while it stands and for overloadMemory
// intervals after (unless the lane stays idle, nothing executing and
// nothing waiting, for an Interval), a request may wait only up to Target
// in it; otherwise
// the queue holds a burst, and a request may wait up to Burst for it to
// drain. A request whose estimated wait is over its allowance is refused
// at once, unless the estimates are not trusted (the first requests after
// an idle spell); one that has waited all it may is refused then. Nothing is refused while the queue moves within its
// allowance, however many requests arrive together.
type lane struct {
	name    string
	cfg     *Config
	clock   Clock
	metrics *Metrics

	mu       sync.Mutex
	lim      *gradient
	inflight int
	queue    fairQueue
	work     map[string]time.Duration // estimated work queued, per key
	total    time.Duration            // estimated work queued
	service  map[string]time.Duration // smoothed execution time per class
	mean     time.Duration            // smoothed execution time of any class

	// CoDel: the smallest wait of the requests that left the queue in the
	// current interval, and whether the last interval's was over Target.
	intervalEnd time.Time
	minWait     time.Duration
	waits       int
	standing    bool
	// overloadedUntil is when the last standing interval is forgotten:
	// a queue that stood recently and drained for a moment (clients
	// backing off return together) is still overloaded.
	overloadedUntil time.Time
	// idleSince is when the lane last fell idle (nothing executing or
	// waiting); zero while it is busy.
	idleSince time.Time
	// learning is set when a busy period starts after an idle one of an
	// Interval or more, until its first request completes: the
	// estimates date from before and may be far off.
	learning bool
}

// overloadMemory is how many intervals a standing queue is remembered.
const overloadMemory = 10

func newLane(name string, cfg *Config, clock Clock, m *Metrics, lim *gradient) *lane {
	return &lane{name: name, cfg: cfg, clock: clock, metrics: m, lim: lim,
		work: map[string]time.Duration{}, service: map[string]time.Duration{}}
}

// ticket is an admitted request: release it when it is done.
type ticket struct {
	l       *lane
	class   string
	started time.Time
	once    sync.Once
}

func (t *ticket) release() { t.once.Do(func() { t.l.release(t) }) }

// acquire admits a request of key and class, waiting in the queue if the
// limit is reached; it returns a *Refusal, or ctx's error if ctx ends
// first.
func (l *lane) acquire(ctx context.Context, key, class string) (*ticket, error) {
	if l.lim == nil {
		l.metrics.admitted(l.name, 0)
		return &ticket{l: l, class: class, started: l.clock.Now()}, nil // unbounded
	}
	l.mu.Lock()
	now := l.clock.Now()
	if l.queue.Len() == 0 && l.inflight < l.lim.Limit() {
		if l.inflight == 0 {
			l.wake(now)
		}
		l.inflight++
		l.observeWait(now, 0)
		l.mu.Unlock()
		l.metrics.admitted(l.name, 0)
		return &ticket{l: l, class: class, started: now}, nil
	}
	cost := l.estimate(class)
	wait := l.fairWait(key, cost)
	allowed := l.allowance(now)
	if wait > allowed && !l.learning {
		// A request that would wait too long is told at once, unless the
		// estimates date from before an idle spell: a burst on a server
		// that was idle is queued whatever they say, and its deadline
		// bounds its wait anyway.
		l.mu.Unlock()
		l.metrics.refused(l.name, ReasonWait)
		return nil, &Refusal{Lane: l.name, Reason: ReasonWait, Retry: wait}
	}
	w := &waiter{key: key, class: class, cost: cost, arrived: now, done: make(chan struct{})}
	l.queue.push(w)
	l.work[key] += cost
	l.total += cost
	w.stop = l.clock.AfterFunc(allowed, func() { l.expire(w) })
	l.mu.Unlock()

	select {
	case <-w.done:
	case <-ctx.Done():
		l.mu.Lock()
		if w.index >= 0 { // still waiting: leave the queue
			l.dequeue(w)
			w.stop()
			l.mu.Unlock()
			return nil, ctx.Err()
		}
		l.mu.Unlock()
		<-w.done // admitted or refused meanwhile
		if w.err == nil {
			l.finish("", 0, false) // admitted, but nobody is left to run it
			return nil, ctx.Err()
		}
	}
	if w.err != nil {
		l.metrics.refused(l.name, ReasonTimeout)
		return nil, w.err
	}
	started := l.clock.Now()
	l.metrics.admitted(l.name, started.Sub(w.arrived))
	return &ticket{l: l, class: class, started: started}, nil
}

// expire refuses w once it has waited as long as it may.
func (l *lane) expire(w *waiter) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if w.index < 0 {
		return // admitted or gone
	}
	now := l.clock.Now()
	l.dequeue(w)
	l.observeWait(now, now.Sub(w.arrived))
	w.err = &Refusal{Lane: l.name, Reason: ReasonTimeout, Retry: l.fairWait(w.key, 0)}
	close(w.done)
}

// dequeue takes w out of the queue and its work out of the estimates.
func (l *lane) dequeue(w *waiter) {
	l.queue.remove(w)
	l.forgetWork(w)
}

func (l *lane) forgetWork(w *waiter) {
	l.total -= w.cost
	if l.work[w.key] -= w.cost; l.work[w.key] <= 0 {
		delete(l.work, w.key)
	}
	if l.queue.Len() == 0 {
		l.total = 0
		clear(l.work)
	}
}

// release ends t's execution: it feeds the execution time to the limit and
// to the estimates, and admits waiters while there is room.
func (l *lane) release(t *ticket) {
	l.finish(t.class, l.clock.Now().Sub(t.started), true)
}

// finish frees a slot, learning from its execution time rtt if measured.
func (l *lane) finish(class string, rtt time.Duration, measured bool) {
	if l.lim == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.clock.Now()
	l.inflight--
	if l.inflight == 0 && l.queue.Len() == 0 {
		l.idleSince = now
	}
	if measured {
		l.learning = false
		l.lim.sample(class, rtt, l.inflight)
		if _, ok := l.service[class]; ok || len(l.service) < maxClasses {
			l.service[class] = smooth(l.service[class], rtt)
		}
		l.mean = smooth(l.mean, rtt)
	}
	for l.queue.Len() > 0 && l.inflight < l.lim.Limit() {
		w := l.queue.pop()
		l.forgetWork(w)
		w.stop()
		l.inflight++
		l.observeWait(now, now.Sub(w.arrived))
		close(w.done)
	}
}

// smooth is an exponentially weighted moving average that starts at its
// first sample.
func smooth(avg, sample time.Duration) time.Duration {
	if avg == 0 {
		return sample
	}
	return avg + (sample-avg)/8
}

// estimate is the expected execution time of a request of class: the
// smoothed time of its class, else of the lane, else nothing (a server
// that has served nothing yet admits a burst and learns from it).
func (l *lane) estimate(class string) time.Duration {
	if d, ok := l.service[class]; ok {
		return d
	}
	return l.mean
}

// fairWait estimates how long a request of key costing cost would wait
// before it starts: the fair queue serves key's own backlog first, and
// every other key's only up to as much as key's backlog and this request
// (their requests tagged before it); the limit's slots serve the queue in
// parallel. The request's own cost is not part of its wait: an expensive
// request is refused for the queue ahead of it, not for being expensive.
func (l *lane) fairWait(key string, cost time.Duration) time.Duration {
	own := l.work[key]
	sum := own
	for k, w := range l.work {
		if k != key {
			sum += min(w, own+cost)
		}
	}
	return sum / time.Duration(l.lim.Limit())
}

// allowance is how long a request arriving now may wait: Target while the
// queue stands or stood recently (the lane is overloaded), else Burst.
func (l *lane) allowance(now time.Time) time.Duration {
	l.tick(now)
	if l.standing || now.Before(l.overloadedUntil) {
		return l.cfg.Target
	}
	return l.cfg.Burst
}

// observeWait records the wait of a request leaving the queue (0 for one
// admitted at once).
func (l *lane) observeWait(now time.Time, wait time.Duration) {
	l.tick(now)
	if l.waits == 0 || wait < l.minWait {
		l.minWait = wait
	}
	l.waits++
}

// tick closes the interval once it is over: the queue is standing if every
// request that left it during the interval had waited over Target, or if
// none left it while it held requests.
func (l *lane) tick(now time.Time) {
	if now.Before(l.intervalEnd) {
		return
	}
	if l.waits > 0 {
		l.standing = l.minWait > l.cfg.Target
	} else {
		l.standing = l.queue.Len() > 0 && !l.intervalEnd.IsZero()
	}
	if l.standing {
		l.overloadedUntil = now.Add(overloadMemory * l.cfg.Interval)
	}
	l.waits, l.minWait = 0, 0
	l.intervalEnd = now.Add(l.cfg.Interval)
}

// wake starts a busy period. After an idle spell of an Interval or more, a
// past overload is forgotten (what arrives now is a burst on an idle
// server) and the estimates are not trusted until a request completes.
// A shorter pause, such as clients backing off together, changes nothing.
func (l *lane) wake(now time.Time) {
	if !l.idleSince.IsZero() && now.Sub(l.idleSince) >= l.cfg.Interval {
		l.standing, l.overloadedUntil = false, time.Time{}
		l.waits, l.minWait = 0, 0
		l.intervalEnd = now.Add(l.cfg.Interval)
		l.learning = true
	}
	l.idleSince = time.Time{}
}

// state is a snapshot for the metrics.
func (l *lane) state() (limit, inflight, queued int) {
	if l.lim == nil {
		return 0, 0, 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lim.Limit(), l.inflight, l.queue.Len()
}
