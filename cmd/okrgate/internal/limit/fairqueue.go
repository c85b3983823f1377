package limit

import (
	"container/heap"
	"time"
)

// waiter is a request waiting in a lane's queue.
type waiter struct {
	key, class string
	cost       time.Duration // the estimated execution time
	arrived    time.Time
	start      float64 // the virtual start tag (fairQueue)
	seq        uint64
	index      int // in the heap; -1 once out of it

	done chan struct{} // closed once admitted or refused
	err  error         // nil once admitted
	stop func() bool   // cancels the deadline
}

// fairQueue orders waiters by start-time fair queueing (Goyal et al.): each
// key (an account or a token) is a flow whose requests are tagged with
// virtual start times spaced by their estimated cost, and the waiter with
// the smallest tag goes first. A key that queues many or expensive requests
// therefore gets its share of the lane's time, not more, and a key that
// sends one request now is served after at most one request of every other
// key, however long their backlog.
type fairQueue struct {
	h      waiterHeap
	vtime  float64            // the start tag of the last waiter dequeued
	finish map[string]float64 // per key: the finish tag of its last waiter
	seq    uint64
}

func (q *fairQueue) Len() int { return len(q.h) }

func (q *fairQueue) push(w *waiter) {
	if q.finish == nil {
		q.finish = map[string]float64{}
	}
	w.start = max(q.vtime, q.finish[w.key])
	q.finish[w.key] = w.start + max(w.cost.Seconds(), 1e-6)
	q.seq++
	w.seq = q.seq
	heap.Push(&q.h, w)
}

// pop removes the waiter with the smallest start tag.
func (q *fairQueue) pop() *waiter {
	w := heap.Pop(&q.h).(*waiter)
	q.vtime = w.start
	q.reset()
	return w
}

// remove takes w out of the queue (a deadline or a client gone).
func (q *fairQueue) remove(w *waiter) {
	if w.index >= 0 {
		heap.Remove(&q.h, w.index)
		q.reset()
	}
}

// reset drops what is kept of keys once nothing is queued: an empty
// queue starts afresh, so the map holds only the keys of one busy period.
func (q *fairQueue) reset() {
	if len(q.h) == 0 {
		q.vtime = 0
		clear(q.finish)
	}
}

type waiterHeap []*waiter

func (h waiterHeap) Len() int { return len(h) }
func (h waiterHeap) Less(i, j int) bool {
	if h[i].start != h[j].start {
		return h[i].start < h[j].start
	}
	return h[i].seq < h[j].seq
}
func (h waiterHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *waiterHeap) Push(x any) {
	w := x.(*waiter)
	w.index = len(*h)
	*h = append(*h, w)
}
func (h *waiterHeap) Pop() any {
	old := *h
	w := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	w.index = -1
	return w
}
