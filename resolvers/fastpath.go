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
	m, outcome, err := p.fast.Marshal(ctx, res, l.fastCache(), func(n, b int) error {
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
