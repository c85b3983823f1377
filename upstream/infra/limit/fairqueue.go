package limit

import (
	"container/heap"
	"slices"
	"time"
)

// waiter is a request waiting in a lane's queue.
type waiter struct {
	flow    *flow
	class   string
	cost    time.Duration // the estimated service time (lane.estimate)
	arrived time.Time
	start   float64 // the virtual start tag (fairQueue)
	queued  bool    // in the queue; false once admitted, refused or gone
	over    bool    // its flow held its share or more when it left the queue

	done chan struct{} // closed once admitted or refused
	err  error         // nil once admitted
	stop func() bool   // cancels the deadline
}

// fairQueue orders waiters by start-time fair queueing (Goyal et al.): each
// key (an account or a token) is a flow whose requests are tagged with
// virtual start times spaced by their estimated cost, and the waiter with
// the smallest tag among the flows allowed to run goes first. A key that
// queues many or expensive requests therefore gets its share of the lane's
// time, not more, and a key that sends one request now is served after at
// most one request of every other key, however long their backlog.
//
// A flow's waiters are kept in arrival order (their tags grow), and the
// flows with waiters in a heap by their first waiter's tag, so that a flow
// that may not run now (it holds its share of the slots, lane.eligible) is
// passed over whole, however many requests it queued.
type fairQueue struct {
	flows  flowHeap
	n      int               // waiters
	vtime  float64           // the start tag of the last waiter dequeued
	finish map[*flow]float64 // per flow: the finish tag of its last waiter
	seq    uint64
}

// Len is the number of waiters.
func (q *fairQueue) Len() int { return q.n }

func (q *fairQueue) push(w *waiter) {
	if q.finish == nil {
		q.finish = map[*flow]float64{}
	}
	f := w.flow
	w.start = max(q.vtime, q.finish[f])
	q.finish[f] = w.start + max(w.cost.Seconds(), 1e-6)
	w.queued = true
	f.waiting = append(f.waiting, w)
	q.n++
	if len(f.waiting) == 1 {
		q.seq++
		f.seq = q.seq
		heap.Push(&q.flows, f)
	}
}

// next removes and returns the waiter with the smallest start tag among
// the flows for which may reports true, or nil if there is none. Flows
// passed over are put back as they were.
func (q *fairQueue) next(may func(*flow) bool) *waiter {
	var skipped []*flow
	var w *waiter
	for len(q.flows) > 0 {
		f := heap.Pop(&q.flows).(*flow)
		if !may(f) {
			skipped = append(skipped, f)
			continue
		}
		w = f.waiting[0]
		f.waiting[0] = nil
		f.waiting = f.waiting[1:]
		if len(f.waiting) > 0 {
			heap.Push(&q.flows, f)
		}
		break
	}
	for _, f := range skipped {
		heap.Push(&q.flows, f)
	}
	if w != nil {
		w.queued = false
		q.n--
		q.vtime = w.start
		q.reset()
	}
	return w
}

// remove takes w out of the queue (a deadline or a client gone).
func (q *fairQueue) remove(w *waiter) {
	if !w.queued {
		return
	}
	f := w.flow
	i := slices.Index(f.waiting, w)
	f.waiting = slices.Delete(f.waiting, i, i+1)
	switch {
	case len(f.waiting) == 0:
		heap.Remove(&q.flows, f.index)
	case i == 0:
		heap.Fix(&q.flows, f.index)
	}
	w.queued = false
	q.n--
	q.reset()
}

// reset drops what is kept of flows once nothing is queued: an empty
// queue starts afresh, so the map holds only the flows of one busy period.
func (q *fairQueue) reset() {
	if q.n == 0 {
		q.vtime = 0
		clear(q.finish)
	}
}

// flowHeap orders the flows with waiters by their first waiter's tag, then
// by when they joined.
type flowHeap []*flow

func (h flowHeap) Len() int { return len(h) }
func (h flowHeap) Less(i, j int) bool {
	a, b := h[i].waiting[0].start, h[j].waiting[0].start
	if a != b {
		return a < b
	}
	return h[i].seq < h[j].seq
}
func (h flowHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *flowHeap) Push(x any) {
	f := x.(*flow)
	f.index = len(*h)
	*h = append(*h, f)
}
func (h *flowHeap) Pop() any {
	old := *h
	f := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	f.index = -1
	return f
}
