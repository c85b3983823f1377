package resolvers

import (
	"context"
	"reflect"
	"slices"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
)

// Levels that no edge loads: what a top-level field returns (a page, a
// list, an object read by id, a mutation's payload). The engine records
// them, not the resolvers: the field middleware hands every top-level
// field's value to recordField, which records it, and the objects below it
// that need no resolver (a connection's nodes and edges.node, a payload's
// objects), at their paths, so that the edges below find their parents
// (see Edge).

// isRoot reports whether typ is an operation type, whose fields
// recordField records.
func isRoot(typ string) bool {
	return typ == "Query" || typ == "Mutation" || typ == "Subscription"
}

// recordField records the value res of the field of ctx, when it is a
// top-level field, as the level at its path, and the objects below it that
// its Go value holds (struct fields, no resolver) at theirs. Below the top
// level the edges record the levels they load.
func (l *Loaders) recordField(ctx context.Context, res any) {
	if l == nil {
		return
	}
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || fc.Field.Field == nil || !isRoot(fc.Object) || len(fc.Field.Selections) == 0 ||
		!graphql.HasOperationContext(ctx) {
		return
	}
	l.recordValues(pathKey(ctx), fc.Field.Selections, []reflect.Value{reflect.ValueOf(res)})
}

// releaser returns what the fast path calls for each level of the answer
// of the field of ctx once it has written the level and loaded the level
// below (fastpath.Executor.Marshal): release, for a top-level field, nil for any
// other. Below a top-level field every level is at a path of its own,
// which nothing reads after the fast path is done with it; a field gqlgen
// resolves below the top level (when the fast path left its parent to
// gqlgen) is one of many at its path — each parent's — and its levels are
// shared by all of them.
func (l *Loaders) releaser(ctx context.Context) func(context.Context) {
	fc := graphql.GetFieldContext(ctx)
	if l == nil || fc == nil || !isRoot(fc.Object) {
		return nil
	}
	return l.release
}

// release drops the level at the field path of ctx and the batches that
// loaded it, so that the objects are garbage once the fast path, which
// wrote them, lets them go. Should gqlgen's executor resolve the field
// again (the fast path gave up on an error), the level is loaded again by
// one batch, as on first use.
func (l *Loaders) release(ctx context.Context) {
	path := pathKey(ctx)
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.levels, path)
	for k := range l.batches {
		if k.path == path {
			delete(l.batches, k)
		}
	}
}

// recordValues records the objects that vals hold (pointers, slices and
// interfaces are followed) at path, then, for every field of sel with a
// selection of its own that their Go type holds as a struct field, the
// objects of that field one path down.
func (l *Loaders) recordValues(path string, sel ast.SelectionSet, vals []reflect.Value) {
	var items []reflect.Value
	for _, v := range vals {
		items = flattenValue(v, items)
	}
	if len(items) == 0 {
		return
	}
	objs := make([]any, len(items))
	for i, it := range items {
		if it.CanAddr() {
			objs[i] = it.Addr().Interface()
		} else {
			p := reflect.New(it.Type())
			p.Elem().Set(it)
			objs[i] = p.Interface()
		}
	}
	l.record(path, objs)
	eachField(sel, func(f *ast.Field) {
		if len(f.SelectionSet) == 0 {
			return
		}
		var sub []reflect.Value
		index := map[reflect.Type]int{}
		for _, it := range items {
			i, ok := index[it.Type()]
			if !ok {
				i = structField(it.Type(), f.Name)
				index[it.Type()] = i
			}
			if i >= 0 {
				sub = append(sub, it.Field(i))
			}
		}
		if len(sub) > 0 {
			l.recordValues(segment(path, f), f.SelectionSet, sub)
		}
	})
}

// flattenValue appends the structs v holds to dst.
func flattenValue(v reflect.Value, dst []reflect.Value) []reflect.Value {
	for v.IsValid() && (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) {
		if v.IsNil() {
			return dst
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Struct:
		return append(dst, v)
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			dst = flattenValue(v.Index(i), dst)
		}
	}
	return dst
}

// eachField calls fn for every field of sel, through fragments of any type
// (a field of each fragment is its own path, as pathKey names it).
func eachField(sel ast.SelectionSet, fn func(*ast.Field)) {
	for _, s := range sel {
		switch s := s.(type) {
		case *ast.Field:
			fn(s)
		case *ast.InlineFragment:
			eachField(s.SelectionSet, fn)
		case *ast.FragmentSpread:
			if s.Definition != nil {
				eachField(s.Definition.SelectionSet, fn)
			}
		}
	}
}

// structField returns the index of the exported field of struct type t
// that gqlgen binds to the GraphQL field name (the same name, case
// aside), or -1 when a resolver serves it.
func structField(t reflect.Type, name string) int {
	for j := range t.NumField() {
		if f := t.Field(j); f.IsExported() && !f.Anonymous && strings.EqualFold(f.Name, name) {
			return j
		}
	}
	return -1
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
