package resolvers

import (
	"context"
	"fmt"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/okrgate/okrgate/graph/fastpath"
	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/query"
)

// Answers derived from the previous answer of the same request
// (fastpath.Reuse): the transport that shares answers gives an execution
// its reuse, and the fast path reads the items that changed since through
// the loaders' fetchers, as the caller may see them.

// reuseKey is the key of an execution's reuse in its request's memo.
type reuseKey struct{}

// WithReuse returns ctx with u as the reuse of the execution its request
// starts, held by the request's memo (upstream.Memo, the one place for
// per-request state).
func WithReuse(ctx context.Context, u *fastpath.Reuse) context.Context {
	m := upstream.MemoFrom(ctx)
	if m == nil {
		ctx = upstream.WithMemo(ctx)
		m = upstream.MemoFrom(ctx)
	}
	m.Attach(reuseKey{}, u)
	return ctx
}

// reusing returns what the fast path needs to derive the answer of the
// field of ctx: nothing without a reuse in the request.
func (l *Loaders) reusing(ctx context.Context) fastpath.Reusing {
	m := upstream.MemoFrom(ctx)
	if l == nil || m == nil {
		return fastpath.Reusing{}
	}
	u, _ := m.Attached(reuseKey{}).(*fastpath.Reuse)
	if u == nil {
		return fastpath.Reusing{}
	}
	return fastpath.Reusing{Reuse: u, Load: l.loadChanged, Record: func(ctx context.Context, objs []any) {
		l.record(pathKey(ctx), objs)
	}}
}

// loadChanged reads the goals or key results of ids again, one call for
// all of them, with the enrichments the selections sels name: by id, a
// pointer to the model.
func (l *Loaders) loadChanged(ctx context.Context, typ string, ids []string, sels []ast.SelectionSet) (map[string]any, error) {
	p := query.Projection{"id": nil}
	if graphql.HasOperationContext(ctx) {
		oc := graphql.GetOperationContext(ctx)
		for _, sel := range sels {
			collect(oc, sel, p)
		}
	}
	q := fetchArgs{fields: p}
	switch typ {
	case "Goal":
		return pointers(byID(l.api.ListGoals, func(g *upstream.Goal) string { return g.ID })(ctx, ids, q))
	case "Metric":
		return pointers(byID(l.api.ListMetrics, func(m *upstream.Metric) string { return m.ID })(ctx, ids, q))
	}
	return nil, fmt.Errorf("resolvers: no reading %s again", typ)
}

// pointers returns a pointer to the item of each key of found.
func pointers[T any](found map[string][]T, err error) (map[string]any, error) {
	if err != nil {
		return nil, err
	}
	out := make(map[string]any, len(found))
	for id, items := range found {
		if len(items) > 0 {
			out[id] = &items[0]
		}
	}
	return out, nil
}
