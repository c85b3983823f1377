package live

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/okrgate/okrgate/resolvers/live/graphqlws"
	"github.com/okrgate/okrgate/upstream"
)

// Fan-out: the subscriptions of one account in this process are served by
// one reader of the account's log (a fanout). After each read of new
// events (a batch) it re-authenticates every distinct token and derives
// every distinct caller's visibility class anew, groups the subscriptions
// by view (the operation's text and variables: the same selection and
// filter) and class, and reads each event's item once per group, as the
// group's first subscriber. On a websocket the group's first subscriber
// renders the item here (in a Scope the group shares), the response is
// encoded once, and every subscriber's connection queues the same bytes in
// its own message (graphqlws.Stream.SendAll) and is written at once, once
// per batch and group; over SSE every subscriber is sent the item and the first of them
// to render it renders it, the others sending the same data
// (Hub.responses). What a subscriber costs per event is its share of a
// write. docs/graphql-live.md ("Subscriptions") describes it and its limits.

// subscriber is one subscription in a fanout.
type subscriber struct {
	ctx  context.Context // the subscription's: values only are used by the reader
	conn *liveConn
	// sink is the subscription's websocket stream, which the fan-out
	// drives (nil over SSE: the transport reads the channel send fills).
	sink  *graphqlws.Stream
	view  string                    // the operation's text, name and variables
	match func(upstream.Event) bool // the subscription's filter
	// load reads the items of events as the caller of ctx, in one read
	// per kind of item; ok[k] false when it may not read the item of
	// evs[k] (or it is gone).
	load func(ctx context.Context, evs []upstream.Event) (items []any, ok []bool)
	// send queues an item without blocking; false when the buffer is full.
	send func(item any, d delivery) bool

	pos int64  // last position delivered or passed over; the reader's only once joined
	seq uint64 // order of joining its fanout: the oldest member reads the log
}

// delivery is what goes with an item to the response that renders it: its
// log position, the Scope its nested fields share with the item's
// group, and the subscriber's caller as it was when the item was read.
type delivery struct {
	pos    int64
	scope  Scope
	caller upstream.Caller
	shared *sharedResponse // the group's rendering of the item, once made
}

// fanout reads one account's log for the subscriptions of this process.
type fanout struct {
	l       *Hub
	account string
	cancel  context.CancelFunc

	mu   sync.Mutex
	pos  int64 // last position read
	seq  uint64
	subs map[*subscriber]struct{}
}

// join adds s to its account's fanout, starting one when there is none.
// The fanout delivers events after s.pos; when the fanout has already read
// past s.pos, s first catches up alone (reading the log itself) until it
// has not.
func (l *Hub) join(s *subscriber, account string) error {
	for {
		l.mu.Lock()
		f := l.fanouts[account]
		if f == nil {
			ctx, cancel := context.WithCancel(context.Background())
			f = &fanout{l: l, account: account, cancel: cancel, pos: s.pos, subs: map[*subscriber]struct{}{}}
			if l.fanouts == nil {
				l.fanouts = map[string]*fanout{}
			}
			l.fanouts[account] = f
			go f.run(ctx, s.ctx)
		}
		f.mu.Lock()
		caughtUp := f.pos <= s.pos
		if caughtUp {
			f.seq++
			s.seq = f.seq
			f.subs[s] = struct{}{}
			l.joined.Add(1)
		}
		f.mu.Unlock()
		l.mu.Unlock()
		if caughtUp {
			return nil
		}
		// Behind the fanout (a resume from an older position, or events
		// appended since the head was read): read alone up to it.
		evs, err := l.Log.Events(s.ctx, s.pos, upstream.MaxEventsPerRead)
		if err != nil {
			return err
		}
		if len(evs) == 0 {
			continue
		}
		if !l.deliver(s.ctx, evs, []*subscriber{s}) {
			return s.ctx.Err()
		}
	}
}

// leave removes s from its account's fanout; the last one out stops it.
func (l *Hub) leave(s *subscriber, account string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	f := l.fanouts[account]
	if f == nil {
		return
	}
	f.mu.Lock()
	if _, ok := f.subs[s]; ok {
		delete(f.subs, s)
		l.joined.Add(-1)
	}
	empty := len(f.subs) == 0
	f.mu.Unlock()
	if empty {
		delete(l.fanouts, account)
		f.cancel()
	}
}

// oldest returns the subscriber that joined the fanout first, or nil.
func (f *fanout) oldest() *subscriber {
	f.mu.Lock()
	defer f.mu.Unlock()
	var o *subscriber
	for s := range f.subs {
		if o == nil || s.seq < o.seq {
			o = s
		}
	}
	return o
}

// run reads the account's log by position, woken by the store after every
// commit that appended events and polling besides, and delivers each batch
// to the subscribers of the moment, until ctx ends (the last one left).
// first is the subscription that started it.
func (f *fanout) run(ctx context.Context, first context.Context) {
	l := f.l
	lastAuth := time.Now()
	// Idle, the subscribers' tokens are checked again at the first poll
	// after idleCheck: before their connections' own idle checks are due
	// (Reauth after this one, wsRights.watch), so that those need not run.
	idleCheck := l.Reauth - max(l.Reauth/4, l.Poll)
	poll := time.NewTicker(l.Poll)
	defer poll.Stop()
	// The first read follows the subscription's own authentication: no
	// idle check before the loop has waited once, however short idleCheck
	// is (it is not positive when Poll is as long as Reauth).
	waited := false
	for {
		wake := l.Log.EventsChanged()
		f.mu.Lock()
		pos := f.pos
		f.mu.Unlock()
		// Read as a subscriber of the moment, the oldest: every caller of
		// the account reads the same log, but an event whose item the
		// reader may not read may come without its type (a gateway's
		// upstream feed); deliver reads such events again as each group.
		if o := f.oldest(); o != nil {
			first = o.ctx
		}
		evs, err := l.Log.Events(valuesOnly{first, ctx}, pos, upstream.MaxEventsPerRead)
		if err == nil && (len(evs) > 0 || waited && time.Since(lastAuth) >= idleCheck) {
			// The batch goes to the subscribers of this moment; one that
			// joins later finds the fanout past the batch and reads it
			// alone (join).
			f.mu.Lock()
			subs := make([]*subscriber, 0, len(f.subs))
			for s := range f.subs {
				subs = append(subs, s)
			}
			if len(evs) > 0 {
				f.pos = evs[len(evs)-1].Position
			}
			f.mu.Unlock()
			lastAuth = time.Now() // deliver checks the rights first
			l.deliver(ctx, evs, subs)
		}
		if err == nil && len(evs) == upstream.MaxEventsPerRead {
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-wake:
		case <-poll.C:
		}
		waited = true
	}
}

// valuesOnly is a context with the values of one and the deadline and
// cancellation of another: the reader reads as a subscriber's caller for
// as long as the fanout lives.
type valuesOnly struct {
	values context.Context
	context.Context
}

func (v valuesOnly) Value(key any) any { return v.values.Value(key) }

// group is the subscribers of one view and visibility class in a batch.
type group struct {
	class  string // the visibility class
	subs   []*subscriber
	caller []upstream.Caller // each subscriber's, as authenticated now
}

// deliver sends the events evs (possibly none: a re-authentication only)
// to subs: it authenticates each distinct token again (ending the
// connections whose token no longer authenticates with 4403), derives the
// visibility classes, then reads each matching event's item once per
// group and sends it to the group's subscribers that have not seen it. It
// returns false when ctx ended.
func (l *Hub) deliver(ctx context.Context, evs []upstream.Event, subs []*subscriber) bool {
	if len(subs) == 0 {
		return ctx.Err() == nil
	}
	callers, who := l.authenticate(ctx, subs)
	if len(evs) == 0 {
		return ctx.Err() == nil
	}
	groups := l.group(ctx, subs, callers, who)
	last := evs[len(evs)-1].Position
	var hidden *revealer
	if slices.ContainsFunc(evs, func(e upstream.Event) bool { return e.Type == "" }) {
		hidden = &revealer{l: l, evs: evs, byClass: map[string]*revealed{}}
	}
	work := make(chan *group)
	var wg sync.WaitGroup
	for range min(len(groups), 2*runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for g := range work {
				gevs := evs
				if hidden != nil {
					var err error
					if gevs, err = hidden.reveal(ctx, g); err != nil {
						for _, s := range g.subs {
							s.conn.kill(4500, "the event log could not be read")
						}
						continue
					}
				}
				l.deliverGroup(ctx, g, gevs)
			}
		}()
	}
	for _, g := range groups {
		work <- g
	}
	close(work)
	wg.Wait()
	for _, s := range subs {
		s.pos = max(s.pos, last)
	}
	return ctx.Err() == nil
}

// deliverGroup reads each event of evs the group's view selects, once, as
// its first subscriber, and sends it to each subscriber that has not seen
// it; a subscriber whose buffer is full is ended as a slow consumer. Over
// SSE each item is sent as it is read; on websockets each item is rendered
// once, and then each subscriber's connection queues all the batch's items
// it has not seen in one turn (graphqlws.Stream.SendAll) and writes them.
func (l *Hub) deliverGroup(ctx context.Context, g *group, evs []upstream.Event) {
	rep := g.subs[0]
	rctx := upstream.WithMemo(upstream.NewContext(valuesOnly{rep.ctx, ctx}, g.caller[0]))
	gone := map[*subscriber]bool{}
	items, oks := l.loadAll(rctx, rep, evs)
	// The items rendered for the group's websockets, in log order.
	var positions []int64
	var payloads [][]byte
	for k, e := range evs {
		item, ok := items[k], oks[k]
		if !ok {
			continue // not selected, not readable by the group (or gone): nothing about it is sent
		}
		scope, shared := l.scope(), &sharedResponse{}
		var payload []byte // the item rendered for the group's websockets, once
		for i, s := range g.subs {
			if gone[s] || e.Position <= s.pos {
				continue
			}
			d := delivery{pos: e.Position, scope: scope, caller: g.caller[i], shared: shared}
			if s.sink != nil {
				if payload == nil {
					payload = s.render(item, d) // nil: it ended, the next renders
				}
				continue
			}
			if !s.send(item, d) {
				gone[s] = true
				l.slowConsumer(s)
				continue
			}
			l.delivered.Add(1)
		}
		if payload != nil {
			positions = append(positions, e.Position)
			payloads = append(payloads, payload)
		}
	}
	if len(payloads) == 0 {
		return
	}
	for _, s := range g.subs {
		if s.sink == nil {
			continue
		}
		// The items after the subscriber's position: a suffix.
		k, _ := slices.BinarySearch(positions, s.pos+1)
		if k == len(payloads) {
			continue
		}
		n, ok := s.sink.SendAll(payloads[k:])
		l.delivered.Add(int64(n))
		if !ok {
			l.slowConsumer(s)
			continue
		}
		// Written now, in one write for the group's items of the batch:
		// the connection's buffer goes back to the pool for the next
		// subscriber's, so a batch holds a few buffers, not one per
		// connection until the group is done.
		s.sink.Flush()
	}
}

// loadAll reads, as rep, the item of each event of evs its view selects
// (ok[k] false for an event it does not select, or whose item it may not
// read): all of them in one call of the subscription's load, which reads
// each kind of item once for the batch — the batch of one check-in at the
// leaf of a deep chain has an event per level, one read, not one per
// level.
func (l *Hub) loadAll(ctx context.Context, rep *subscriber, evs []upstream.Event) (items []any, ok []bool) {
	items, ok = make([]any, len(evs)), make([]bool, len(evs))
	var at []int
	var sel []upstream.Event
	for k, e := range evs {
		if rep.match(e) {
			at, sel = append(at, k), append(sel, e)
		}
	}
	if len(sel) == 0 {
		return items, ok
	}
	l.reads.Add(int64(len(sel)))
	got, gotOK := rep.load(ctx, sel)
	for i, k := range at {
		if i < len(got) && i < len(gotOK) {
			items[k], ok[k] = got[i], gotOK[i]
		}
	}
	return items, ok
}

// slowConsumer ends s's connection: its client has not read a whole
// buffer of updates.
func (l *Hub) slowConsumer(s *subscriber) {
	l.slow.Add(1)
	s.conn.kill(4008, fmt.Sprintf("slow consumer: more than %d updates unread", l.Buffer))
}

// render renders item for s's websocket stream, as the subscriber of d,
// and returns the encoded payload; nil when the subscription has ended.
// What its connection sends is Send's copy around the payload: the group's
// other subscribers send the same bytes.
func (s *subscriber) render(item any, d delivery) []byte {
	d.shared = nil // rendered here, once for the group
	if !s.send(item, d) {
		return nil
	}
	resp := s.sink.Render()
	if resp == nil {
		return nil
	}
	b, err := graphqlws.Payload(resp)
	if err != nil {
		return nil
	}
	return b
}

// authenticate authenticates the distinct credentials of subs again (each
// token in the account its connection opened in), in one call for the
// batch (upstream.CredentialAuth.AuthenticateManyIn), and returns each
// subscriber's caller. A subscriber whose token no longer authenticates
// there (revoked, expired, user deactivated, account suspended, another
// account)
// has its connection ended with 4403 and no caller (its AccountID empty);
// when the rights could not be checked (the store or the upstream
// failing) its connection ends with 4500 and no caller either: nothing is
// delivered on rights not checked. Without an AuthService (or a token), a
// subscriber keeps the caller it subscribed with. who names each
// subscriber's identity: subscribers of one credential share one (their
// callers are the same), each subscriber without a token has its own.
func (l *Hub) authenticate(ctx context.Context, subs []*subscriber) (out []upstream.Caller, who []int) {
	out = make([]upstream.Caller, len(subs))
	who = make([]int, len(subs))
	at := map[upstream.Credential]int{} // a credential: its index in creds
	var creds []upstream.Credential
	var first *subscriber // the first with a token: its context's values are used
	for i, s := range subs {
		who[i] = -1
		if l.Auth == nil || s.conn.cred.Token == "" {
			out[i], _ = upstream.CallerFrom(s.ctx)
			continue
		}
		k, ok := at[s.conn.cred]
		if !ok {
			k = len(creds)
			at[s.conn.cred] = k
			creds = append(creds, s.conn.cred)
		}
		who[i] = k
		if first == nil {
			first = s
		}
	}
	next := len(creds)
	for i := range who {
		if who[i] < 0 {
			who[i] = next
			next++
		}
	}
	if len(creds) == 0 {
		return out, who
	}
	res, err := l.Auth.AuthenticateManyIn(valuesOnly{first.ctx, ctx}, creds)
	for i, s := range subs {
		if who[i] >= len(creds) {
			continue // no token
		}
		a := upstream.Authentication{Err: err}
		if err == nil {
			a = res[who[i]]
		}
		switch {
		case a.Err == nil:
			out[i] = a.Caller
			if s.conn.checked != nil {
				s.conn.checked()
			}
		case refused(a.Err):
			s.conn.kill(CloseForbidden, "the token no longer authenticates: "+upstream.ErrorMessage(a.Err))
		default:
			s.conn.kill(4500, "the token could not be checked")
		}
	}
	return out, who
}

// group sorts the authenticated subscribers into groups of one view and
// one visibility class (l.Classes when set, else the caller's user and
// roles). who names each subscriber's identity (authenticate): the class
// is derived once per identity, not per subscriber.
func (l *Hub) group(ctx context.Context, subs []*subscriber, callers []upstream.Caller, who []int) []*group {
	type userKey struct{ account, user, roles string }
	keyOf := func(c upstream.Caller) userKey {
		return userKey{c.AccountID, c.UserID, strings.Join(c.Roles, ",")}
	}
	// The class of each identity, by way of its user key: identities of
	// one user and roles (several tokens of one user) share a class.
	keys := make([]userKey, len(subs)) // by identity: at most one per subscriber
	seen := make([]bool, len(subs))
	classOf := map[userKey]string{}
	var distinct []upstream.Caller
	for i, c := range callers {
		if c.AccountID == "" || seen[who[i]] {
			continue
		}
		seen[who[i]] = true
		k := keyOf(c)
		keys[who[i]] = k
		if _, ok := classOf[k]; !ok {
			classOf[k] = k.account + "/" + k.user + "/" + k.roles
			distinct = append(distinct, c)
		}
	}
	if vc := l.Classes; vc != nil && len(distinct) > 0 {
		cctx := upstream.NewContext(valuesOnly{subs[0].ctx, ctx}, distinct[0])
		if classes, err := vc.VisibilityClasses(cctx, distinct); err == nil {
			for i, c := range distinct {
				classOf[keyOf(c)] = classes[i]
			}
		}
		// On an error each caller stays a class of its own: correct, only
		// shared less.
	}
	type groupKey struct{ view, class string }
	byKey := map[groupKey]*group{}
	var out []*group
	for i, s := range subs {
		c := callers[i]
		if c.AccountID == "" {
			continue // refused: its connection is ending
		}
		class := classOf[keys[who[i]]]
		k := groupKey{s.view, class}
		g := byKey[k]
		if g == nil {
			g = &group{class: class}
			byKey[k] = g
			out = append(out, g)
		}
		g.subs = append(g.subs, s)
		g.caller = append(g.caller, c)
	}
	return out
}
