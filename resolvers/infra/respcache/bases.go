package respcache

import (
	"container/list"
	"context"

	"github.com/okrgate/okrgate/upstream"
)

// Bases: what the last execution of a lane (a request of a class, any
// version) kept for the next one to derive its answer from (the fast
// path's fastpath.Kept), with the data version it was computed at: its
// answer shows every item as of that version or later. After writes that
// changed only figures (check-ins, upstream.FigureChangesOf), the next
// execution reads again the items they changed and reuses the rest
// (docs/graphql-execution.md, "Answers derived after check-ins").
//
// A lane executes once at a time (Do), and its execution takes its base
// (TakeBase) and puts back its own (PutBase): two executions never share
// one. Bases are bounded by half the cache's bytes, the least recently
// put dropped first.

// Base is what an execution kept for the next one of its lane.
type Base struct {
	// Version is the data version read before the execution began.
	Version int64
	// Kept is the executor's (opaque here), and Size about its bytes.
	Kept any
	Size int64
}

type baseEntry struct {
	lane string
	base Base
}

// TakeBase returns the base of k's lane and forgets it.
func (c *Cache) TakeBase(k Key) (Base, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.bases[k.lane()]
	if !ok {
		return Base{}, false
	}
	c.removeBase(el)
	return el.Value.(*baseEntry).base, true
}

// PutBase keeps b as the base of k's lane, within the bound.
func (c *Cache) PutBase(k Key, b Base) {
	if b.Kept == nil || b.Size > c.max/2 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	name := k.lane()
	if el, ok := c.bases[name]; ok {
		c.removeBase(el)
	}
	c.bases[name] = c.baseLRU.PushFront(&baseEntry{lane: name, base: b})
	c.baseBytes += b.Size
	for c.baseBytes > c.max/2 {
		c.removeBase(c.baseLRU.Back())
	}
}

// removeBase drops a base; call with c.mu held.
func (c *Cache) removeBase(el *list.Element) {
	e := el.Value.(*baseEntry)
	c.baseLRU.Remove(el)
	delete(c.bases, e.lane)
	c.baseBytes -= e.base.Size
}

// BaseBytes returns about how many bytes the bases hold.
func (c *Cache) BaseBytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.baseBytes
}

// CountExecution counts one execution of a shared answer: derived from
// its lane's base, or executed in full.
func (c *Cache) CountExecution(derived bool) {
	if derived {
		c.metrics.derived.Inc()
	} else {
		c.metrics.full.Inc()
	}
}

// FigureChanges returns what the events of the caller's account after
// position from up to position to changed, when they changed only
// figures (upstream.FigureChangesOf); ok is false otherwise, and when the
// log cannot tell (a gap, an error, more events than maxLogReads reads).
func (s *Scoper) FigureChanges(ctx context.Context, from, to int64) (upstream.FigureChanges, bool) {
	var events []upstream.Event
	for at, reads := from, 0; at < to; reads++ {
		got, err := s.log.Events(ctx, at, upstream.MaxEventsPerRead)
		if err != nil || reads == maxLogReads || len(got) == 0 || got[0].Position != at+1 {
			return upstream.FigureChanges{}, false
		}
		for _, e := range got {
			if e.Position > to {
				break
			}
			if e.Position != at+1 {
				return upstream.FigureChanges{}, false
			}
			events = append(events, e)
			at = e.Position
		}
	}
	return upstream.FigureChangesOf(events)
}
