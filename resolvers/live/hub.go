// Package live serves GraphQL subscriptions from the event log: the
// fan-out that reads each event's item once per group of subscribers with
// the same view and visibility class (fanout.go), the re-authentication of
// their tokens (rights.go), and the websocket (graphql-transport-ws, with
// package graphqlws) and server-sent events transports of a gqlgen server
// (transport.go). Install adds them to a server; the subscription
// resolvers start their streams with Stream.
package live

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/okrgate/okrgate/upstream"
)

// Defaults of Hub. docs/graphql-live.md ("Subscriptions") says why.
const (
	DefaultLiveBuffer      = 64               // items waiting to be written, per subscription
	DefaultMaxSubsPerConn  = 20               // subscriptions on one connection
	DefaultMaxSubsPerToken = 100              // subscriptions of one token, over all its connections
	DefaultLivePoll        = 10 * time.Second // reads of the log without a wake: a fallback (other processes' writes wake by LISTEN/NOTIFY on PostgreSQL)
	DefaultReauth          = 30 * time.Second // re-authentication of an idle subscription
	DefaultLivePing        = 15 * time.Second // keep-alive pings
	DefaultWriteGrace      = 10 * time.Second // a closed slow consumer's time to take its close frame
)

// Error codes of subscriptions (extensions.code), from the error table
// (upstream.Codes).
var (
	CodeBadRequest           = upstream.CodeMalformedRequest.GraphQL()
	CodeTooManySubscriptions = upstream.CodeTooManySubscriptions.GraphQL()
	CodeSlowConsumer         = upstream.CodeSlowConsumer.GraphQL()
)

// Hub serves subscriptions from the event log: one reader per account
// reads the account's log by position, woken by the store after every
// commit that appended events and polling besides (so writes of other
// processes on the same database are seen), and fans each event out to the
// subscriptions whose filter selects it, reading its item once per group
// of subscriptions with the same view and visibility class, judged as they
// are at that moment (live_fanout.go). Nothing is held per event beyond a
// subscription's buffer: the log is the queue.
type Hub struct {
	Log upstream.EventLog
	// Classes, when set, sorts the subscribers of a batch of events into
	// visibility classes, so that each class reads the changed items once
	// (the local store: *sqlstore.Store); nil makes each user and roles a
	// class of its own, which is correct and only shares less.
	Classes      upstream.VisibilityClasser
	Auth         upstream.CredentialAuth
	Buffer       int           // DefaultLiveBuffer
	MaxPerConn   int           // DefaultMaxSubsPerConn
	MaxPerToken  int           // DefaultMaxSubsPerToken
	Poll         time.Duration // DefaultLivePoll
	Reauth       time.Duration // DefaultReauth
	PingInterval time.Duration // DefaultLivePing
	// InitTimeout is how long a websocket may wait before its
	// connection_init: then it is closed with 4408
	// (graphqlws.DefaultInitTimeout).
	InitTimeout time.Duration
	// WriteGrace is how long a connection closed as a slow consumer may
	// take to read what was written before its close frame; then it is
	// dropped without one. DefaultWriteGrace.
	WriteGrace time.Duration
	// AllowOrigin reports whether a browser page of another origin than
	// the server's may open a websocket (graphqlws.Transport.AllowOrigin;
	// nil: the server's own origin only). Over SSE the request is an
	// ordinary cross-origin POST, governed by CORS.
	AllowOrigin func(origin string) bool

	// scope returns a fresh Scope for a rendering (Install).
	scope func() Scope

	slow      atomic.Int64 // subscriptions ended as slow consumers
	active    atomic.Int64 // subscriptions open
	delivered atomic.Int64 // items sent to subscribers
	reads     atomic.Int64 // items read for groups of subscribers
	joined    atomic.Int64 // subscriptions served by their account's reader

	ops sync.Map // *graphql.OperationContext → *liveOp, while a subscription's operation lasts

	mu      sync.Mutex
	byToken map[string]int     // open subscriptions per token
	fanouts map[string]*fanout // by account
}

// Scope adds to a context what the resolvers render with besides the
// caller (their loaders). A fresh one is made for each query and mutation;
// the renderings of one item for one group of subscribers share one.
type Scope func(context.Context) context.Context

// Install serves subscriptions of h on srv: the websocket transport
// (graphql-transport-ws and the legacy graphql-ws; connections closed
// after lifetime, 0: DefaultMaxConnLifetime) and the SSE transport, both
// before any other transport, which would take an SSE request (a JSON
// POST) as a plain one, and the operation and response middleware that
// bind each subscription to its stream. newScope makes the Scope of a
// rendering. Install fills in the defaults of h's zero fields; auth, when
// h.Auth is nil, re-authenticates the streams' tokens, each in the account
// its connection opened in.
func (l *Hub) Install(srv *handler.Server, auth upstream.CredentialAuth, newScope func() Scope, lifetime time.Duration) {
	if l.Auth == nil {
		l.Auth = auth
	}
	l.defaults()
	if newScope == nil {
		newScope = func() Scope { return func(ctx context.Context) context.Context { return ctx } }
	}
	l.scope = newScope
	srv.AddTransport(websocketTransport(l, lifetime))
	srv.AddTransport(sseTransport(l))
	srv.AroundOperations(l.operations)
	srv.AroundResponses(l.responses)
}

func (l *Hub) defaults() {
	if l.Buffer <= 0 {
		l.Buffer = DefaultLiveBuffer
	}
	if l.MaxPerConn <= 0 {
		l.MaxPerConn = DefaultMaxSubsPerConn
	}
	if l.MaxPerToken <= 0 {
		l.MaxPerToken = DefaultMaxSubsPerToken
	}
	if l.Poll <= 0 {
		l.Poll = DefaultLivePoll
	}
	if l.Reauth <= 0 {
		l.Reauth = DefaultReauth
	}
	if l.PingInterval <= 0 {
		l.PingInterval = DefaultLivePing
	}
	if l.WriteGrace <= 0 {
		l.WriteGrace = DefaultWriteGrace
	}
}

// liveConn is the state of one live connection (a websocket or an SSE
// request): its token and the account it opened in, its subscriptions,
// and how to end it.
type liveConn struct {
	cred upstream.Credential
	mu   sync.Mutex
	subs int
	// kill ends the connection with a close code and reason (websocket) or
	// ends the response (SSE).
	kill func(code int, reason string)
	// checked, when set, is told that the token authenticated now (the
	// fan-out's check of a batch), so the connection's own idle check
	// waits (wsRights.markChecked).
	checked func()
}

// deliveries carries, in order, what goes with each item a subscription
// sends to its channel (delivery): the response that renders the item
// waits for its entry, renders in its Scope and as its caller, and names its
// position (extensions.position).
type deliveries struct {
	mu     sync.Mutex
	q      []delivery
	ready  chan struct{} // closed when q gets an entry or the queue closes
	closed bool
	// take receives the next item from the subscription's channel
	// without rendering it: its group's rendering is reused.
	take func()
}

func newDeliveries() *deliveries { return &deliveries{ready: make(chan struct{})} }

func (p *deliveries) push(d delivery) {
	p.mu.Lock()
	p.q = append(p.q, d)
	if len(p.q) == 1 && !p.closed {
		close(p.ready)
	}
	p.mu.Unlock()
}

// close wakes a waiting response for good: the subscription ended.
func (p *deliveries) close() {
	p.mu.Lock()
	if !p.closed && len(p.q) == 0 {
		close(p.ready)
	}
	p.closed = true
	p.mu.Unlock()
}

// wait returns the entry of the next item, without removing it, once
// there is one; false when the queue closed empty or ctx ended.
func (p *deliveries) wait(ctx context.Context) (delivery, bool) {
	p.mu.Lock()
	ready := p.ready
	p.mu.Unlock()
	select {
	case <-ready:
	case <-ctx.Done():
		return delivery{}, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.q) == 0 {
		return delivery{}, false
	}
	return p.q[0], true
}

// pop removes the entry wait returned.
func (p *deliveries) pop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.q) == 0 {
		return
	}
	p.q[0] = delivery{}
	p.q = p.q[1:]
	if len(p.q) == 0 && !p.closed {
		p.ready = make(chan struct{})
	}
}

// errNoLive is the error of a subscription on a server without an event
// log (gateway mode).
var errNoLive = liveError(CodeBadRequest, "subscriptions are not served here: this server has no event log (gateway mode)")

// acquire counts a new subscription against the connection's and the
// token's limits; release undoes it.
func (l *Hub) acquire(c *liveConn) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.subs >= l.MaxPerConn {
		return liveError(CodeTooManySubscriptions, "at most %d subscriptions per connection", l.MaxPerConn)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.byToken == nil {
		l.byToken = map[string]int{}
	}
	if l.byToken[c.cred.Token] >= l.MaxPerToken {
		return liveError(CodeTooManySubscriptions, "at most %d subscriptions per token", l.MaxPerToken)
	}
	l.byToken[c.cred.Token]++
	c.subs++
	l.active.Add(1)
	return nil
}

func (l *Hub) release(c *liveConn) {
	l.active.Add(-1)
	c.mu.Lock()
	c.subs--
	c.mu.Unlock()
	l.mu.Lock()
	if l.byToken[c.cred.Token]--; l.byToken[c.cred.Token] <= 0 {
		delete(l.byToken, c.cred.Token)
	}
	l.mu.Unlock()
}

func liveError(code, format string, args ...any) *gqlerror.Error {
	err := gqlerror.Errorf(format, args...)
	err.Extensions = map[string]any{"code": code}
	return err
}

// Stream starts a subscription of l: events after `after` (0: from the
// oldest kept; nil: from the head, what happens from now on) that match,
// loaded by load as the subscriber's group — the items of a read of the
// log at once, so that a store call reads one kind of item for the whole
// batch (ok false for an item the group may not read, or that is gone) —
// and sent on the returned channel. Its
// nested fields render in one Scope per item and group. It
// ends when ctx ends, when the token stops authenticating (revoked, user
// deactivated, account suspended), or when the subscriber falls a whole
// buffer behind (a slow consumer: the connection is closed with that
// reason).
func Stream[T any](ctx context.Context, l *Hub, after *int, match func(upstream.Event) bool,
	load func(ctx context.Context, evs []upstream.Event) (items []*T, ok []bool)) (<-chan *T, error) {
	if l == nil || l.Log == nil {
		return nil, errNoLive
	}
	op := l.opOf(ctx)
	if op == nil {
		return nil, liveError(CodeBadRequest, "subscriptions need a websocket (graphql-transport-ws) or a text/event-stream request")
	}
	c := op.conn
	caller, err := upstream.MustCaller(ctx)
	if err != nil {
		return nil, err
	}
	if err := l.acquire(c); err != nil {
		return nil, err
	}
	var pos int64
	if after != nil { // 0: from the oldest event kept
		pos = max(int64(*after), 0)
	} else {
		head, err := l.Log.Head(ctx)
		if err != nil {
			l.release(c)
			return nil, err
		}
		pos = head
	}
	dq := op.dq
	buffer := l.Buffer
	if op.sink != nil {
		buffer = 1 // the fan-out renders an item as soon as it sends it
	}
	out := make(chan *T, buffer)
	dq.take = func() { <-out }
	var mu sync.Mutex
	closed := false
	s := &subscriber{ctx: ctx, conn: c, sink: op.sink, view: viewOf(ctx), match: match, pos: pos,
		load: func(ctx context.Context, evs []upstream.Event) ([]any, []bool) {
			items, ok := load(ctx, evs)
			out := make([]any, len(items))
			for k, it := range items {
				out[k] = it
			}
			return out, ok
		},
		send: func(item any, d delivery) bool {
			mu.Lock()
			defer mu.Unlock()
			if closed {
				return true
			}
			if len(out) == cap(out) {
				return false
			}
			dq.push(d)
			out <- item.(*T) // only the reader sends: there is room
			return true
		},
	}
	account := caller.AccountID
	var once sync.Once
	end := func() {
		once.Do(func() {
			l.leave(s, account)
			mu.Lock()
			closed = true
			close(out)
			mu.Unlock()
			dq.close()
			l.release(c)
			if s.sink != nil && ctx.Err() == nil {
				s.sink.End() // ended here: the client is told
			}
		})
	}
	if s.sink != nil {
		s.sink.Drive() // the fan-out renders and writes its items
	}
	context.AfterFunc(ctx, end)
	go func() {
		// Catching up from an older position reads the log alone: not in
		// the resolver, whose caller has yet to read the channel. A log
		// that cannot be read ends the subscription; the client resumes
		// from its last position.
		if err := l.join(s, account); err != nil || ctx.Err() != nil {
			end()
		}
	}()
	return out, nil
}

// viewOf names what a subscription renders: its operation's text and name
// and its variables, without a variable used only as the after argument
// (subscriptions resuming from different positions share a view once they
// have caught up).
func viewOf(ctx context.Context) string {
	oc := graphql.GetOperationContext(ctx)
	if oc == nil {
		return ""
	}
	vars := oc.Variables
	if fc := graphql.GetFieldContext(ctx); fc != nil && fc.Field.Field != nil {
		if a := fc.Field.Arguments.ForName("after"); a != nil && a.Value != nil && a.Value.Kind == ast.Variable &&
			strings.Count(oc.RawQuery, "$"+a.Value.Raw) == 2 { // its declaration and this use
			vars = maps.Clone(vars)
			delete(vars, a.Value.Raw)
		}
	}
	b, _ := json.Marshal(vars) // map keys sorted
	return oc.OperationName + "\x00" + oc.RawQuery + "\x00" + string(b)
}

// SlowConsumers returns how many subscriptions were ended because their
// consumer fell a whole buffer behind.
func (l *Hub) SlowConsumers() int64 { return l.slow.Load() }

// Active returns how many subscriptions are open.
func (l *Hub) Active() int64 { return l.active.Load() }

// Delivered returns how many items were sent to subscribers.
func (l *Hub) Delivered() int64 { return l.delivered.Load() }

// Joined returns how many subscriptions are served by their account's
// reader (the others are starting, or catching up from an older position).
func (l *Hub) Joined() int64 { return l.joined.Load() }

// ItemReads returns how many items were read for groups of subscribers
// (one per event and group its filter selects).
func (l *Hub) ItemReads() int64 { return l.reads.Load() }

// responses wraps each response of a subscription: it waits for the next
// item's delivery, renders it in the Scope the item's group shares and as
// the subscriber's caller as it was when the item was read, with a fresh
// memo (nothing derived for an earlier event is reused), and names the
// item's log position in extensions.position. An item sent otherwise
// (without a group's Scope) renders in a fresh one. Queries and mutations
// pass through: their transport gave them their Scope.
func (l *Hub) responses(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	oc := graphql.GetOperationContext(ctx)
	if oc == nil || oc.Operation == nil || oc.Operation.Operation != "subscription" {
		return next(ctx)
	}
	op := l.opOf(ctx)
	if op == nil || op.dq == nil {
		return next(l.scope()(ctx))
	}
	dq := op.dq
	d, ok := dq.wait(ctx)
	if !ok {
		return next(ctx) // the channel is closed or the context ended: the end of the stream
	}
	defer dq.pop()
	render := func() *graphql.Response {
		rctx := upstream.WithMemo(ctx)
		if d.caller.AccountID != "" {
			rctx = upstream.NewContext(rctx, d.caller)
		}
		if d.scope == nil {
			d.scope = l.scope()
		}
		resp := next(d.scope(rctx))
		if resp != nil {
			if resp.Extensions == nil {
				resp.Extensions = map[string]any{}
			}
			resp.Extensions["position"] = d.pos
		}
		return resp
	}
	if d.shared == nil {
		return render()
	}
	// The group's first subscriber here renders; the others send the
	// same data (same view, same class, same item: the same answer).
	d.shared.mu.Lock()
	defer d.shared.mu.Unlock()
	if r := d.shared.resp; r != nil {
		dq.take()
		return &graphql.Response{Data: r.Data, Errors: r.Errors, Extensions: map[string]any{"position": d.pos}}
	}
	resp := render()
	if resp != nil {
		// A subscription's data is written into a buffer it reuses
		// for its next response: the group keeps a copy.
		d.shared.resp = &graphql.Response{Data: bytes.Clone(resp.Data), Errors: resp.Errors}
	}
	return resp
}

// sharedResponse is the rendering of one item for one group of
// subscribers, made by the first of them to render it.
type sharedResponse struct {
	mu   sync.Mutex
	resp *graphql.Response
}
