package limits

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"sync/atomic"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/okrgate/okrgate/upstream"
)

// Codes (extensions.code) of an operation stopped by its Budget, from the
// error table (upstream.Codes).
var (
	CodeNodeLimit        = upstream.CodeNodeLimit.GraphQL()
	CodeResponseTooLarge = upstream.CodeResponseTooLarge.GraphQL()
	CodeServerBusy       = upstream.CodeServerBusy.GraphQL() // HTTP 503 with Retry-After
)

// Budget bounds what one operation may resolve while it executes, whatever
// the cost estimate said: Nodes counts resolved fields plus the elements of
// every list a field returns; Bytes estimates the JSON the answer will take
// (names, punctuation and scalar values, counted as fields resolve). The
// first field past either bound stops the operation: no further field
// resolves or loads anything, and the answer is one error with
// extensions.code NODE_LIMIT_EXCEEDED or RESPONSE_TOO_LARGE instead of data,
// so memory stays proportional to the budget, not to the query. The encoded
// answer is checked against Bytes once more before it is sent.
//
// InFlight bounds the nodes of all operations executing at once on the
// server (a request's nodes are released when its answer is built): each
// node holds 0.6–1.3 KB of heap while the answer is assembled
// (docs/benchmarks/hostile-queries.md), so a per-request bound alone would let concurrent
// large queries add up without limit. An operation that finds the server's
// budget spent stops with SERVER_BUSY, which the transport answers with
// HTTP 503 and Retry-After. Zero fields mean no bound.
type Budget struct {
	Nodes    int
	Bytes    int
	InFlight *InFlight
}

// InFlight is the server-wide count of nodes held by executing operations.
type InFlight struct {
	max  int64
	used atomic.Int64
}

// NewInFlight returns a server-wide budget of max nodes (0: unbounded).
func NewInFlight(max int) *InFlight { return &InFlight{max: int64(max)} }

// take charges n nodes and reports whether they fit.
func (f *InFlight) take(n int64) bool {
	if f == nil {
		return true
	}
	return f.used.Add(n) <= f.max || f.max <= 0
}

func (f *InFlight) release(n int64) {
	if f != nil {
		f.used.Add(-n)
	}
}

// ErrBudget stops every field resolved after the budget ran out; the
// response middleware (AroundResponses) replaces the errors it causes with
// one, so an error presenter should pass it through unmasked.
var ErrBudget = errors.New("the request's budget is exhausted")

// Spend is one operation's running total (SpendOf).
type Spend struct {
	nodes, bytes atomic.Int64
	pooled       atomic.Int64 // nodes charged to Budget.InFlight
	over         atomic.Int32 // 0, or 1 for nodes, 2 for bytes, 3 for the server's budget
}

// spendExtension is the name under which an operation's spend is kept in
// its gqlgen operation context (Stats, where handler extensions keep what
// they know of one operation).
const spendExtension = "okrgate.budget"

// SpendOf returns the running total of the operation ctx belongs to, or
// nil outside one.
func SpendOf(ctx context.Context) *Spend {
	if !graphql.HasOperationContext(ctx) {
		return nil
	}
	s, _ := graphql.GetOperationContext(ctx).Stats.GetExtension(spendExtension).(*Spend)
	return s
}

// AroundResponses is a gqlgen response middleware: it gives each operation
// (each answer of a subscription) its own running total and, when it ran
// out, answers with one error and no data. The total is set before any
// field of the answer resolves, and read by them only.
func (b Budget) AroundResponses(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	// One spend for the operation: the deferred payloads of an incremental
	// answer (later calls) count against the same limits as its first part.
	s := SpendOf(ctx)
	if s == nil {
		s = &Spend{}
		if graphql.HasOperationContext(ctx) {
			graphql.GetOperationContext(ctx).Stats.SetExtension(spendExtension, s)
		}
	}
	resp := func() *graphql.Response {
		// The nodes of a payload leave the server's budget once it is
		// answered.
		defer func() { b.InFlight.release(s.pooled.Swap(0)) }()
		return next(ctx)
	}()
	if resp == nil {
		return nil
	}
	if s.over.Load() == 0 && b.Bytes > 0 && len(resp.Data) > b.Bytes {
		s.bytes.Store(int64(len(resp.Data)))
		s.over.Store(2)
	}
	switch s.over.Load() {
	case 1:
		return &graphql.Response{Errors: gqlerror.List{budgetError(CodeNodeLimit,
			"the answer would hold more than %d nodes (fields and list elements); ask for fewer fields, smaller pages or fewer aliases", b.Nodes)}}
	case 2:
		return &graphql.Response{Errors: gqlerror.List{budgetError(CodeResponseTooLarge,
			"the answer would exceed %d bytes; ask for fewer fields, smaller pages or fewer aliases", b.Bytes)}}
	case 3:
		return &graphql.Response{Errors: gqlerror.List{budgetError(CodeServerBusy,
			"the server is busy answering other large queries (%d nodes at once); retry later", int(b.InFlight.max))}}
	}
	return resp
}

func budgetError(code, format string, limit int) *gqlerror.Error {
	err := gqlerror.Errorf(format, limit)
	err.Extensions = map[string]any{"code": code, "limit": limit}
	return err
}

// AroundFields is a gqlgen field middleware: it charges every field to the
// operation's budget and refuses fields once it ran out.
func (b Budget) AroundFields(ctx context.Context, next graphql.Resolver) (any, error) {
	s := SpendOf(ctx)
	if s == nil {
		return next(ctx)
	}
	if s.over.Load() != 0 {
		return nil, ErrBudget
	}
	res, err := next(ctx)
	nodes, size := 1, 4 // "key":value,
	if fc := graphql.GetFieldContext(ctx); fc != nil {
		size += len(fc.Field.Alias)
	}
	n, sz := valueSize(res)
	if err := b.Charge(s, nodes+n, size+sz); err != nil {
		return nil, err
	}
	return res, err
}

// Charge adds nodes and bytes to the operation's total s and to the
// server's, and reports ErrBudget once either is spent.
func (b Budget) Charge(s *Spend, nodes, bytes int) error {
	if s == nil {
		return nil
	}
	if s.over.Load() != 0 {
		return ErrBudget
	}
	if b.Nodes > 0 && s.nodes.Add(int64(nodes)) > int64(b.Nodes) {
		s.over.CompareAndSwap(0, 1)
		return ErrBudget
	}
	if b.InFlight != nil {
		s.pooled.Add(int64(nodes))
		if !b.InFlight.take(int64(nodes)) {
			s.over.CompareAndSwap(0, 3)
			return ErrBudget
		}
	}
	if b.Bytes > 0 && s.bytes.Add(int64(bytes)) > int64(b.Bytes) {
		s.over.CompareAndSwap(0, 2)
		return ErrBudget
	}
	return nil
}

// Refund takes back what Charge added, for work that is done again (a
// subtree the fast path gave back to gqlgen), unless the budget ran out.
func (b Budget) Refund(s *Spend, nodes, bytes int) {
	if s == nil || s.over.Load() != 0 {
		return
	}
	if b.Nodes > 0 {
		s.nodes.Add(-int64(nodes))
	}
	if b.InFlight != nil {
		s.pooled.Add(-int64(nodes))
		b.InFlight.release(int64(nodes))
	}
	if b.Bytes > 0 {
		s.bytes.Add(-int64(bytes))
	}
}

// valueSize returns the list elements in v and an estimate of v's JSON size
// without its nested objects (their fields are charged as they resolve).
func valueSize(v any) (elems, size int) {
	switch v := v.(type) {
	case nil:
		return 0, 4
	case string:
		return 0, len(v) + 2
	case *string:
		if v == nil {
			return 0, 4
		}
		return 0, len(*v) + 2
	case bool, *bool:
		return 0, 5
	case int, int32, int64, float64, *int, *float64:
		return 0, 8
	case time.Time, *time.Time:
		return 0, 32
	case json.RawMessage:
		return 0, len(v)
	case []string:
		n := 0
		for _, s := range v {
			n += len(s) + 3
		}
		return len(v), n + 2
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice, reflect.Array:
		return rv.Len(), 2 + rv.Len() // brackets and commas; elements charge their fields
	case reflect.Map:
		return rv.Len(), 2 + 16*rv.Len()
	}
	return 0, 2 // an object's braces
}
