package resolvers

import (
	"context"

	"github.com/99designs/gqlgen/graphql"

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
}

// aroundFields charges the field to the budget, then hands its value to
// the fast path; a value the fast path leaves alone goes on to gqlgen.
func (p fastPath) aroundFields(ctx context.Context, next graphql.Resolver) (any, error) {
	res, err := p.budget.aroundFields(ctx, next)
	if err != nil || res == nil || p.fast == nil {
		return res, err
	}
	s := spendOf(ctx)
	nodes, bytes := 0, 0
	m, outcome, err := p.fast.Marshal(ctx, res, func(n, b int) error {
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

// aroundResponses gives each operation the fast path's memory of which
// selections it serves.
func (p fastPath) aroundResponses(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	if p.fast == nil {
		return next(ctx)
	}
	return next(p.fast.WithCache(ctx))
}
