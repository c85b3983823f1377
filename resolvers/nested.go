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

// Nested edges with arguments (Goal.children(filter, orderBy, first),
// Goal.childrenConnection(first, after, filter, orderBy), ...).
//
// An edge with arguments is a variant of the plain edge whose fetch ANDs the
// argument filter to the edge's $in filter: still one upstream call per
// level (per 1000 keys or results) for all the parents of the level. The
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

// nestedFetch loads the items of keys for the parents of a level with the
// argument filter ANDed to the edge's own (nil: none), grouped by key.
type nestedFetch[P, T any] func(ctx context.Context, filter *query.Expr, keys []string, parents []*P) (map[string][]T, error)

// byKeys adapts a fetcher constructor that takes the extra filter.
func byKeys[P, T any](f func(extra *query.Expr) fetcher[T]) nestedFetch[P, T] {
	return func(ctx context.Context, filter *query.Expr, keys []string, _ []*P) (map[string][]T, error) {
		return f(filter)(ctx, keys)
	}
}

// window is one parent's page of a connection edge: the items in the
// window and the number of matching items.
type window[T any] struct {
	items []T
	total int
}

// argList returns p's items of the edge name with arguments a: the level's
// items are loaded in one batch (fetch with a's filter), then each key's
// items are sorted and cut to a's window.
func argList[P, T any](ctx context.Context, l *Loaders, name string, keys func(*P, []string) []string, fetch nestedFetch[P, T], p *P, a edgeArgs) ([]T, error) {
	e := &Edge[P, T]{l: l, name: name + "/args", keys: keys,
		fetch: func(ctx context.Context, ks []string, parents []*P) (map[string][]T, error) {
			found, err := fetch(ctx, a.filter, ks, parents)
			if err != nil {
				return nil, err
			}
			for k, items := range found {
				if found[k], err = sortItems(items, a.sort); err != nil {
					return nil, err
				}
				found[k] = cut(found[k], a)
			}
			return found, nil
		}}
	return e.List(ctx, p)
}

// argConn returns p's page of the connection form of the edge name: as
// argList, with the number of matching items per key; the items of the
// level are recorded at the connection's nodes and edges.node.
func argConn[P, T any](ctx context.Context, l *Loaders, name string, keys func(*P, []string) []string, fetch nestedFetch[P, T], p *P, a edgeArgs) (window[T], error) {
	e := &Edge[P, window[T]]{l: l, name: name + "/conn", keys: keys,
		fetch: func(ctx context.Context, ks []string, parents []*P) (map[string][]window[T], error) {
			found, err := fetch(withProjection(ctx, nodesProjection(ctx)), a.filter, ks, parents)
			if err != nil {
				return nil, err
			}
			out := make(map[string][]window[T], len(found))
			for k, items := range found {
				sorted, err := sortItems(items, a.sort)
				if err != nil {
					return nil, err
				}
				out[k] = []window[T]{{items: cut(sorted, a), total: len(items)}}
			}
			return out, nil
		},
		levels: func(ctx context.Context, found map[string][]window[T]) {
			var items []T
			for _, ws := range found {
				for _, w := range ws {
					items = append(items, w.items...)
				}
			}
			for _, path := range connPaths(ctx) {
				l.record(path, items)
			}
		}}
	w, err := e.One(ctx, p)
	if err != nil || w == nil {
		return window[T]{}, err
	}
	return *w, nil
}

// pageOf builds the parts of a connection from a window at p.
func pageOf[T, E any](p Page, w window[T], edge func(cursor string, node *T) E) ([]T, []E, *model.PageInfo) {
	items := nonNilSlice(w.items)
	pi, cursors := pageInfo(p, len(items), w.total)
	edges := make([]E, len(items))
	for i := range items {
		edges[i] = edge(cursors[i], &items[i])
	}
	return items, edges, pi
}

// cut returns the window of a over items.
func cut[T any](items []T, a edgeArgs) []T {
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

type projectionKey struct{}

// withProjection makes loads under ctx ask for projection p.
func withProjection(ctx context.Context, p query.Projection) context.Context {
	return context.WithValue(ctx, projectionKey{}, p)
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

// teamMembers fetches the members of the teams of keys (their memberIds,
// users by id with the extra filter), per team in memberIds order.
func teamMembers(api upstream.API) nestedFetch[upstream.Team, upstream.User] {
	return func(ctx context.Context, filter *query.Expr, keys []string, parents []*upstream.Team) (map[string][]upstream.User, error) {
		want := make(map[string]bool, len(keys))
		for _, k := range keys {
			want[k] = true
		}
		var ids []string
		for _, t := range parents {
			if want[t.ID] {
				ids = append(ids, t.Members...)
			}
		}
		users, err := byField(api.ListUsers, "id", filter, func(u *upstream.User, dst []string) []string { return append(dst, u.ID) },
			func(u *upstream.User) string { return u.ID })(ctx, sortedSet(ids))
		if err != nil {
			return nil, err
		}
		out := make(map[string][]upstream.User, len(keys))
		for _, t := range parents {
			if !want[t.ID] || out[t.ID] != nil {
				continue // another team, or one seen twice at the level
			}
			out[t.ID] = []upstream.User{}
			for _, id := range t.Members {
				out[t.ID] = append(out[t.ID], users[id]...)
			}
		}
		return out, nil
	}
}
