package resolvers

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/okrgate/okrgate/graph/model"
)

// An Edge loads the items of type T that parents of type P point to (a
// goal's children, a key result's check-ins, a task's owner, ...), one
// upstream batch per level of the query.
//
// A level is a field path without list indices (.sessions.nodes.goals.
// children): every parent at that path has already been resolved when the
// first of them asks for its items, because a field resolves only after its
// parent and every parent at one path comes from one batch (or one
// top-level field) that completed as a whole. So the first resolver at a
// path loads the items of all the parents of the level in one go, and the
// others read what it loaded. Nothing waits for more keys to arrive and
// nothing is decided by a timer: the upstream calls of a query depend only
// on the query and the data.
//
// The levels are recorded by the engine, not by the resolvers: an edge's
// batch records what it loaded as the level at its path (the nodes of a
// connection at nodes and edges.node), and the field middleware records
// what a top-level field returned (recordField, levels.go).
//
// keys says which keys a parent points to (its own id for children, its
// parentId for parent, its ownerIds for owners); fetch loads the items of a
// set of keys, grouped by key. Both are the edge's; a resolver only names
// the edge, its parent object and the field's arguments, if any
// (Loaders.GoalChildren.List(ctx, obj), .ListWith(ctx, obj, args),
// .Page(ctx, obj, args)): a field with arguments is the same edge, asked
// with a filter, an order and a window.
type Edge[P, T any] struct {
	l     *Loaders
	name  string
	keys  func(p *P, dst []string) []string
	fetch func(ctx context.Context, keys []string, parents []*P, q fetchArgs) (map[string][]T, error)
	// sub, when set, names the subfield whose level the items are (the
	// field of the edge wraps them, as User.roles wraps UserRole.team).
	sub string
}

// List returns the items of all the keys of p, in key order; never nil.
func (e *Edge[P, T]) List(ctx context.Context, p *P) ([]T, error) {
	per, err := e.load(ctx, p, e.keys(p, nil))
	if err != nil {
		return nil, err
	}
	return concat(per), nil
}

// ListWith returns p's items as a list field with arguments a asks for
// them: the items of the level matching a's filter, loaded in one batch,
// then p's sorted by a's order and cut to a's window; never nil.
func (e *Edge[P, T]) ListWith(ctx context.Context, p *P, a edgeArgs) ([]T, error) {
	if a.plain() {
		return e.List(ctx, p)
	}
	w, err := e.window(ctx, p, a, false)
	return nonNilSlice(w.items), err
}

// Page returns p's page of the connection form of the edge (a's window of
// its items, and how many match); the level's pages are recorded at the
// connection's nodes and edges.node.
func (e *Edge[P, T]) Page(ctx context.Context, p *P, a edgeArgs) (window[T], error) {
	return e.window(ctx, p, a, true)
}

// One returns the first item of p's first key, or nil.
func (e *Edge[P, T]) One(ctx context.Context, p *P) (*T, error) {
	keys := e.keys(p, nil)
	if len(keys) == 0 {
		return nil, nil
	}
	per, err := e.load(ctx, p, keys[:1])
	if err != nil || len(per[0]) == 0 {
		return nil, err
	}
	return &per[0][0], nil
}

// PerKey returns the items of each key of p, in key order, with the keys.
func (e *Edge[P, T]) PerKey(ctx context.Context, p *P) ([]string, [][]T, error) {
	keys := e.keys(p, nil)
	per, err := e.load(ctx, p, keys)
	return keys, per, err
}

// concat joins the items of several keys; never nil.
func concat[T any](per [][]T) []T {
	switch len(per) {
	case 0:
		return []T{}
	case 1: // the common case: no copy
		if per[0] != nil {
			return per[0]
		}
		return []T{}
	}
	out := []T{}
	for _, v := range per {
		out = append(out, v...)
	}
	return out
}

// first returns the first item, or nil.
func first[T any](items []T, err error) (*T, error) {
	if err != nil || len(items) == 0 {
		return nil, err
	}
	return &items[0], nil
}

// batch is the load of one edge at one path.
type batch[T any] struct {
	once  sync.Once
	err   error
	q     fetchArgs
	mu    sync.Mutex
	found map[string][]T // every key asked for has an entry (nil: no items)
	// windows are the parents' windows of a field with arguments or a
	// connection, by parentKey.
	windows map[string]window[T]
}

// window is one parent's items of a field with arguments: those in its
// window, and the number of matching items.
type window[T any] struct {
	items []T
	total int
}

// load returns the items of each of keys (those of p) from the batch of
// the edge at the field path of ctx, running the batch for the whole level
// on first use.
func (e *Edge[P, T]) load(ctx context.Context, p *P, keys []string) ([][]T, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	path := pathKey(ctx)
	b := batchAt[T](e.l, e.name, path)
	b.once.Do(func() {
		q := fetchArgs{}
		if e.sub == "" {
			q.fields, q.sel = selectionProjection(ctx), selectionOf(ctx)
		}
		_, b.found, b.err = e.start(ctx, b, path, p, keys, q)
		if b.err != nil {
			return
		}
		if e.sub == "" {
			e.l.record(path, b.found)
			return
		}
		for _, sp := range subPaths(ctx, e.sub) {
			e.l.record(sp, b.found)
		}
	})
	if b.err != nil {
		return nil, b.err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := e.complete(ctx, b, p, keys); err != nil {
		return nil, err
	}
	per := make([][]T, len(keys))
	for i, k := range keys {
		per[i] = b.found[k]
	}
	return per, nil
}

// window returns p's window of the field of ctx, whose arguments are a: the
// first call at the path loads the matching items of every parent of the
// level in one batch and cuts every parent's window; the windows' items are
// the level below (at the path, or at nodes and edges.node of a
// connection).
func (e *Edge[P, T]) window(ctx context.Context, p *P, a edgeArgs, conn bool) (window[T], error) {
	path := pathKey(ctx)
	b := batchAt[T](e.l, e.name, path)
	b.once.Do(func() {
		q := fetchArgs{filter: a.filter}
		if conn {
			q.fields = nodesProjection(ctx)
		} else {
			q.fields = selectionProjection(ctx)
			if len(a.sort) == 0 { // sorted here by fields the selection need not name
				q.sel = selectionOf(ctx)
			}
		}
		var parents []*P
		parents, b.found, b.err = e.start(ctx, b, path, p, e.keys(p, nil), q)
		if b.err != nil {
			return
		}
		b.windows = make(map[string]window[T], len(parents))
		var items []T
		for _, q := range parents {
			pk := e.parentKey(q)
			if _, seen := b.windows[pk]; seen {
				continue
			}
			w, err := e.cut(b, q, a)
			if err != nil {
				b.err = err
				return
			}
			b.windows[pk] = w
			items = append(items, w.items...)
		}
		if !conn {
			e.l.record(path, items)
			return
		}
		for _, cp := range connPaths(ctx) {
			e.l.record(cp, items)
		}
	})
	if b.err != nil {
		return window[T]{}, b.err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if w, ok := b.windows[e.parentKey(p)]; ok {
		return w, nil
	}
	// A parent of no recorded level: its window alone, not added to the
	// level (see stray).
	if err := e.complete(ctx, b, p, e.keys(p, nil)); err != nil {
		return window[T]{}, err
	}
	return e.cut(b, p, a)
}

// start runs the batch of the level at path: the keys of every parent
// recorded at the level above (and p's), fetched in one go.
func (e *Edge[P, T]) start(ctx context.Context, b *batch[T], path string, p *P, keys []string, q fetchArgs) ([]*P, map[string][]T, error) {
	b.q = q
	parents := parentsAt[P](e.l, parentPath(path))
	if p != nil && !slices.Contains(parents, p) {
		parents = append(parents, p)
	}
	all := slices.Clone(keys)
	for _, q := range parents {
		all = e.keys(q, all)
	}
	slices.Sort(all)
	all = slices.Compact(nonEmpty(all...))
	fctx, span := batchSpan(ctx, e.name, path, len(all), false)
	found, err := e.run(fctx, all, parents, q)
	endBatch(span, err)
	return parents, found, err
}

// cut returns p's window: the items of its keys, sorted by a's order and
// cut to a's window; call with the batch complete for p.
func (e *Edge[P, T]) cut(b *batch[T], p *P, a edgeArgs) (window[T], error) {
	var items []T
	for _, k := range e.keys(p, nil) {
		items = append(items, b.found[k]...)
	}
	sorted, err := sortItems(items, a.sort)
	if err != nil {
		return window[T]{}, err
	}
	return window[T]{items: cutWindow(sorted, a), total: len(items)}, nil
}

// parentKey identifies a parent within a level by its keys.
func (e *Edge[P, T]) parentKey(p *P) string {
	return strings.Join(e.keys(p, nil), "\x00")
}

// complete loads the keys of p that the batch of its level did not (p is
// not part of the recorded level: its field returned an object that no
// batch recorded) on their own; call with b.mu held. Their items are not
// added to the level, so the levels below do not depend on when this
// happened.
func (e *Edge[P, T]) complete(ctx context.Context, b *batch[T], p *P, keys []string) error {
	var missing []string
	for _, k := range keys {
		if _, ok := b.found[k]; !ok && k != "" {
			missing = append(missing, k)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	e.l.strays.Add(1)
	var parents []*P
	if p != nil {
		parents = []*P{p}
	}
	sctx, span := batchSpan(ctx, e.name, pathKey(ctx), len(missing), true)
	more, err := e.run(sctx, missing, parents, b.q)
	endBatch(span, err)
	if err != nil {
		return err
	}
	for k, v := range more {
		b.found[k] = v
	}
	return nil
}

// run fetches keys and gives every key an entry.
func (e *Edge[P, T]) run(ctx context.Context, keys []string, parents []*P, q fetchArgs) (map[string][]T, error) {
	found := map[string][]T{}
	if len(keys) > 0 {
		var err error
		if found, err = e.fetch(ctx, keys, parents, q); err != nil {
			return nil, err
		}
	}
	for _, k := range keys {
		if _, ok := found[k]; !ok {
			found[k] = nil
		}
	}
	return found, nil
}

// batchKey names the batch of an edge at a path.
type batchKey struct{ edge, path string }

// batchAt returns the batch of the edge name at path, creating it.
func batchAt[T any](l *Loaders, name, path string) *batch[T] {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := batchKey{name, path}
	if b, ok := l.batches[k]; ok {
		return b.(*batch[T])
	}
	b := &batch[T]{}
	l.batches[k] = b
	return b
}

// record adds items resolved at path (a map of key → items, or a slice) to
// the level the edges one field down read their parents from.
func (l *Loaders) record(path string, items any) {
	l.mu.Lock()
	l.levels[path] = append(l.levels[path], items)
	l.mu.Unlock()
}

// parentsAt returns the items of type P recorded at path.
func parentsAt[P any](l *Loaders, path string) []*P {
	l.mu.Lock()
	srcs := l.levels[path]
	l.mu.Unlock()
	var out []*P
	add := func(v any) {
		switch x := v.(type) {
		case *P:
			out = append(out, x)
		case P:
			out = append(out, &x)
		}
	}
	for _, src := range srcs {
		switch s := src.(type) {
		case map[string][]P:
			for _, vs := range s {
				for i := range vs {
					out = append(out, &vs[i])
				}
			}
		case []P:
			for i := range s {
				out = append(out, &s[i])
			}
		case map[string][]model.Owner:
			for _, vs := range s {
				for _, v := range vs {
					add(v)
				}
			}
		case map[string][]model.Node:
			for _, vs := range s {
				for _, v := range vs {
					add(v)
				}
			}
		case []any:
			for _, v := range s {
				add(v)
			}
		}
	}
	return out
}

// pathKey is the field path of ctx without list indices: for each field
// from the root, the type it is selected on and its alias
// (".Query:session.Session:goals.Goal:children"). The type keeps apart the
// levels of one alias in different fragments of a union (`parent { ... on
// Goal { owners } ... on Metric { owners } }`): each is loaded by its own
// edge, so each is a level of its own, complete when its batch is.
func pathKey(ctx context.Context) string {
	fc := graphql.GetFieldContext(ctx)
	var buf [32]*graphql.FieldContext // on the stack for any sane depth
	fields := buf[:0]
	n := 0
	for ; fc != nil; fc = fc.Parent {
		if fc.Index != nil || fc.Field.Field == nil {
			continue
		}
		fields = append(fields, fc)
		n += 2 + len(typeOf(fc.Field.Field)) + len(fc.Field.Alias)
	}
	var b strings.Builder
	b.Grow(n)
	for i := len(fields) - 1; i >= 0; i-- {
		writeSegment(&b, fields[i].Field.Field)
	}
	return b.String()
}

// writeSegment writes the path segment of f: ".Type:alias".
func writeSegment(b *strings.Builder, f *ast.Field) {
	b.WriteByte('.')
	b.WriteString(typeOf(f))
	b.WriteByte(':')
	b.WriteString(f.Alias)
}

// typeOf is the name of the type f is selected on.
func typeOf(f *ast.Field) string {
	if f.ObjectDefinition == nil {
		return ""
	}
	return f.ObjectDefinition.Name
}

// parentPath is path without its last field.
func parentPath(path string) string {
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		return path[:i]
	}
	return ""
}

// nonEmpty returns ids without "".
func nonEmpty(ids ...string) []string {
	out := ids[:0:0]
	for _, id := range ids {
		if id != "" {
			out = append(out, id)
		}
	}
	return out
}
