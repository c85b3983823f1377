package fastpath

import (
	"context"
	"io"
	"math"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
)

// Resolving the levels of a run, and what a level keeps of its objects.
//
// A run that may release its levels (Marshal's release, the answer of a
// top-level field without deferred fragments) keeps no object of a level
// longer than it needs it: it resolves the level's leaf fields, writes
// every object's own part of the answer at once (its plain and leaf
// fields, the keys of its object fields: the pieces between the values of
// its object fields), then asks each object field's resolver for the
// objects' children, and then the level's objects — the models the
// loaders decoded, ~650 bytes each for a goal or a key result — are no
// longer read: the run drops its pointers to them and release lets the
// loaders drop theirs before the run goes one level down. What a tree
// holds at its peak is then its written pieces (about the size of the
// answer) and the models of the levels loaded but not yet written, not the
// models of every level (docs/decisions/tree-memory.md, "The tree's memory").

// resolve resolves every field of lv that is not plain and not deferred,
// one field at a time for all the objects of the level, then the levels
// below; the deferred fields of a type wait in a group of the run. Sibling
// fields (a goal's owners, tasks and key results) resolve one after the
// other: resolving them at once held more memory for no faster answer, even
// in gateway mode (docs/decisions/graphql-execution.md). top says lv is the run's first
// level, the value of the field Marshal serves, which is never released.
func (r *fastRun) resolve(ctx context.Context, lv *fastLevel, sel ast.SelectionSet, top bool) error {
	nodes := 0
	for _, o := range lv.objs {
		if o.ptr != nil {
			nodes += len(r.fields(lv, sel, o.typ).fields)
		}
	}
	if err := r.charge(nodes, 0); err != nil {
		return err
	}
	if r.release != nil {
		return r.resolveReleasing(ctx, lv, top)
	}
	for _, t := range lv.types {
		if t.deferred != nil && t.group == nil {
			t.group = &fastDeferGroup{ctx: ctx, lv: lv, t: t}
			r.groups = append(r.groups, t.group)
		}
		for j, f := range t.fields {
			if t.deferred != nil && t.deferred[j] {
				continue
			}
			if kind := t.kinds[j]; kind == fastLeaf || kind == fastObjectField {
				if err := r.resolveField(ctx, lv, t, j, f); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// resolveReleasing resolves lv as resolve does, releasing each level once
// it is written and its children are loaded (a run without deferred
// fields): the leaf fields, then the pieces of every object, then the
// children of every object field, then the levels below, one after the
// other.
func (r *fastRun) resolveReleasing(ctx context.Context, lv *fastLevel, top bool) error {
	var leaves []context.Context
	for _, t := range lv.types {
		for j, f := range t.fields {
			if t.kinds[j] != fastLeaf {
				continue
			}
			fctx, err := r.loadField(ctx, lv, t, j, f)
			if err != nil {
				return err
			}
			leaves = append(leaves, fctx)
		}
	}
	if !r.writePieces(ctx, lv) {
		return errGiveUp
	}
	for _, fctx := range leaves { // their values are written
		r.release(fctx)
	}
	type below struct {
		ctx   context.Context
		child *fastLevel
		sel   ast.SelectionSet
	}
	var next []below
	for _, t := range lv.types {
		for j, f := range t.fields {
			if t.kinds[j] != fastObjectField {
				continue
			}
			fctx, err := r.loadField(ctx, lv, t, j, f)
			if err != nil {
				return err
			}
			next = append(next, below{fctx, t.out[j].child, f.Selections})
		}
	}
	lv.compact()
	if !top {
		r.release(ctx)
	}
	for _, b := range next {
		if err := r.resolve(b.ctx, b.child, b.sel, false); err != nil {
			return err
		}
	}
	return nil
}

// resolveField resolves field j (f) of the objects of type t.typ in lv,
// and the levels below it.
func (r *fastRun) resolveField(ctx context.Context, lv *fastLevel, t *fastFields, j int, f graphql.CollectedField) error {
	fctx, err := r.loadField(ctx, lv, t, j, f)
	if err != nil || t.kinds[j] != fastObjectField {
		return err
	}
	return r.resolve(fctx, t.out[j].child, f.Selections, false)
}

// loadField calls the resolver of field j (f) for the objects of type
// t.typ in lv: their leaf values, or their objects, the level below (not
// yet resolved). It returns the field's context.
func (r *fastRun) loadField(ctx context.Context, lv *fastLevel, t *fastFields, j int, f graphql.CollectedField) (context.Context, error) {
	kind := t.kinds[j]
	fc, err := r.ec.FieldContext(ctx, t.typ, f)
	if err != nil {
		return nil, errGiveUp
	}
	fctx := graphql.WithFieldContext(ctx, fc)
	out := &fastOut{}
	t.out[j] = out
	if kind == fastLeaf {
		out.vals = make([]any, len(lv.objs))
	} else {
		out.spans = make([]fastSpan, len(lv.objs))
		out.child = &fastLevel{}
	}
	for i, o := range lv.objs {
		if o.typ != t.typ || o.ptr == nil {
			continue
		}
		v, err := r.ec.Resolve(fctx, t.typ, f, fc, o.ptr)
		if err != nil {
			return nil, errGiveUp
		}
		if kind == fastLeaf {
			out.vals[i] = v
			continue
		}
		start := len(out.child.objs)
		var isNil, ok bool
		if out.child.objs, isNil, ok = fastFlatten(v, out.child.objs); !ok {
			return nil, errGiveUp
		}
		out.spans[i] = fastSpan{start: int32(start), end: int32(len(out.child.objs)), null: isNil}
	}
	if kind == fastObjectField && f.Definition.Type.Elem != nil { // list elements are nodes too
		if err := r.charge(len(out.child.objs), 0); err != nil {
			return nil, err
		}
	}
	return fctx, nil
}

// writePieces writes the pieces of every object of lv into the run's
// pieces and drops the level's leaf values: for an object with k object
// fields, k+1 pieces — from its `{` to the key of its first object field,
// from there to the key of the next, ..., from the last to its `}` — which
// writeFields later writes around the values of its object fields. It
// reports false for a null in a non-null place.
func (r *fastRun) writePieces(ctx context.Context, lv *fastLevel) bool {
	w := &r.pieces
	lv.at = make([]int32, len(lv.objs))
	if r.keep {
		lv.ids = make([]string, len(lv.objs))
	}
	for i, o := range lv.objs {
		if o.ptr == nil {
			continue
		}
		if r.keep {
			lv.ids[i] = idOf(o.ptr)
		}
		t := lv.of(o.typ)
		if t == nil || w.Len() > math.MaxInt32-1 {
			return false
		}
		lv.at[i] = int32(len(lv.cuts))
		lv.cuts = append(lv.cuts, int32(w.Len()))
		w.WriteByte('{')
		for j, f := range t.fields {
			writeKey(w, j > 0, f.Alias)
			switch t.kinds[j] {
			case fastTypename, fastPlain, fastLeaf:
				if !r.writeScalar(ctx, w, t, j, i, o) {
					return false
				}
			case fastObjectField:
				lv.cuts = append(lv.cuts, int32(w.Len()))
			default:
				return false
			}
		}
		w.WriteByte('}')
		lv.cuts = append(lv.cuts, int32(w.Len()))
	}
	for _, t := range lv.types {
		for j, k := range t.kinds {
			if k == fastLeaf {
				t.out[j].vals = nil
			}
		}
	}
	return w.Len() <= math.MaxInt32
}

// writeWritten writes object i of lv (of type t) from its pieces and the
// values of its object fields.
func (r *fastRun) writeWritten(ctx context.Context, lv *fastLevel, i int, t *fastFields) bool {
	c := lv.cuts[lv.at[i]:]
	p := 0
	for j, f := range t.fields {
		if t.kinds[j] != fastObjectField {
			continue
		}
		r.pieces.copyTo(r.out, int(c[p]), int(c[p+1]))
		p++
		out := t.out[j]
		child, span := out.child, out.spans[i]
		if sub, ok := lv.over[fastCell{int32(i), int32(j)}]; ok {
			child, span = sub.child, sub.span
		}
		if !r.writeValue(ctx, f.Definition.Type, child, span) {
			return false
		}
	}
	r.pieces.copyTo(r.out, int(c[p]), int(c[p+1]))
	return r.chargeBytes(false) == nil
}

// compact drops the objects of a written level, keeping of each only
// whether it is null and its type: the run holds no model of it.
func (lv *fastLevel) compact() {
	if len(lv.types) > 254 {
		for i := range lv.objs { // never so many types at a level; keep the objects
			if lv.objs[i].ptr != nil {
				lv.objs[i].ptr = true
			}
		}
		return
	}
	lv.shape = make([]uint8, len(lv.objs))
	for i, o := range lv.objs {
		if o.ptr == nil {
			continue
		}
		for k, t := range lv.types {
			if t.typ == o.typ {
				lv.shape[i] = uint8(k + 1)
				break
			}
		}
	}
	lv.objs = nil
}

// fastPieces is an answer written from the pieces of its levels
// (levels.go) when gqlgen writes its response.
type fastPieces struct {
	r    *fastRun
	ctx  context.Context
	typ  *ast.Type
	root *fastLevel
	span fastSpan
	size int // its bytes, counted by Marshal
}

// MarshalGQL writes the answer into w, gqlgen's buffer of the response,
// grown once for the whole of it.
func (p fastPieces) MarshalGQL(w io.Writer) {
	if g, ok := w.(interface{ Grow(int) }); ok {
		g.Grow(p.size)
	}
	p.r.out, p.r.written = &fastTo{w: w}, true
	p.r.writeValue(p.ctx, p.typ, p.root, p.span)
}

// writeKey writes an object member's key and its colon, after a comma
// when the member is not the object's first.
func writeKey(w fastSink, comma bool, key string) {
	if comma {
		w.WriteByte(',')
	}
	w.WriteByte('"')
	w.WriteString(key)
	w.WriteString(`":`)
}

// writeScalar writes the value of field j of object o, the i-th of its
// level (of type t), when the field is its __typename, a plain field or a
// leaf: what the levels' pieces and the deferred writes share. It reports
// false for a null in a non-null place.
func (r *fastRun) writeScalar(ctx context.Context, w fastSink, t *fastFields, j, i int, o fastObject) bool {
	f := t.fields[j]
	switch t.kinds[j] {
	case fastTypename:
		w.WriteByte('"')
		w.WriteString(o.typ)
		w.WriteByte('"')
	case fastPlain:
		r.ec.WritePlain(ctx, w, o.typ, f, o.ptr)
	case fastLeaf:
		v := t.out[j].vals[i]
		if v == nil {
			if f.Definition.Type.NonNull {
				return false
			}
			w.WriteString("null")
			return true
		}
		r.ec.WriteLeaf(ctx, w, o.typ, f, v)
	}
	return true
}
