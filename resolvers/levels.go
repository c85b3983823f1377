package resolvers

import (
	"context"
	"slices"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
)

// Levels that no edge loads: top-level connections and lists, objects read
// by a top-level field, a mutation's payload. Their fields record them, so
// that the edges below them find their parents (see Edge).

// produced records the nodes of a connection under every path its items
// are reachable by (nodes and edges.node, under any alias).
func produced[T any](ctx context.Context, items []T) {
	l := LoadersFrom(ctx)
	if l == nil {
		return
	}
	for _, p := range connPaths(ctx) {
		l.record(p, items)
	}
}

// connPaths returns the paths a connection's items are reachable by below
// the field of ctx: nodes and edges.node, under any alias.
func connPaths(ctx context.Context) []string {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil {
		return nil
	}
	oc := graphql.GetOperationContext(ctx)
	base := pathKey(ctx)
	out := fieldPaths(oc, base, fc.Field.Selections, "nodes")
	for _, e := range graphql.CollectFields(oc, fc.Field.Selections, nil) {
		if e.Name == "edges" {
			out = append(out, fieldPaths(oc, segment(base, e.Field), e.Selections, "node")...)
		}
	}
	return out
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
	fc := graphql.GetFieldContext(ctx)
	if fc == nil {
		return nil
	}
	return fieldPaths(graphql.GetOperationContext(ctx), pathKey(ctx), fc.Field.Selections, field)
}

// fieldPaths returns the paths, below base, of the selections in sel named
// field (in any fragment), one per response key and type.
func fieldPaths(oc *graphql.OperationContext, base string, sel ast.SelectionSet, field string) []string {
	var out []string
	for _, f := range graphql.CollectFields(oc, sel, nil) {
		if p := segment(base, f.Field); f.Name == field && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// segment returns base followed by the path segment of f.
func segment(base string, f *ast.Field) string {
	var b strings.Builder
	b.WriteString(base)
	writeSegment(&b, f)
	return b.String()
}

// nonNilSlice returns xs, or an empty slice for nil (JSON [] rather than null).
func nonNilSlice[T any](xs []T) []T {
	if xs == nil {
		return []T{}
	}
	return xs
}
