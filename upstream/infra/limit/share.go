package limit

import (
	"math"
	"slices"
	"time"
)

// flow is what a lane knows of one key (an account, a token or an
// address): the slots it holds, its queued requests, and its share of the
// limit.
//
// The fair queue alone orders who goes next, but not who holds the slots:
// a key that floods fills every slot the moment each frees, and another
// key's request, however early in the queue, still waits for one of the
// flood's requests to finish, and then runs beside the flood's others on
// the same cores. So each key that was recently busy is given a share of
// the limit, max-min fair over what the keys used (their demand): a key
// holding less than its share may take any free slot; a key holding its
// share or more may take only a slot that is not owed to the others (their
// shares less what they hold). A quiet account's request then finds a slot
// free when it arrives, and runs beside a bounded part of the flood. This
// is Netflix concurrency-limits' partitioned limiter (a guaranteed part of
// the limit per partition, borrowing what the others do not use), with the
// partitions found from the traffic rather than configured, and the
// guarantee kept within the limit rather than on top of it.
//
// Max-min alone splits the limit equally between two keys that each ask
// for more than half of it, so a second account busy enough to fill the
// server by itself gets half while another floods, and waits twice as long
// as alone. But the two are not alike: most of the flood's requests are
// refused (it asks for more than the queue can hold within its allowance),
// few or none of the other's. So the keys that had most of their requests
// of the last interval refused (they are shed) are given their shares only
// after the others: the keys that are served share the limit max-min
// fairly among themselves first, and the shed keys share what they leave.
// A shed key keeps at least one slot (a key holding nothing may take any
// free slot), and gets back in line with the others after an interval in
// which most of its requests were admitted, that is once it sends about as
// much as the server can queue for it: a key earns its place by backing
// off, not by sending more. A key that is refused now and then (its own
// queue ran long) stays served.
type flow struct {
	key     string
	held    int           // slots it holds
	work    time.Duration // estimated service time of its waiters
	waiting []*waiter     // its queued requests, oldest first
	index   int           // in fairQueue.flows; -1 when nothing waits
	seq     uint64        // when it joined fairQueue.flows

	// area is the integral of held+len(waiting) over time since the last
	// reshare, in request-seconds, brought up to date at since; demand is
	// its time average, smoothed over intervals; share is the part of the
	// limit the flow is owed (lane.reshare).
	area   float64
	since  time.Time
	demand float64
	share  float64
	// asked and refused count its requests, and those refused, since the
	// last reshare; shed is set when most of that interval's were refused
	// (lane.reshare).
	asked, refused int
	shed           bool
	// last is when the flow last sent a request or had one finish.
	last time.Time
}

// reserveFor is how long after its last request arrived or finished a flow
// holding less than its share still has the rest reserved: a closed-loop
// client, or a page's next request, comes back within it; a slot stays
// idle at most that long for a key that has left.
const reserveFor = 100 * time.Millisecond

// flowOf returns key's flow, creating it.
func (l *lane) flowOf(key string, now time.Time) *flow {
	f := l.flows[key]
	if f == nil {
		f = &flow{key: key, index: -1, since: now}
		l.flows[key] = f
	}
	f.last = now
	return f
}

// account brings f's demand integral up to now; call it before f's held
// or waiting count changes.
func (f *flow) account(now time.Time) {
	if d := now.Sub(f.since); d > 0 {
		f.area += float64(f.held+len(f.waiting)) * d.Seconds()
	}
	f.since = now
}

// atShare reports whether f holds its share of the limit or more (and
// something): it takes a slot then only if no other flow is owed it.
func (f *flow) atShare() bool { return f.held > 0 && float64(f.held) >= f.share }

// hold changes the slots f holds by d (+1 or -1).
func (l *lane) hold(f *flow, now time.Time, d int) {
	f.account(now)
	f.held += d
	if d < 0 {
		f.last = now
	}
}

// eligible reports whether f may take a free slot now: one is free, and f
// holds nothing, or less than its share, or more slots are free than the
// other flows are owed (their shares less what they hold, for the flows
// without waiters that are executing or were active within reserveFor;
// rounded to whole slots). A flow that holds nothing may always take a free slot, so that
// a key new to the lane waits at most for one, not for the next reshare.
func (l *lane) eligible(f *flow, now time.Time) bool {
	free := l.lim.Limit() - l.inflight
	switch {
	case free <= 0:
		return false
	case !f.atShare():
		return true
	}
	owed := 0.0
	for _, g := range l.flows {
		// A flow with waiters competes for the slot in the fair queue
		// (dispatch offers it in tag order); a slot is kept only for a
		// flow between requests, which cannot.
		if g == f || g.share <= float64(g.held) || len(g.waiting) > 0 {
			continue
		}
		if g.held > 0 || now.Sub(g.last) < reserveFor {
			owed += g.share - float64(g.held)
			if math.Round(owed) >= float64(free) {
				return false
			}
		}
	}
	return true
}

// reshare recomputes the flows' demands over the interval that ends now and
// their shares of the limit, and forgets the flows that are idle.
//
// A flow's demand is how many requests it had executing or waiting on
// average (smoothed over intervals, so that a closed-loop client's short
// gaps between requests do not count as leaving); the shares are the
// max-min fair allocation of the limit over the demands (water-filling): a
// flow that demands less than an equal part is owed what it demands, and
// what it leaves is shared equally among the others. The flows that had
// most of their requests refused during the interval (shed) are allocated
// after the others, from what those leave (flow). Costs O(n log n) for the n flows
// seen since the last reshare, once per interval.
func (l *lane) reshare(now time.Time, elapsed time.Duration) {
	if l.lim == nil {
		return
	}
	active := make([]*flow, 0, len(l.flows))
	for key, f := range l.flows {
		f.account(now)
		sample := 0.0
		if elapsed > 0 {
			sample = f.area / elapsed.Seconds()
		}
		f.area = 0
		f.shed = 2*f.refused > f.asked
		f.asked, f.refused = 0, 0
		if f.demand == 0 {
			f.demand = sample // a new flow: its first interval
		} else {
			f.demand += (sample - f.demand) / 2
		}
		if f.held == 0 && len(f.waiting) == 0 && f.demand < 0.01 {
			delete(l.flows, key)
			continue
		}
		active = append(active, f)
	}
	slices.SortFunc(active, func(a, b *flow) int {
		switch {
		case a.shed != b.shed:
			if b.shed {
				return -1
			}
			return 1
		case a.demand < b.demand:
			return -1
		case a.demand > b.demand:
			return 1
		}
		return 0
	})
	// Water-filling, the served flows first: n counts the flows of the
	// group being filled that are still to be given their share.
	served := slices.IndexFunc(active, func(f *flow) bool { return f.shed })
	if served < 0 {
		served = len(active)
	}
	l.served, l.shed = served, len(active)-served
	left, n := float64(l.lim.Limit()), served
	for i, f := range active {
		if i == served {
			n = len(active) - served
		}
		f.share = min(f.demand, left/float64(n))
		left -= f.share
		n--
	}
}
