package resolvers

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/99designs/gqlgen/graphql"

	"github.com/okrgate/okrgate/graph/model"
	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/query"
)

// The arguments of nested edges (Goal.children(filter, orderBy, first),
// Goal.childrenConnection(first, after, filter, orderBy), ...).
//
// A field with arguments reads the same edge as the field without them
// (Edge.ListWith, Edge.Page): its fetch ANDs the argument filter to the
// edge's $in filter, still one upstream call per level for all the parents
// of the level. The
// order and the window are per parent, so they are applied after that one
// batched fetch: each parent's items are sorted in memory with
// query.Less (the order the store's ORDER BY gives, id as the final key)
// and cut to [offset, offset+first). The upstream API has no per-parent
// limit (a window function would need a new list operation in every
// implementation), so a level reads every matching item of its parents,
// exactly what the plain edge reads today; first bounds the answer, not
// the read.
//
// Every field occurrence is its own level (the path has the alias), so all
// the parents that share a batch also share its arguments.

// edgeArgs are the arguments of a nested edge.
type edgeArgs struct {
	filter *query.Expr
	sort   []query.SortKey
	offset int
	limit  int // < 0: no limit
}

// plain reports whether a has no effect (the plain edge answers).
func (a edgeArgs) plain() bool {
	return a.filter == nil && len(a.sort) == 0 && a.offset == 0 && a.limit < 0
}

// listArgs validates the arguments of a nested list field: first is
// optional (all items when nil) and at most MaxFirst.
func listArgs(reg *query.Registry, filter map[string]any, orderBy []model.Order, first *int) (edgeArgs, error) {
	a := edgeArgs{limit: -1}
	if first != nil {
		if *first < 0 || *first > MaxFirst {
			return a, upstream.Invalid("first", "must be between 0 and %d", MaxFirst)
		}
		a.limit = *first
	}
	var err error
	if a.filter, err = BuildFilter(reg, filter); err != nil {
		return a, err
	}
	a.sort, err = BuildSort(reg, orderBy)
	return a, err
}

// connArgs validates the arguments of a nested connection field.
func connArgs(reg *query.Registry, first *int, after *string, filter map[string]any, orderBy []model.Order) (edgeArgs, Page, error) {
	p, err := PageArgs(first, after)
	if err != nil {
		return edgeArgs{}, p, err
	}
	a, err := listArgs(reg, filter, orderBy, nil)
	a.offset, a.limit = p.Offset, p.First
	return a, p, err
}

// edgeList resolves a nested list field over the edge e of the parent p:
// its arguments validated against reg (listArgs), then the edge's batched
// read (Edge.ListWith).
func edgeList[P, T any](ctx context.Context, e *Edge[P, T], p *P, reg *query.Registry, filter map[string]any, orderBy []model.Order, first *int) ([]T, error) {
	a, err := listArgs(reg, filter, orderBy, first)
	if err != nil {
		return nil, err
	}
	return e.ListWith(ctx, p, a)
}

// edgeConnection resolves a nested connection field over the edge e of the
// parent p: its arguments validated against reg (connArgs), the window of
// the edge's batched read (Edge.Page), then the connection C of it.
func edgeConnection[C, P, T any](ctx context.Context, e *Edge[P, T], p *P, reg *query.Registry, first *int, after *string, filter map[string]any, orderBy []model.Order) (*C, error) {
	a, pg, err := connArgs(reg, first, after, filter, orderBy)
	if err != nil {
		return nil, err
	}
	w, err := e.Page(ctx, p, a)
	if err != nil {
		return nil, err
	}
	return newConnection[C](pg, w.items, w.total), nil
}

// cutWindow returns the window of a over items.
func cutWindow[T any](items []T, a edgeArgs) []T {
	lo := min(a.offset, len(items))
	hi := len(items)
	if a.limit >= 0 {
		hi = min(lo+a.limit, hi)
	}
	return items[lo:hi]
}

// sortItems orders items by keys as the store orders a listing (query.Less
// over their REST JSON documents, id as the final key); stable, so without
// keys the fetch order (id order, or the parent's key order) stays.
func sortItems[T any](items []T, keys []query.SortKey) ([]T, error) {
	if len(keys) == 0 || len(items) < 2 {
		return items, nil
	}
	docs := make([]map[string]any, len(items))
	for i := range items {
		b, err := json.Marshal(&items[i])
		if err != nil {
			return nil, fmt.Errorf("sort: encode item: %w", err)
		}
		if err := json.Unmarshal(b, &docs[i]); err != nil {
			return nil, fmt.Errorf("sort: decode item: %w", err)
		}
	}
	idx := make([]int, len(items))
	for i := range idx {
		idx[i] = i
	}
	less := query.Less(keys)
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case less(docs[a], docs[b]):
			return -1
		case less(docs[b], docs[a]):
			return 1
		}
		return 0
	})
	out := make([]T, len(items))
	for i, j := range idx {
		out[i] = items[j]
	}
	return out, nil
}

// nodesProjection is the projection of a connection field's items: the
// enrichments selected under nodes and edges.node.
func nodesProjection(ctx context.Context) query.Projection {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || !graphql.HasOperationContext(ctx) {
		return nil
	}
	oc := graphql.GetOperationContext(ctx)
	p := query.Projection{"id": nil}
	for _, f := range graphql.CollectFields(oc, fc.Field.Selections, nil) {
		switch f.Name {
		case "nodes":
			collect(oc, f.Selections, p)
		case "edges":
			for _, n := range graphql.CollectFields(oc, f.Selections, nil) {
				if n.Name == "node" {
					collect(oc, n.Selections, p)
				}
			}
		}
	}
	return p
}

// sessionGoals is the edge of Session.goals and goalsConnection: the root
// objectives when roots is true, else all.
func sessionGoals(ctx context.Context, roots *bool) *Edge[upstream.Session, upstream.Goal] {
	if roots != nil && *roots {
		return For(ctx).SessionRootGoals
	}
	return For(ctx).SessionGoals
}
