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
	flows    map[string]*flow        // the keys seen since the last reshare, or busy
	service  map[string]*serviceTime // per class
	mean     serviceTime             // of any class

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
	// reshared is when the flows' shares were last computed.
	reshared time.Time
	// redispatch is set while a dispatch is scheduled for waiters kept
	// from a slot reserved for another flow.
	redispatch bool
	// served and shed count the flows at the last reshare that had most
	// of their requests of the interval before admitted, or refused (for
	// the metrics).
	served, shed int
}

// overloadMemory is how many intervals a standing queue is remembered.
const overloadMemory = 10

func newLane(name string, cfg *Config, clock Clock, m *Metrics, lim *gradient) *lane {
	return &lane{name: name, cfg: cfg, clock: clock, metrics: m, lim: lim,
		flows: map[string]*flow{}, service: map[string]*serviceTime{}}
}

// ticket is an admitted request: release it when it is done.
type ticket struct {
	l       *lane
	flow    *flow
	class   string
	started time.Time
	once    sync.Once
}

func (t *ticket) release() { t.once.Do(func() { t.l.release(t) }) }

// acquire admits a request of key and class, waiting in the queue if its
// key may not take a slot now (lane.eligible); it returns a *Refusal, or
// ctx's error if ctx ends first.
func (l *lane) acquire(ctx context.Context, key, class string) (*ticket, error) {
	if l.lim == nil {
		l.metrics.admitted(l.name, 0, false)
		return &ticket{l: l, class: class, started: l.clock.Now()}, nil // unbounded
	}
	l.mu.Lock()
	now := l.clock.Now()
	l.tick(now) // before flowOf: a reshare forgets idle flows
	f := l.flowOf(key, now)
	f.asked++
	// No waiter of another flow may take a slot now (dispatch admits
	// them as soon as they may), so one that may goes first.
	if len(f.waiting) == 0 && l.eligible(f, now) {
		if l.inflight == 0 {
			l.wake(now)
		}
		over := f.atShare()
		l.inflight++
		l.hold(f, now, +1)
		l.observeWait(now, 0)
		l.mu.Unlock()
		l.metrics.admitted(l.name, 0, over)
		return &ticket{l: l, flow: f, class: class, started: now}, nil
	}
	cost := l.estimate(class)
	wait := l.fairWait(f, cost)
	allowed := l.allowance(now)
	if wait > allowed && !l.learning {
		// A request that would wait too long is told at once, unless the
		// estimates date from before an idle spell: a burst on a server
		// that was idle is queued whatever they say, and its deadline
		// bounds its wait anyway.
		over := f.atShare()
		f.refused++
		l.mu.Unlock()
		l.metrics.refused(l.name, ReasonWait, over)
		return nil, &Refusal{Lane: l.name, Reason: ReasonWait, Retry: wait}
	}
	w := &waiter{flow: f, class: class, cost: cost, arrived: now, done: make(chan struct{})}
	f.account(now)
	l.queue.push(w)
	f.work += cost
	w.stop = l.clock.AfterFunc(allowed, func() { l.expire(w) })
	l.dispatch(now) // the shares may have changed (allowance ticks)
	l.mu.Unlock()

	select {
	case <-w.done:
	case <-ctx.Done():
		l.mu.Lock()
		if w.queued { // still waiting: leave the queue
			l.dequeue(w, l.clock.Now())
			w.stop()
			l.mu.Unlock()
			return nil, ctx.Err()
		}
		l.mu.Unlock()
		<-w.done // admitted or refused meanwhile
		if w.err == nil {
			l.finish(f, "", 0, false) // admitted, but nobody is left to run it
			return nil, ctx.Err()
		}
	}
	if w.err != nil {
		l.metrics.refused(l.name, ReasonTimeout, w.over)
		return nil, w.err
	}
	started := l.clock.Now()
	l.metrics.admitted(l.name, started.Sub(w.arrived), w.over)
	return &ticket{l: l, flow: f, class: class, started: started}, nil
}

// dispatch admits waiters while a slot is free and a flow with waiters may
// take it: first those of the flows holding less than their share, then
// the others, each in the fair queue's order. A flow under its share is
// owed the slot; the queue's order alone would give every flow with
// waiters turns alike, however small its share or large its backlog.
func (l *lane) dispatch(now time.Time) {
	may := func(f *flow) bool {
		if !l.eligible(f, now) {
			return false
		}
		f.account(now) // its waiting count is about to change
		return true
	}
	owed := func(f *flow) bool { return !f.atShare() && may(f) }
	for l.queue.Len() > 0 && l.inflight < l.lim.Limit() {
		w := l.queue.next(owed)
		if w == nil {
			w = l.queue.next(may)
		}
		if w == nil {
			break
		}
		l.forgetWork(w)
		w.stop()
		w.over = w.flow.atShare()
		l.inflight++
		l.hold(w.flow, now, +1)
		l.observeWait(now, now.Sub(w.arrived))
		close(w.done)
	}
	if l.queue.Len() > 0 && l.inflight < l.lim.Limit() && !l.redispatch {
		// A slot is kept for a flow owed it (eligible): look again once
		// the reservation may have lapsed, should nothing else happen.
		l.redispatch = true
		l.clock.AfterFunc(reserveFor, func() {
			l.mu.Lock()
			defer l.mu.Unlock()
			l.redispatch = false
			l.dispatch(l.clock.Now())
		})
	}
}

// expire refuses w once it has waited as long as it may.
func (l *lane) expire(w *waiter) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !w.queued {
		return // admitted or gone
	}
	now := l.clock.Now()
	l.dequeue(w, now)
	l.observeWait(now, now.Sub(w.arrived))
	w.over = w.flow.atShare()
	w.flow.refused++
	w.err = &Refusal{Lane: l.name, Reason: ReasonTimeout, Retry: l.fairWait(w.flow, 0)}
	close(w.done)
}

// dequeue takes w out of the queue and its work out of the estimates.
func (l *lane) dequeue(w *waiter, now time.Time) {
	w.flow.account(now)
	l.queue.remove(w)
	l.forgetWork(w)
}

func (l *lane) forgetWork(w *waiter) {
	if w.flow.work -= w.cost; len(w.flow.waiting) == 0 {
		w.flow.work = 0
	}
}

// release ends t's execution: it feeds the execution time to the limit and
// to the estimates, and admits waiters while there is room.
func (l *lane) release(t *ticket) {
	l.finish(t.flow, t.class, l.clock.Now().Sub(t.started), true)
}

// finish frees f's slot, learning from its execution time rtt if measured.
func (l *lane) finish(f *flow, class string, rtt time.Duration, measured bool) {
	if l.lim == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.clock.Now()
	c := l.inflight
	l.inflight--
	l.hold(f, now, -1)
	if l.inflight == 0 && l.queue.Len() == 0 {
		l.idleSince = now
	}
	if measured {
		l.learning = false
		l.lim.sample(class, rtt, l.inflight)
		st := l.service[class]
		if st == nil && len(l.service) < maxClasses {
			st = &serviceTime{}
			l.service[class] = st
		}
		if st != nil {
			st.add(rtt, c)
		}
		l.mean.add(rtt, c)
	}
	l.dispatch(now)
}

// serviceTime is the smoothed execution time of a class of requests and
// the smoothed concurrency it was measured at.
type serviceTime struct {
	rtt  time.Duration
	conc float64
}

func (s *serviceTime) add(rtt time.Duration, conc int) {
	if s.rtt == 0 {
		s.rtt, s.conc = rtt, float64(conc)
		return
	}
	s.rtt += (rtt - s.rtt) / 8
	s.conc += (float64(conc) - s.conc) / 8
}

// at is the execution time expected at a concurrency of limit: the time
// measured, shortened in proportion when it was measured with more
// requests executing at once than the limit now allows (they shared the
// processors). Execution times alone overestimate every wait right after
// the limit shrinks: they were stretched by the higher concurrency.
func (s *serviceTime) at(limit int) time.Duration {
	if s.conc > float64(limit) {
		return time.Duration(float64(s.rtt) * float64(limit) / s.conc)
	}
	return s.rtt
}

// estimate is the expected execution time of a request of class at the
// current limit (serviceTime.at): its class's, else the lane's, else
// nothing (a server that has served nothing yet admits a burst and learns
// from it).
func (l *lane) estimate(class string) time.Duration {
	if st, ok := l.service[class]; ok {
		return st.at(l.lim.Limit())
	}
	return l.mean.at(l.lim.Limit())
}

// fairWait estimates how long a request of flow f costing cost would wait
// before it starts: the fair queue serves f's own backlog first, and
// every other flow's only up to as much as f's backlog and this request
// (their requests tagged before it), and none of a flow at its share if f
// is under its own (dispatch serves f first); the limit's slots serve the
// queue in parallel. The request's own cost is not part of its wait: an
// expensive request is refused for the queue ahead of it, not for being
// expensive.
func (l *lane) fairWait(f *flow, cost time.Duration) time.Duration {
	own := f.work
	sum := own
	under := !f.atShare()
	for _, g := range l.queue.flows {
		if g != f && (!under || !g.atShare()) {
			sum += min(g.work, own+cost)
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
	if !l.reshared.IsZero() {
		l.reshare(now, now.Sub(l.reshared))
	}
	l.reshared = now
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

// keys is how many flows were shed (had most of their requests refused) in
// the interval before the last reshare, or were served, for the metrics.
func (l *lane) keys(shed bool) int {
	if l.lim == nil {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if shed {
		return l.shed
	}
	return l.served
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
