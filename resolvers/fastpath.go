package resolvers

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/okrgate/okrgate/graph"
)

// fastPath serves the fields below each field gqlgen resolves through
// graph.Fast, level by level, charging them to the operation's budget as
// gqlgen's fields are charged (docs/decisions.md, "A breadth-first fast
// path under gqlgen").
type fastPath struct {
	fast    *graph.Fast
	budget  Budget
	metrics *Metrics
	// The server's error presenter and panic recovery, for the deferred
	// fragments the fast path gives back to gqlgen.
	present graphql.ErrorPresenterFunc
	recover graphql.RecoverFunc
}

// aroundFields charges the field to the budget, records the level it
// starts (recordField), then hands its value to the fast path; a value the
// fast path leaves alone goes on to gqlgen.
func (p fastPath) aroundFields(ctx context.Context, next graphql.Resolver) (any, error) {
	res, err := p.budget.aroundFields(ctx, next)
	if err != nil || res == nil {
		return res, err
	}
	l := LoadersFrom(ctx)
	l.recordField(ctx, res)
	if p.fast == nil {
		return res, nil
	}
	s := spendOf(ctx)
	nodes, bytes := 0, 0
	m, outcome, err := p.fast.Marshal(ctx, res, l.fastCache(), deferralsOf(ctx), func(n, b int) error {
		nodes += n
		bytes += b
		return p.budget.charge(s, n, b)
	})
	p.metrics.fastPath(outcome)
	if err != nil {
		return nil, err
	}
	if outcome != graph.FastServed {
		p.budget.refund(s, nodes, bytes)
		return res, nil
	}
	return m, nil
}

// deferExtension names an operation's deferred fragments (deferState) in
// its stats, as spendExtension names its budget.
const deferExtension = "okrgate.defer"

// deferState is what an operation's fast path deferred, and the payloads
// of the group being delivered.
type deferState struct {
	d        *graph.FastDeferrals
	ready    []*graphql.Response
	execDone bool // the executor's own payloads are all delivered
}

// deferralsOf returns the deferred fragments of the operation of ctx (nil
// outside a query).
func deferralsOf(ctx context.Context) *graph.FastDeferrals {
	if !graphql.HasOperationContext(ctx) {
		return nil
	}
	if st, _ := graphql.GetOperationContext(ctx).Stats.GetExtension(deferExtension).(*deferState); st != nil {
		return st.d
	}
	return nil
}

// aroundResponses delivers the deferred fragments the fast path left out
// of a query's answer: the executor's payloads first (the answer, then
// gqlgen's own deferred fragments), their hasNext true while fragments
// wait, then one payload per call. A group of the fast path (one type at
// one level) resolves when its first payload is asked for, so the first
// part goes out before any deferred field resolves; the budget and the
// admission slot of the operation cover every payload (budget.go,
// admission.go).
func (p fastPath) aroundResponses(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	if p.fast == nil || !graphql.HasOperationContext(ctx) {
		return next(ctx)
	}
	oc := graphql.GetOperationContext(ctx)
	if oc.Operation == nil || oc.Operation.Operation != ast.Query {
		return next(ctx)
	}
	st, _ := oc.Stats.GetExtension(deferExtension).(*deferState)
	if st == nil {
		st = &deferState{d: graph.NewFastDeferrals(p.present, p.recover)}
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
