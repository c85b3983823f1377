package fastpath

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
)

// Answers derived from the previous answer of the same request.
//
// A run that releases its levels (levels.go) writes each object's own part
// of the answer — its plain and leaf fields — as pieces, and the answer is
// those pieces put around the values of the objects' object fields. With
// reuse it also records each object's id, and keeps what it wrote: the
// pieces, and for each level where each object's pieces are and which
// objects of the level below each object field holds. After writes that
// changed the figures of known items and nothing else (check-ins:
// upstream.FigureChangesOf), the next execution of the same request for
// the same visibility class derives its answer from that: it reads the
// changed items again (one read per type, as the caller may see them),
// writes their pieces anew, resolves again the lists that may have grown
// below them (their check-ins), and writes the answer from the kept pieces
// and the new ones. Every other object and list reads as before, so the
// answer is the one a full execution would write, byte for byte
// (docs/graphql-execution.md, "Answers derived after check-ins").
//
// A selection is derived only when every type it reaches is one whose
// objects' fields depend on their own item alone (reusableTypes), and no
// object field below the top-level one has an argument that may filter or
// order by figures (stableArgs). The top-level field's own value is always
// resolved again, and must be the same objects (by type and id) as before.
// Anything else is executed in full, and kept for the next.

// reusableTypes are the object types a derived answer may hold: their
// fields are their item's own (changed only with it), or lists whose
// members are decided by ids that check-ins never change. Goals and key
// results change with check-ins (their figures; a goal's entity tag covers
// its key results), and a key result gains check-ins (growsTypes).
var reusableTypes = map[string]bool{
	"Session": true, "Goal": true, "Metric": true, "CheckIn": true, "User": true, "Team": true,
	"GoalConnection": true, "GoalEdge": true, "MetricConnection": true, "MetricEdge": true,
	"CheckInConnection": true, "CheckInEdge": true, "UserConnection": true, "UserEdge": true, "PageInfo": true,
}

// growsTypes are the types of the lists a changed object may have more of
// (a key result checked in has one check-in more): below a changed object
// they are resolved again. A check-in has no object field, so nothing
// below them changes later.
var growsTypes = map[string]bool{"CheckIn": true, "CheckInConnection": true}

// stableArgs are the arguments that keep a list's members and order under
// check-ins: which goals are roots, and windows of lists ordered by id. A
// filter or an order may name figures.
var stableArgs = map[string]bool{"roots": true, "first": true, "after": true}

// Reuse is what one execution of a request reuses of the previous
// execution of the same request for the same visibility class, and keeps
// for the next one. Its methods are safe for concurrent use (top-level
// fields resolve concurrently).
type Reuse struct {
	changed map[string]map[string]bool // by GraphQL type: the ids of the items that changed

	mu            sync.Mutex
	prev          map[string]*keptRun // by top-level response key; taken when used
	next          map[string]*keptRun
	derived, full int
}

// Kept is what an execution keeps for the next one of its request: the
// pieces and levels of its top-level fields' answers. Nothing in it refers
// to the request that kept it.
type Kept struct {
	runs map[string]*keptRun
	size int64
}

// Size returns about how many bytes k holds.
func (k *Kept) Size() int64 {
	if k == nil {
		return 0
	}
	return k.size
}

// keptRun is one top-level field's answer as written from its pieces.
type keptRun struct {
	p fastPieces
}

// NewReuse returns the reuse of an execution: prev is what the previous
// execution of its request kept (nil: none, or it may not be reused), and
// changed names, by GraphQL type, the items whose fields may differ since
// ("Goal", "Metric"). Without prev every top-level field is executed in
// full and kept.
func NewReuse(prev *Kept, changed map[string]map[string]bool) *Reuse {
	u := &Reuse{changed: changed, next: map[string]*keptRun{}}
	if prev != nil {
		u.prev = prev.runs
	}
	return u
}

// Reusing is what Executor.Marshal needs to derive an answer.
type Reusing struct {
	// Reuse is the execution's; nil: nothing is derived or kept.
	Reuse *Reuse
	// Load reads the items of GraphQL type typ with the ids given, as the
	// caller may see them, for objects selected by sels: by id, the model
	// as the loaders give it; an id the caller may not see is missing.
	Load func(ctx context.Context, typ string, ids []string, sels []ast.SelectionSet) (map[string]any, error)
	// Record records objs (pointers to models) as the level at the field
	// path of ctx, so that the edges below batch them as one level.
	Record func(ctx context.Context, objs []any)
}

// Outcomes returns how many top-level fields were derived and how many
// executed in full.
func (u *Reuse) Outcomes() (derived, full int) {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.derived, u.full
}

// Kept returns what the execution keeps for the next one: call it once
// the answer is written. Nil when nothing was kept.
func (u *Reuse) Kept() *Kept {
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(u.next) == 0 {
		return nil
	}
	k := &Kept{runs: u.next}
	for _, run := range u.next {
		// Drop what refers to the request: its execution, context and
		// budget. The pieces and the levels stay.
		run.p.r = &fastRun{pieces: run.p.r.pieces}
		run.p.ctx = nil
		k.size += int64(run.p.r.pieces.Len()) + levelSize(run.p.root)
	}
	u.next = nil
	return k
}

// levelSize is about what lv and the levels below hold besides pieces.
func levelSize(lv *fastLevel) int64 {
	if lv == nil {
		return 0
	}
	n := int64(len(lv.at)*4 + len(lv.cuts)*4 + len(lv.shape) + len(lv.ids)*16)
	for _, id := range lv.ids {
		n += int64(len(id))
	}
	for _, t := range lv.types {
		for _, out := range t.out {
			if out != nil {
				n += int64(len(out.spans)*12) + levelSize(out.child)
			}
		}
	}
	for _, sub := range lv.over {
		n += levelSize(sub.child)
	}
	return n
}

// keepRun keeps p, the answer of the top-level field key, for the next
// execution, unless its pieces, which grow with every derivation (the
// pieces written anew are added, those they replace stay), are more than
// twice the answer: then the next execution runs in full and writes them
// afresh.
func (u *Reuse) keepRun(key string, p fastPieces, derived bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if derived {
		u.derived++
	} else {
		u.full++
	}
	if p.r.pieces.Len() > 2*p.size {
		return
	}
	u.next[key] = &keptRun{p: p}
}

// take returns the kept run of the top-level field key, once.
func (u *Reuse) take(key string) *keptRun {
	u.mu.Lock()
	defer u.mu.Unlock()
	k := u.prev[key]
	delete(u.prev, key)
	return k
}

// fastCell names object field j of object i of a level.
type fastCell struct{ i, j int32 }

// fastSub is the value of an object field that a derived answer resolved
// again for one object: its objects in child.
type fastSub struct {
	child *fastLevel
	span  fastSpan
}

// idOf returns the id of a model: its string field ID, or "".
func idOf(ptr any) string {
	v := reflect.ValueOf(ptr)
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return ""
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return ""
	}
	if f := v.FieldByName("ID"); f.IsValid() && f.Kind() == reflect.String {
		return strings.Clone(f.String()) // not a view into the model's document
	}
	return ""
}

// deriving is one derived answer being written.
type deriving struct {
	r       *fastRun
	reuse   Reusing
	changed map[string]map[string]bool
	want    map[string][]string           // by type: the ids to read again
	sels    map[string][]ast.SelectionSet // by type: the selections on them
	dirty   map[*fastLevel]bool           // levels with changed objects at or below them
	fresh   map[string]map[string]any     // by type and id: the models read again
}

// derive writes the answer of the field of fc, whose resolver returned v,
// from the run the previous execution kept, into r. It reports false when
// the answer must be executed in full (and then the kept run is spent).
func (x *Executor) derive(ctx context.Context, fc *graphql.FieldContext, v any, r *fastRun, reuse Reusing) (m graphql.Marshaler, ok bool) {
	k := reuse.Reuse.take(fc.Field.Alias)
	if k == nil {
		return nil, false
	}
	defer func() {
		if p := recover(); p != nil {
			m, ok = nil, false
		}
	}()
	root := k.p.root
	objs, isNil, flat := fastFlatten(v, nil)
	if !flat || root.shape == nil || root.ids == nil || len(objs) != len(root.shape) || isNil != k.p.span.null {
		return nil, false
	}
	rootFresh := map[int]fastObject{}
	for i, o := range objs {
		if o.ptr == nil {
			if root.shape[i] != 0 {
				return nil, false
			}
			continue
		}
		if root.shape[i] == 0 || root.types[root.shape[i]-1].typ != o.typ || root.ids[i] != idOf(o.ptr) {
			return nil, false
		}
		rootFresh[i] = o
	}
	r.pieces, r.keep = k.p.r.pieces, true
	d := &deriving{r: r, reuse: reuse, changed: reuse.Reuse.changed, want: map[string][]string{},
		sels: map[string][]ast.SelectionSet{}, dirty: map[*fastLevel]bool{}}
	if !d.scan(root, fc.Field.Selections, true) {
		return nil, false
	}
	d.fresh = map[string]map[string]any{}
	for typ, ids := range d.want {
		got, err := reuse.Load(ctx, typ, ids, d.sels[typ])
		if err != nil {
			return nil, false
		}
		d.fresh[typ] = got
	}
	rctx := graphql.WithResponseContext(ctx, graphql.DefaultErrorPresenter, r.oc.RecoverFunc)
	if err := d.walk(rctx, root, fc.Field.Selections, rootFresh, true); err != nil {
		return nil, false
	}
	var count fastCount
	r.out = &count
	span := k.p.span
	if !r.writeValue(rctx, fc.Field.Definition.Type, root, span) || len(graphql.GetErrors(rctx)) > 0 {
		return nil, false
	}
	if err := r.chargeBytes(true); err != nil {
		return nil, false
	}
	p := fastPieces{r: r, ctx: rctx, typ: fc.Field.Definition.Type, root: root, span: span, size: count.n}
	reuse.Reuse.keepRun(fc.Field.Alias, p, true)
	return p, true
}

// scan checks that the levels from lv down may be derived (reusableTypes,
// stableArgs), and gathers the changed objects' ids and selections by
// type. It marks the levels with changed objects at or below them.
func (d *deriving) scan(lv *fastLevel, sel ast.SelectionSet, top bool) bool {
	if lv.shape == nil && len(lv.at) > 0 || lv.ids == nil && len(lv.at) > 0 {
		return false
	}
	dirty := top
	for ti, t := range lv.types {
		if !reusableTypes[t.typ] {
			return false
		}
		if ids := d.changed[t.typ]; len(ids) > 0 && !top {
			n := len(d.want[t.typ])
			for i, s := range lv.shape {
				if int(s) == ti+1 && ids[lv.ids[i]] {
					d.want[t.typ] = append(d.want[t.typ], lv.ids[i])
				}
			}
			if len(d.want[t.typ]) > n {
				dirty = true
				d.sels[t.typ] = append(d.sels[t.typ], sel)
			}
		}
		for j, f := range t.fields {
			if t.kinds[j] != fastObjectField {
				continue
			}
			for _, a := range f.Arguments {
				if !stableArgs[a.Name] {
					return false
				}
			}
			out := t.out[j]
			if out == nil || out.child == nil {
				return false
			}
			if !d.scan(out.child, f.Selections, false) {
				return false
			}
			dirty = dirty || d.dirty[out.child]
		}
	}
	if dirty {
		d.dirty[lv] = true
	}
	return true
}

// errStale says a changed item is no longer the caller's to see as before.
var errStale = errors.New("fast path: a changed item cannot be derived")

// walk writes anew the pieces of the objects of lv in fresh (by index: the
// models read again), then goes down to the levels with changed objects.
// ctx is the level's (the field context of the field that returned it).
func (d *deriving) walk(ctx context.Context, lv *fastLevel, sel ast.SelectionSet, fresh map[int]fastObject, top bool) error {
	if len(fresh) > 0 {
		if err := d.refresh(ctx, lv, sel, fresh, top); err != nil {
			return err
		}
	}
	for _, t := range lv.types {
		for j, f := range t.fields {
			if t.kinds[j] != fastObjectField {
				continue
			}
			child := t.out[j].child
			if !d.dirty[child] {
				continue
			}
			fc, err := d.r.ec.FieldContext(ctx, t.typ, f)
			if err != nil {
				return errGiveUp
			}
			below, err := d.freshAt(child)
			if err != nil {
				return err
			}
			if err := d.walk(graphql.WithFieldContext(ctx, fc), child, f.Selections, below, false); err != nil {
				return err
			}
		}
	}
	return nil
}

// freshAt returns the changed objects of lv, with their models read again.
func (d *deriving) freshAt(lv *fastLevel) (map[int]fastObject, error) {
	out := map[int]fastObject{}
	for i, s := range lv.shape {
		if s == 0 {
			continue
		}
		typ := lv.types[s-1].typ
		if !d.changed[typ][lv.ids[i]] {
			continue
		}
		m, ok := d.fresh[typ][lv.ids[i]]
		if !ok {
			return nil, errStale
		}
		out[i] = fastObject{typ: typ, ptr: m}
	}
	return out, nil
}

// refresh writes the pieces of the objects of lv in fresh anew, as a level
// of their own: their leaf fields resolved, the lists that may have grown
// below them (growsTypes) resolved and written in full; then points lv at
// the new pieces and values.
func (d *deriving) refresh(ctx context.Context, lv *fastLevel, sel ast.SelectionSet, fresh map[int]fastObject, top bool) error {
	r := d.r
	idx := make([]int, 0, len(fresh))
	for i := range fresh {
		idx = append(idx, i)
	}
	slices.Sort(idx)
	mini := &fastLevel{objs: make([]fastObject, len(idx))}
	ptrs := make([]any, len(idx))
	for k, i := range idx {
		mini.objs[k], ptrs[k] = fresh[i], fresh[i].ptr
		r.fields(mini, sel, fresh[i].typ)
	}
	if !top && d.reuse.Record != nil {
		d.reuse.Record(ctx, ptrs)
	}
	for _, mt := range mini.types {
		t := lv.of(mt.typ)
		if t == nil || len(t.fields) != len(mt.fields) {
			return errGiveUp
		}
		for j, f := range mt.fields {
			if t.fields[j].Alias != f.Alias || t.kinds[j] != mt.kinds[j] {
				return errGiveUp
			}
			if mt.kinds[j] == fastLeaf {
				if _, err := r.loadField(ctx, mini, mt, j, f); err != nil {
					return err
				}
			}
		}
	}
	if !r.writePieces(ctx, mini) {
		return errGiveUp
	}
	for _, mt := range mini.types {
		for j, f := range mt.fields {
			if mt.kinds[j] != fastObjectField || !growsTypes[f.Definition.Type.Name()] {
				continue
			}
			fctx, err := r.loadField(ctx, mini, mt, j, f)
			if err != nil {
				return err
			}
			out := mt.out[j]
			if err := r.resolve(fctx, out.child, f.Selections, false); err != nil {
				return err
			}
			if lv.over == nil {
				lv.over = map[fastCell]fastSub{}
			}
			for k, i := range idx {
				if mini.objs[k].typ == mt.typ {
					lv.over[fastCell{int32(i), int32(j)}] = fastSub{child: out.child, span: out.spans[k]}
				}
			}
		}
	}
	for k, i := range idx {
		n := 2
		for _, kind := range lv.fieldsAt(i).kinds {
			if kind == fastObjectField {
				n++
			}
		}
		from := int(mini.at[k])
		lv.at[i] = int32(len(lv.cuts))
		lv.cuts = append(lv.cuts, mini.cuts[from:from+n]...)
	}
	if !top && r.release != nil {
		r.release(ctx)
	}
	return nil
}
