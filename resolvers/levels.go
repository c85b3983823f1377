package resolvers

import (
	"context"
	"slices"

	"github.com/99designs/gqlgen/graphql"
)

// Levels that no edge loads: top-level connections and lists, objects read
// by a top-level field, a mutation's payload. Their fields record them, so
// that the edges below them find their parents (see Edge).

// produced records the nodes of a connection under both paths its items are
// reachable by (nodes and edges.node).
func produced[T any](ctx context.Context, items []T) {
	if l := LoadersFrom(ctx); l != nil {
		path := pathKey(ctx)
		l.record(path+".nodes", items)
		l.record(path+".edges.node", items)
	}
}

// producedList records the items of a top-level plain list (not a
// connection) at the list's own path.
func producedList[T any](ctx context.Context, items []T) {
	if l := LoadersFrom(ctx); l != nil {
		l.record(pathKey(ctx), items)
	}
}

// produceOne records a top-level object read without an edge (a Get or a
// mutation result) at its path.
func produceOne[T any](ctx context.Context, v *T) {
	if l := LoadersFrom(ctx); l != nil && v != nil {
		l.record(pathKey(ctx), []T{*v})
	}
}

// produceSub records items that a subfield (field) of the field of ctx
// returns without an edge (a payload's object, a page's items), at every
// path of that subfield.
func produceSub[T any](ctx context.Context, field string, items ...T) {
	if l := LoadersFrom(ctx); l != nil {
		for _, p := range subPaths(ctx, field) {
			l.record(p, items)
		}
	}
}

// subPaths returns the field paths of the selections named field directly
// under the field of ctx, one per response key (an alias gives its own
// path, as gqlgen's field paths do).
func subPaths(ctx context.Context, field string) []string {
	if graphql.GetFieldContext(ctx) == nil {
		return nil
	}
	base := pathKey(ctx)
	var out []string
	for _, f := range graphql.CollectFieldsCtx(ctx, nil) {
		if f.Name == field && !slices.Contains(out, base+"."+f.Alias) {
			out = append(out, base+"."+f.Alias)
		}
	}
	return out
}

// nonNilSlice returns xs, or an empty slice for nil (JSON [] rather than null).
func nonNilSlice[T any](xs []T) []T {
	if xs == nil {
		return []T{}
	}
	return xs
}
