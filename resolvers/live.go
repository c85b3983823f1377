package resolvers

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/okrgate/okrgate/upstream"
)

// Defaults of Live. docs/graphql.md ("Subscriptions") says why.
const (
	DefaultLiveBuffer      = 64               // items waiting to be written, per subscription
	DefaultMaxSubsPerConn  = 20               // subscriptions on one connection
	DefaultMaxSubsPerToken = 100              // subscriptions of one token, over all its connections
	DefaultLivePoll        = 10 * time.Second // reads of the log without a wake: a fallback (other processes' writes wake by LISTEN/NOTIFY on PostgreSQL)
	DefaultReauth          = 30 * time.Second // re-authentication of an idle subscription
	DefaultLivePing        = 15 * time.Second // keep-alive pings
	DefaultWriteGrace      = 10 * time.Second // a closed slow consumer's time to take its close frame
)

// Error codes of subscriptions (extensions.code).
const (
	CodeTooManySubscriptions = "TOO_MANY_SUBSCRIPTIONS"
	CodeSlowConsumer         = "SLOW_CONSUMER"
)

// Live serves subscriptions from the event log: each subscription reads the
// log of its account by position, from the position it was given or the
// head, woken by the store after every commit that appended events and
// polling besides (so writes of other processes on the same database are
// seen); it keeps the events its filter selects and re-reads each item as
// the subscriber. Nothing is held per event beyond a subscription's buffer:
// the log is the queue.
type Live struct {
	Log          upstream.EventLog
	Auth         upstream.AuthService
	Buffer       int           // DefaultLiveBuffer
	MaxPerConn   int           // DefaultMaxSubsPerConn
	MaxPerToken  int           // DefaultMaxSubsPerToken
	Poll         time.Duration // DefaultLivePoll
	Reauth       time.Duration // DefaultReauth
	PingInterval time.Duration // DefaultLivePing
	// WriteGrace is how long a connection closed as a slow consumer may
	// take to read what was written before its close frame; then it is
	// dropped without one. DefaultWriteGrace.
	WriteGrace time.Duration

	slow      atomic.Int64 // subscriptions ended as slow consumers
	active    atomic.Int64 // subscriptions open
	delivered atomic.Int64 // items sent to subscribers

	mu      sync.Mutex
	byToken map[string]int // open subscriptions per token
}

func (l *Live) defaults() {
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
// request): its token, its subscriptions, and how to end it.
type liveConn struct {
	token string
	mu    sync.Mutex
	subs  int
	// kill ends the connection with a close code and reason (websocket) or
	// ends the response (SSE).
	kill func(code int, reason string)
}

type liveConnKey struct{}

func withLiveConn(ctx context.Context, c *liveConn) context.Context {
	return context.WithValue(ctx, liveConnKey{}, c)
}

func liveConnOf(ctx context.Context) *liveConn {
	c, _ := ctx.Value(liveConnKey{}).(*liveConn)
	return c
}

// positions carries the log position of each item a subscription sends to
// its response, in order, so every response can name its position
// (extensions.position).
type positions struct {
	mu sync.Mutex
	q  []int64
}

func (p *positions) push(pos int64) {
	p.mu.Lock()
	p.q = append(p.q, pos)
	p.mu.Unlock()
}

func (p *positions) pop() (int64, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.q) == 0 {
		return 0, false
	}
	pos := p.q[0]
	p.q = p.q[1:]
	return pos, true
}

type positionsKey struct{}

// errNoLive is the error of a subscription on a server without an event
// log (gateway mode).
var errNoLive = liveError(CodeBadRequest, "subscriptions are not served here: this server has no event log (gateway mode)")

// acquire counts a new subscription against the connection's and the
// token's limits; release undoes it.
func (l *Live) acquire(c *liveConn) error {
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
	if l.byToken[c.token] >= l.MaxPerToken {
		return liveError(CodeTooManySubscriptions, "at most %d subscriptions per token", l.MaxPerToken)
	}
	l.byToken[c.token]++
	c.subs++
	l.active.Add(1)
	return nil
}

func (l *Live) release(c *liveConn) {
	l.active.Add(-1)
	c.mu.Lock()
	c.subs--
	c.mu.Unlock()
	l.mu.Lock()
	if l.byToken[c.token]--; l.byToken[c.token] <= 0 {
		delete(l.byToken, c.token)
	}
	l.mu.Unlock()
}

func liveError(code, format string, args ...any) *gqlerror.Error {
	err := gqlerror.Errorf(format, args...)
	err.Extensions = map[string]any{"code": code}
	return err
}

// stream starts a subscription: events after `after` (0: from the oldest
// kept; nil: from the head, what happens from now on)
// that match, each loaded as the subscriber by load (which returns false
// for an item the subscriber may not read, or that is gone), sent on the
// returned channel. It ends when ctx ends, when the token stops
// authenticating (revoked, user deactivated, account suspended), or when
// the subscriber falls a whole buffer behind (a slow consumer: the
// connection is closed with that reason).
func stream[T any](ctx context.Context, l *Live, after *int, match func(upstream.Event) bool,
	load func(context.Context, upstream.Event) (*T, bool, error)) (<-chan *T, error) {
	if l == nil || l.Log == nil {
		return nil, errNoLive
	}
	c := liveConnOf(ctx)
	if c == nil {
		return nil, liveError(CodeBadRequest, "subscriptions need a websocket (graphql-transport-ws) or a text/event-stream request")
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
	pq, _ := ctx.Value(positionsKey{}).(*positions)
	out := make(chan *T, l.Buffer)
	go func() {
		defer close(out)
		defer l.release(c)
		lastAuth := time.Now()
		poll := time.NewTicker(l.Poll)
		defer poll.Stop()
		for {
			wake := l.Log.EventsChanged()
			evs, err := l.Log.Events(ctx, pos, upstream.MaxEventsPerRead)
			if err != nil {
				return // ctx ended, or the store is failing: the client resumes from its last position
			}
			if len(evs) > 0 || time.Since(lastAuth) >= l.Reauth {
				if !l.stillAuthorized(ctx, c) {
					c.kill(4403, "the token no longer authenticates")
					return
				}
				lastAuth = time.Now()
			}
			for _, e := range evs {
				pos = e.Position
				if !match(e) {
					continue
				}
				item, ok, err := load(ctx, e)
				if err != nil || !ok {
					continue // not readable by the subscriber (or gone): nothing about it is sent
				}
				if pq != nil {
					pq.push(e.Position)
				}
				select {
				case out <- item:
					l.delivered.Add(1)
				default:
					l.slow.Add(1)
					c.kill(4008, fmt.Sprintf("slow consumer: more than %d updates unread", l.Buffer))
					return
				}
			}
			if len(evs) == upstream.MaxEventsPerRead {
				continue
			}
			select {
			case <-ctx.Done():
				return
			case <-wake:
			case <-poll.C:
			}
		}
	}()
	return out, nil
}

// SlowConsumers returns how many subscriptions were ended because their
// consumer fell a whole buffer behind.
func (l *Live) SlowConsumers() int64 { return l.slow.Load() }

// Active returns how many subscriptions are open.
func (l *Live) Active() int64 { return l.active.Load() }

// Delivered returns how many items were sent to subscribers.
func (l *Live) Delivered() int64 { return l.delivered.Load() }

// stillAuthorized re-authenticates the connection's token.
func (l *Live) stillAuthorized(ctx context.Context, c *liveConn) bool {
	if l.Auth == nil || c.token == "" {
		return true
	}
	_, err := l.Auth.Authenticate(ctx, c.token)
	return err == nil
}

// liveResponses wraps each response of a subscription: fresh loaders for
// it (items are read anew, never from an earlier event's cache), and the
// log position of its item in extensions.position.
func liveResponses(api upstream.API) graphql.ResponseMiddleware {
	return func(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
		oc := graphql.GetOperationContext(ctx)
		if oc == nil || oc.Operation == nil || oc.Operation.Operation != "subscription" {
			return next(ctx)
		}
		resp := next(WithLoaders(ctx, NewLoaders(api)))
		if pq, _ := ctx.Value(positionsKey{}).(*positions); pq != nil && resp != nil {
			if pos, ok := pq.pop(); ok {
				if resp.Extensions == nil {
					resp.Extensions = map[string]any{}
				}
				resp.Extensions["position"] = pos
			}
		}
		return resp
	}
}

// liveOperations gives each subscription its positions queue.
func liveOperations(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	oc := graphql.GetOperationContext(ctx)
	if oc != nil && oc.Operation != nil && oc.Operation.Operation == "subscription" {
		ctx = context.WithValue(ctx, positionsKey{}, &positions{})
	}
	return next(ctx)
}
