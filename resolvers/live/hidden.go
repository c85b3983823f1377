package live

import (
	"context"
	"fmt"
	"sync"

	"github.com/okrgate/okrgate/upstream"
)

// A fanout reads its account's log as one subscriber. A log that judges
// its reader (a gateway's upstream event feed, upstream/backend/client) gives an
// event whose item that subscriber may not read only as its position: an
// Event without a type, which no subscription selects. Another group may
// read that item (an admin's, when the reader is a viewer), so before a
// batch with such events goes to a group, the revealer reads the hidden
// positions again as the group's caller, once per visibility class and
// batch. A log that does not judge its reader (the stores) never gives
// such events, and costs nothing here.

// revealer reads the hidden events of one batch again for each visibility
// class that receives the batch.
type revealer struct {
	l   *Hub
	evs []upstream.Event // the batch as the fanout read it

	mu      sync.Mutex
	byClass map[string]*revealed
}

// revealed is the batch as one visibility class reads it.
type revealed struct {
	once sync.Once
	evs  []upstream.Event
	err  error
}

// reveal returns the batch with its hidden events read again as g's first
// subscriber's caller: those the group's class may read come with their
// type, the others stay hidden.
func (r *revealer) reveal(ctx context.Context, g *group) ([]upstream.Event, error) {
	r.mu.Lock()
	v := r.byClass[g.class]
	if v == nil {
		v = &revealed{}
		r.byClass[g.class] = v
	}
	r.mu.Unlock()
	v.once.Do(func() {
		rctx := upstream.NewContext(valuesOnly{g.subs[0].ctx, ctx}, g.caller[0])
		v.evs, v.err = r.read(rctx)
	})
	return v.evs, v.err
}

// read reads the log from the first hidden position to the batch's last as
// the caller of ctx and returns the batch with its hidden events replaced
// by what it read at their positions.
func (r *revealer) read(ctx context.Context) ([]upstream.Event, error) {
	hidden := map[int64]int{} // position → index in r.evs
	after := int64(-1)
	for i, e := range r.evs {
		if e.Type == "" {
			hidden[e.Position] = i
			if after < 0 {
				after = e.Position - 1
			}
		}
	}
	out := append([]upstream.Event(nil), r.evs...)
	last := r.evs[len(r.evs)-1].Position
	for after < last {
		evs, err := r.l.Log.Events(ctx, after, upstream.MaxEventsPerRead)
		if err != nil {
			return nil, fmt.Errorf("reading hidden events after position %d again: %w", after, err)
		}
		if len(evs) == 0 {
			break
		}
		for _, e := range evs {
			if i, ok := hidden[e.Position]; ok {
				out[i] = e
			}
		}
		after = evs[len(evs)-1].Position
	}
	return out, nil
}
