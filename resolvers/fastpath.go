package resolvers

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/okrgate/okrgate/graph/fastpath"
	"github.com/okrgate/okrgate/resolvers/infra/limits"
)

// FastPath serves the fields below each field gqlgen resolves through
// fastpath.Executor, level by level, charging them to the operation's budget as
// gqlgen's fields are charged (docs/decisions/graphql-execution.md, "A breadth-first fast
// path under gqlgen"). It is also where every field's level is recorded
// for the loaders, so it is installed on every server, fast or not.
type FastPath struct {
	fast     *fastpath.Executor
	budget   limits.Budget
	counters Counters
	// The server's error presenter and panic recovery, for the deferred
	// fragments the fast path gives back to gqlgen.
	present graphql.ErrorPresenterFunc
	recover graphql.RecoverFunc
}

// FastPathConfig configures NewFastPath.
type FastPathConfig struct {
	// Schema is the executable schema whose fields are served; nil serves
	// every field through gqlgen's executor (the same bytes, for
	// comparisons), still charging the budget and recording levels.
	Schema graphql.ExecutableSchema
	Budget limits.Budget
	// Counters, when not nil, counts the fast path's outcomes.
	Counters Counters
	// Present and Recover are the server's error presenter and panic
	// recovery (ErrorPresenter, RecoverFunc).
	Present graphql.ErrorPresenterFunc
	Recover graphql.RecoverFunc
}

// NewFastPath returns the fast path of cfg.
func NewFastPath(cfg FastPathConfig) FastPath {
	p := FastPath{budget: cfg.Budget, counters: cfg.Counters, present: cfg.Present, recover: cfg.Recover}
	if cfg.Schema != nil {
		p.fast = fastpath.New(cfg.Schema)
	}
	return p
}

// Counters counts what the resolvers observe, for the metrics of the
// GraphQL endpoint (graphqlhttp.Metrics).
type Counters interface {
	// AddStrayLoads counts parents whose edge was loaded outside the batch
	// of their level.
	AddStrayLoads(n int)
	// CountFastPath counts one outcome of the fast path.
	CountFastPath(o fastpath.Outcome)
}

// AroundFields is a gqlgen field middleware: it charges the field to the budget, records the level it
// starts (recordField), then hands its value to the fast path; a value the
// fast path leaves alone goes on to gqlgen.
func (p FastPath) AroundFields(ctx context.Context, next graphql.Resolver) (any, error) {
	res, err := p.budget.AroundFields(ctx, next)
	if err != nil || res == nil {
		return res, err
	}
	l := LoadersFrom(ctx)
	l.recordField(ctx, res)
	if p.fast == nil {
		return res, nil
	}
	s := limits.SpendOf(ctx)
	nodes, bytes := 0, 0
	m, outcome, err := p.fast.Marshal(ctx, res, l.fastCache(), deferralsOf(ctx), func(n, b int) error {
		nodes += n
		bytes += b
		return p.budget.Charge(s, n, b)
	}, l.releaser(ctx), l.reusing(ctx))
	if p.counters != nil && outcome != fastpath.Skipped {
		p.counters.CountFastPath(outcome)
	}
	if err != nil {
		return nil, err
	}
	if outcome != fastpath.Served {
		p.budget.Refund(s, nodes, bytes)
		return res, nil
	}
	return m, nil
}

// deferExtension names an operation's deferred fragments (deferState) in
// its stats, as package limits names its budget.
const deferExtension = "okrgate.defer"

// deferState is what an operation's fast path deferred, and the payloads
// of the group being delivered.
type deferState struct {
	d        *fastpath.Deferrals
	ready    []*graphql.Response
	execDone bool // the executor's own payloads are all delivered
}

// deferralsOf returns the deferred fragments of the operation of ctx (nil
// outside a query).
func deferralsOf(ctx context.Context) *fastpath.Deferrals {
	if !graphql.HasOperationContext(ctx) {
		return nil
	}
	if st, _ := graphql.GetOperationContext(ctx).Stats.GetExtension(deferExtension).(*deferState); st != nil {
		return st.d
	}
	return nil
}

// AroundResponses is a gqlgen response middleware: it delivers the
// deferred fragments the fast path left out of a query's answer: the
// executor's payloads first (the answer, then gqlgen's own deferred
// fragments), their hasNext true while fragments wait, then one payload
// per call. A group of the fast path (one type at
// one level) resolves when its first payload is asked for, so the first
// part goes out before any deferred field resolves; the budget and the
// admission slot of the operation cover every payload (limits.Budget,
// limits.Admission).
func (p FastPath) AroundResponses(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	if p.fast == nil || !graphql.HasOperationContext(ctx) {
		return next(ctx)
	}
	oc := graphql.GetOperationContext(ctx)
	if oc.Operation == nil || oc.Operation.Operation != ast.Query {
		return next(ctx)
	}
	st, _ := oc.Stats.GetExtension(deferExtension).(*deferState)
	if st == nil {
		st = &deferState{d: fastpath.NewDeferrals(p.present, p.recover)}
		oc.Stats.SetExtension(deferExtension, st)
	}
	if !st.execDone {
		resp := next(ctx)
		if resp == nil || resp.HasNext == nil || !*resp.HasNext {
			st.execDone = true
		}
		if resp != nil {
			if st.execDone && st.d.Pending() {
				more := true
				resp.HasNext = &more
			}
			return resp
		}
	}
	for len(st.ready) == 0 && st.d.Pending() {
		st.ready = st.d.Next()
	}
	if len(st.ready) == 0 {
		return nil
	}
	resp := st.ready[0]
	st.ready = st.ready[1:]
	more := len(st.ready) > 0 || st.d.Pending()
	resp.HasNext = &more
	return resp
}
