package graph

import (
	"context"
	"errors"
	"sync"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
)

// Fast writes the answer below a field that gqlgen's executor resolved
// (a root field: a session, a page of goals), level by level instead of
// field by field.
//
// gqlgen's executor makes, for every field of every object of an answer, a
// field context, a context value, closures and a marshaler that lives until
// the answer is written: about ten allocations per scalar and most of the
// memory a large tree holds (docs/benchmarks/tree.md). Fast serves the same
// selection breadth first: for each field of a level it makes one field
// context (arguments parsed once), calls the field's resolver for every
// object of the level (the resolvers and loaders are gqlgen's and
// okrgate's own, so the first call of a level loads the whole level, as
// with gqlgen), then goes one level down; finally it writes the JSON with
// the marshal functions gqlgen generated, so the bytes are the ones gqlgen
// would write. The tables it reads (fast_gen.go) are generated from the
// same bindings by graph/fastgen (`go run ./graph/fastgen` runs gqlgen and
// writes them).
//
// Fast serves only what it serves exactly. A selection with a field it has
// no table entry for (a map-bound field, a field with directives, a @defer
// inside a deferred fragment) is left to gqlgen. So is any answer that is
// not a plain success: the first error, null in a non-null place or panic
// makes it give up, and gqlgen's executor resolves the field again (the
// loaders answer from what they already loaded) and reports the error with
// its path and null propagation, as it always did. Deferred fragments are
// delivered in later payloads (fast_defer.go).
type Fast struct {
	es *executableSchema
}

// NewFast returns the fast path of es, which NewExecutableSchema made (nil
// for any other schema).
func NewFast(es graphql.ExecutableSchema) *Fast {
	e, ok := es.(*executableSchema)
	if !ok {
		return nil
	}
	return &Fast{es: e}
}

// fastKind says how the fast path serves a field.
type fastKind uint8

const (
	fastUnsupported fastKind = iota
	fastTypename             // __typename
	fastPlain                // a scalar or enum read from the model
	fastLeaf                 // a scalar or enum a resolver returns
	fastObjectField          // one or a list of objects
)

// fastObject is an object of the answer: its GraphQL type and a pointer to
// its model (nil for a null element).
type fastObject struct {
	typ string
	ptr any
}

// fastBytesStep is how much the answer grows between two charges of its
// bytes to the budget.
const fastBytesStep = 64 << 10

// FastCache remembers, for the operations of one request, which root
// fields' selections the fast path serves, so that a field left to gqlgen
// is not examined again for every object below it. The caller keeps it
// with its other per-request state and passes it to Marshal.
type FastCache struct {
	mu sync.Mutex
	ok map[*ast.Field]fastSupport
}

// NewFastCache returns an empty FastCache.
func NewFastCache() *FastCache {
	return &FastCache{ok: map[*ast.Field]fastSupport{}}
}

// fastSupport is whether the fast path serves a selection.
type fastSupport uint8

const (
	fastNo       fastSupport = iota
	fastYes                  // and nothing in it is deferred
	fastDeferred             // with deferred fragments (FastDeferrals)
)

// FastOutcome is what Marshal did with a field.
type FastOutcome uint8

const (
	// FastSkipped: nothing to serve (a scalar, a subscription).
	FastSkipped FastOutcome = iota
	// FastUnsupported: the selection names a field the fast path has no
	// table entry for; gqlgen's executor serves it.
	FastUnsupported
	// FastGaveUp: an error, a null in a non-null place or a panic; gqlgen's
	// executor serves the field again and reports it.
	FastGaveUp
	// FastServed: the fast path wrote the field's answer.
	FastServed
)

// String names the outcome, as the metrics label it.
func (o FastOutcome) String() string {
	switch o {
	case FastUnsupported:
		return "unsupported"
	case FastGaveUp:
		return "gave_up"
	case FastServed:
		return "served"
	}
	return "skipped"
}

// errGiveUp stops a run that gqlgen must redo.
var errGiveUp = errors.New("fast path: left to gqlgen")

// Marshal returns the answer of the field of ctx, whose resolver returned
// v: the whole value, every level below resolved, when the outcome is
// FastServed; otherwise v goes on to gqlgen. cache (nil: none) remembers
// for the request which selections the fast path serves. charge is called
// with the nodes (fields and list elements below the field) and bytes of
// the answer as they grow; an error from it stops the run and is returned.
//
// A selection with deferred fragments (@defer) is served when defers is
// not nil: the answer leaves the deferred fields out, and defers receives
// what resolves them later, for the operation's later payloads. With a nil
// defers such a selection is left to gqlgen.
//
// release, when not nil, is called with the field context of each level
// below the field (not the field's own value) once the run has written
// what it needs of the level's objects and loaded their children: the
// caller drops what it holds of that level (the loaders' batch at its
// path), so that a large tree's objects are collected as it goes rather
// than at its end (fast_levels.go). A run with deferred fragments never
// releases: their fields resolve later from the level's objects.
func (x *Fast) Marshal(ctx context.Context, v any, cache *FastCache, defers *FastDeferrals, charge func(nodes, bytes int) error, release func(context.Context)) (m graphql.Marshaler, outcome FastOutcome, err error) {
	if x == nil || !graphql.HasOperationContext(ctx) {
		return nil, FastSkipped, nil
	}
	fc := graphql.GetFieldContext(ctx)
	oc := graphql.GetOperationContext(ctx)
	if fc == nil || fc.Field.Field == nil || fc.Field.Definition == nil || oc.Operation == nil ||
		oc.Operation.Operation == ast.Subscription || len(fc.Field.Selections) == 0 {
		return nil, FastSkipped, nil
	}
	sup := x.serves(cache, oc, fc.Field)
	if sup == fastNo || sup == fastDeferred && defers == nil {
		return nil, FastUnsupported, nil
	}
	ec := newExecutionContext(oc, x.es, nil)
	r := &fastRun{ec: ec, oc: oc, charge: charge, release: release}
	r.out = &r.buf
	if sup == fastDeferred {
		r.deferring, r.release = true, nil
		r.base, r.fieldCtx = fc.Path(), ctx
	}
	// Errors of the run go to a list of its own: any error means gqlgen
	// redoes the field and reports it.
	rctx := graphql.WithResponseContext(ctx, graphql.DefaultErrorPresenter, oc.RecoverFunc)
	defer func() {
		if p := recover(); p != nil {
			m, outcome, err = nil, FastGaveUp, nil
		}
	}()
	root := &fastLevel{}
	objs, isNil, ok := fastFlatten(v, nil)
	if !ok {
		return nil, FastUnsupported, nil
	}
	root.objs = objs
	span := fastSpan{end: int32(len(root.objs)), null: isNil}
	if err := r.resolve(rctx, root, fc.Field.Selections, true); err != nil {
		if errors.Is(err, errGiveUp) {
			return nil, FastGaveUp, nil
		}
		return nil, FastGaveUp, err
	}
	// With release the answer is only counted (and checked for nulls in
	// non-null places) here, and written from the levels' pieces straight
	// into gqlgen's buffer (fastPieces): no copy of it waits in between.
	var count fastCount
	if r.release != nil {
		r.out = &count
	}
	if !r.writeValue(rctx, fc.Field.Definition.Type, root, span) ||
		len(graphql.GetErrors(rctx)) > 0 {
		return nil, FastGaveUp, nil
	}
	if err := r.chargeBytes(true); err != nil {
		return nil, FastGaveUp, err
	}
	if r.deferring {
		defers.add(r)
	}
	if r.release != nil {
		return fastPieces{r: r, ctx: rctx, typ: fc.Field.Definition.Type, root: root, span: span, size: count.n}, FastServed, nil
	}
	return fastJSON{&r.buf}, FastServed, nil
}

// serves reports whether the fast path serves the selection of f,
// remembering the answer in c.
func (x *Fast) serves(c *FastCache, oc *graphql.OperationContext, f graphql.CollectedField) fastSupport {
	if c != nil {
		c.mu.Lock()
		sup, seen := c.ok[f.Field]
		c.mu.Unlock()
		if seen {
			return sup
		}
	}
	sup := fastNo
	if def := x.es.Schema().Types[f.Definition.Type.Name()]; def != nil {
		if ok, deferred := x.supported(oc, f.Selections, def, false); ok && deferred {
			sup = fastDeferred
		} else if ok {
			sup = fastYes
		}
	}
	if c != nil {
		c.mu.Lock()
		c.ok[f.Field] = sup
		c.mu.Unlock()
	}
	return sup
}

// supported reports whether every field selected by sel on def (any of its
// possible types), and below, has a table entry, and whether any of them
// is deferred. A deferred fragment inside a deferred fragment (inDefer) is
// left to gqlgen.
func (x *Fast) supported(oc *graphql.OperationContext, sel ast.SelectionSet, def *ast.Definition, inDefer bool) (ok, deferred bool) {
	var possible []*ast.Definition
	switch def.Kind {
	case ast.Object:
		possible = []*ast.Definition{def}
	case ast.Interface, ast.Union:
		possible = x.es.Schema().GetPossibleTypes(def)
	default:
		return false, false
	}
	for _, t := range possible {
		impl := fastImplementors(t.Name)
		if impl == nil {
			return false, false
		}
		for _, f := range graphql.CollectFields(oc, sel, impl) {
			if f.Definition == nil {
				return false, false
			}
			kind := fastKindOf(t.Name, f.Name)
			fieldDeferred := f.IsDeferred() && fastDefers(kind)
			if inDefer && len(f.Deferrables) > 0 {
				return false, false
			}
			deferred = deferred || fieldDeferred
			switch kind {
			case fastUnsupported:
				return false, false
			case fastObjectField:
				child := x.es.Schema().Types[f.Definition.Type.Name()]
				if child == nil {
					return false, false
				}
				ok, d := x.supported(oc, f.Selections, child, inDefer || fieldDeferred)
				if !ok {
					return false, false
				}
				deferred = deferred || d
			}
		}
	}
	return true, deferred
}

// fastDefers reports whether a field of kind is delivered later when a
// deferred fragment selects it: fields that resolve. A plain value is
// written at once, as gqlgen's executor does.
func fastDefers(kind fastKind) bool {
	return kind == fastLeaf || kind == fastObjectField
}

// fastRun is one field's answer being built.
type fastRun struct {
	ec      *executionContext
	oc      *graphql.OperationContext
	charge  func(nodes, bytes int) error
	buf     fastBuffer
	out     fastSink // where the answer is written: buf, or see Marshal
	charged int      // bytes of out charged so far
	written bool     // the answer is being written into gqlgen's buffer

	// With release: each object's own part of the answer, written as its
	// level resolves (fast_levels.go).
	release func(context.Context)
	pieces  fastBuffer

	// With deferred fragments: the path of the value being written, and
	// the deferred fields of the levels, resolved later (fast_defer.go).
	deferring bool
	base      ast.Path        // the path of the field
	fieldCtx  context.Context // the field's, for gqlgen's executor
	path      ast.Path        // below base
	groups    []*fastDeferGroup
}

// A fastLevel is the objects at one field path, from every parent.
type fastLevel struct {
	objs  []fastObject
	types []*fastFields // per concrete type met at the level
	// With release (fast_levels.go), once the level is written: for
	// object i, its pieces span the run's pieces from cuts[at[i]] to
	// cuts[at[i]+1], then to cuts[at[i]+2], ..., one more than it has
	// object fields; shape[i] is 0 for a null object, else 1 + the index
	// of its type in types, and objs is dropped.
	at, cuts []int32
	shape    []uint8
}

// isNull reports whether object i of lv is null.
func (lv *fastLevel) isNull(i int) bool {
	if lv.shape != nil {
		return lv.shape[i] == 0
	}
	return lv.objs[i].ptr == nil
}

// fieldsAt returns what lv selects on the type of object i, or nil.
func (lv *fastLevel) fieldsAt(i int) *fastFields {
	if lv.shape != nil {
		return lv.types[lv.shape[i]-1]
	}
	return lv.of(lv.objs[i].typ)
}

// of returns what lv selects on typ, or nil before it was collected.
func (lv *fastLevel) of(typ string) *fastFields {
	for _, t := range lv.types {
		if t.typ == typ {
			return t
		}
	}
	return nil
}

// fastFields is what a level selects on one of its concrete types.
type fastFields struct {
	typ      string
	fields   []graphql.CollectedField
	kinds    []fastKind
	out      []*fastOut      // per field: the resolved values (nil for plain fields)
	deferred []bool          // per field: resolved later (nil: none is)
	group    *fastDeferGroup // the deferred fields' later payloads
}

// fastOut is what a resolved field returned for the objects of its level.
type fastOut struct {
	vals  []any      // fastLeaf: per object of the level
	spans []fastSpan // fastObjectField: per object, its objects in child
	child *fastLevel
}

// fastSpan locates one object's value of a field among the objects of the
// level below.
type fastSpan struct {
	start, end int32
	null       bool // a nil slice or object
}

// fields returns what lv selects on typ, collecting it on first use.
func (r *fastRun) fields(lv *fastLevel, sel ast.SelectionSet, typ string) *fastFields {
	if t := lv.of(typ); t != nil {
		return t
	}
	t := &fastFields{typ: typ, fields: graphql.CollectFields(r.oc, sel, fastImplementors(typ))}
	t.kinds = make([]fastKind, len(t.fields))
	t.out = make([]*fastOut, len(t.fields))
	for i, f := range t.fields {
		t.kinds[i] = fastKindOf(typ, f.Name)
		if r.deferring && f.IsDeferred() && fastDefers(t.kinds[i]) {
			if t.deferred == nil {
				t.deferred = make([]bool, len(t.fields))
			}
			t.deferred[i] = true
		}
	}
	lv.types = append(lv.types, t)
	return t
}

// writeValue writes the value of type typ that sp locates in lv: a list,
// an object or null. It reports false for a null in a non-null place.
func (r *fastRun) writeValue(ctx context.Context, typ *ast.Type, lv *fastLevel, sp fastSpan) bool {
	w := r.out
	if typ.Elem == nil {
		if sp.start == sp.end || lv.isNull(int(sp.start)) {
			if typ.NonNull {
				return false
			}
			w.WriteString("null")
			return true
		}
		return r.writeObject(ctx, lv, int(sp.start))
	}
	if sp.null && !typ.NonNull {
		w.WriteString("null")
		return true
	}
	if typ.Elem.Elem != nil {
		return false // lists of lists are gqlgen's
	}
	w.WriteByte('[')
	for k := sp.start; k < sp.end; k++ {
		if k > sp.start {
			w.WriteByte(',')
		}
		if lv.isNull(int(k)) {
			if typ.Elem.NonNull {
				return false
			}
			w.WriteString("null")
			continue
		}
		if r.deferring {
			r.path = append(r.path, ast.PathIndex(k-sp.start))
		}
		ok := r.writeObject(ctx, lv, int(k))
		if r.deferring {
			r.path = r.path[:len(r.path)-1]
		}
		if !ok {
			return false
		}
	}
	w.WriteByte(']')
	return true
}

// writeObject writes object i of lv with its selected fields, in
// selection order, as gqlgen's FieldSet does, leaving out the deferred
// ones, which wait in the group of its type with its path.
func (r *fastRun) writeObject(ctx context.Context, lv *fastLevel, i int) bool {
	t := lv.fieldsAt(i)
	if t == nil {
		return false
	}
	if t.group != nil {
		t.group.add(i, r.path)
	}
	return r.writeFields(ctx, lv, i, t, "", false)
}

// writeFields writes object i of lv (of type t): the fields not deferred,
// or when deferred is true the deferred fields of the fragments labelled
// label.
func (r *fastRun) writeFields(ctx context.Context, lv *fastLevel, i int, t *fastFields, label string, deferred bool) bool {
	if lv.at != nil {
		return r.writeWritten(ctx, lv, i, t)
	}
	o := lv.objs[i]
	w := r.out
	w.WriteByte('{')
	first := true
	for j, f := range t.fields {
		if deferred != (t.deferred != nil && t.deferred[j]) || deferred && !fastHasLabel(f, label) {
			continue
		}
		writeKey(w, !first, f.Alias)
		first = false
		switch t.kinds[j] {
		case fastTypename, fastPlain, fastLeaf:
			if !r.writeScalar(ctx, w, t, j, i, o) {
				return false
			}
		case fastObjectField:
			out := t.out[j]
			if r.deferring {
				r.path = append(r.path, ast.PathName(f.Alias))
			}
			ok := r.writeValue(ctx, f.Definition.Type, out.child, out.spans[i])
			if r.deferring {
				r.path = r.path[:len(r.path)-1]
			}
			if !ok {
				return false
			}
		default:
			return false
		}
	}
	w.WriteByte('}')
	return r.chargeBytes(false) == nil
}

// chargeBytes charges what the answer grew by since the last charge, every
// fastBytesStep bytes (or now, when final).
func (r *fastRun) chargeBytes(final bool) error {
	if r.written {
		return nil // counted before
	}
	n := r.out.Len() - r.charged
	if n < fastBytesStep && !(final && n > 0) {
		return nil
	}
	r.charged = r.out.Len()
	return r.charge(0, n)
}
