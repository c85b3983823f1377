package observe

import (
	"context"
	"sync"
	"sync/atomic"
)

// A Record is what one request's access-log line and metrics say about it.
// The stack creates it; the facades, the upstream decorator and the store
// add to it through the request's context. It is safe for concurrent use
// (GraphQL resolves fields in parallel).
type Record struct {
	// RequestID is the request's id (X-Request-Id), set by the stack.
	RequestID string

	upstreamCalls atomic.Int64
	sqlStatements atomic.Int64
	sqlRoundTrips atomic.Int64

	mu        sync.Mutex
	facade    string // "rest", "graphql", or "" for the server's own pages
	route     string // REST: the route pattern; else the router's pattern
	operation string // GraphQL: the operation name
	account   string
	user      string
	err       error // the cause of a server error, logged on the access line
	closed    bool  // the client went away before the answer
}

type recordKey struct{}

// NewContext returns a copy of ctx carrying rec.
func NewContext(ctx context.Context, rec *Record) context.Context {
	return context.WithValue(ctx, recordKey{}, rec)
}

// FromContext returns the Record of the request of ctx, or nil outside a
// request served through the stack. Every method of a nil *Record does
// nothing, so callers need not check.
func FromContext(ctx context.Context) *Record {
	rec, _ := ctx.Value(recordKey{}).(*Record)
	return rec
}

// RequestID returns the id of the request of ctx, or "" outside one.
func RequestID(ctx context.Context) string {
	if rec := FromContext(ctx); rec != nil {
		return rec.RequestID
	}
	return ""
}

// SetRoute records that the REST facade served the request by the route
// pattern (chi's, "/api/v1/goals/{id}").
func (r *Record) SetRoute(pattern string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	r.facade, r.route = "rest", pattern
	r.mu.Unlock()
}

// SetOperation records that GraphQL executed the operation name ("" for an
// anonymous one).
func (r *Record) SetOperation(name string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	r.facade, r.operation = "graphql", name
	r.mu.Unlock()
}

// SetFacade records which facade ("rest", "graphql") serves the request,
// as soon as it is known: the upstream calls it makes are counted under
// it, before the route or the operation is known (a request refused
// before parsing has neither).
func (r *Record) SetFacade(name string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	r.facade = name
	r.mu.Unlock()
}

// SetCaller records the authenticated account and user.
func (r *Record) SetCaller(account, user string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	r.account, r.user = account, user
	r.mu.Unlock()
}

// SetError records the cause of the request's server error; the access
// line carries it, so the error is logged once, on that line. The first
// error recorded wins.
func (r *Record) SetError(err error) {
	if r == nil || err == nil {
		return
	}
	// The text is taken now: an error presenter may rewrite a message
	// in place after recording it (GraphQL masks internal errors).
	r.mu.Lock()
	if r.err == nil {
		r.err = frozen{msg: err.Error(), err: err}
	}
	r.mu.Unlock()
}

// frozen is an error with the text it had when recorded.
type frozen struct {
	msg string
	err error
}

func (f frozen) Error() string { return f.msg }
func (f frozen) Unwrap() error { return f.err }

// SetClientClosed records that the client went away before its answer:
// the access line says 499 whatever status was written to nobody.
func (r *Record) SetClientClosed() {
	if r == nil {
		return
	}
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
}

// AddUpstreamCall counts one call of an upstream.API method.
func (r *Record) AddUpstreamCall() {
	if r != nil {
		r.upstreamCalls.Add(1)
	}
}

// AddSQLStatement counts one SQL statement run by the store.
func (r *Record) AddSQLStatement() {
	if r != nil {
		r.sqlStatements.Add(1)
	}
}

// AddSQLRoundTrip counts one round trip of the store to its database: a
// statement, a batch of statements sent together (PostgreSQL), or a commit.
func (r *Record) AddSQLRoundTrip() {
	if r != nil {
		r.sqlRoundTrips.Add(1)
	}
}

// Facade returns "rest", "graphql" or "" (the server's own pages).
func (r *Record) Facade() string {
	if r == nil {
		return ""
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.facade
}

// UpstreamCalls returns the upstream calls counted so far.
func (r *Record) UpstreamCalls() int64 {
	if r == nil {
		return 0
	}
	return r.upstreamCalls.Load()
}

// SQLStatements returns the SQL statements counted so far.
func (r *Record) SQLStatements() int64 {
	if r == nil {
		return 0
	}
	return r.sqlStatements.Load()
}

// SQLRoundTrips returns the round trips to the database counted so far.
func (r *Record) SQLRoundTrips() int64 {
	if r == nil {
		return 0
	}
	return r.sqlRoundTrips.Load()
}

// snapshot is the Record's fields under its lock.
type snapshot struct {
	facade, route, operation, account, user string
	err                                     error
	closed                                  bool
}

func (r *Record) snapshot() snapshot {
	r.mu.Lock()
	defer r.mu.Unlock()
	return snapshot{r.facade, r.route, r.operation, r.account, r.user, r.err, r.closed}
}
