package fastpath

import (
	"bytes"
	"context"
	"slices"
	"sync"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
)

// @defer on the fast path.
//
// The fast path writes the answer of a field without its deferred fields
// (those a fragment with @defer selects and nothing else does) and keeps,
// for every type at every level that has some, a group: the level's
// objects of that type with their paths. A group resolves later, when the
// operation's next payload is asked for, and still breadth first: one call
// per deferred field for all the objects of the level (a 5,000-objective
// tree's deferred children are one level load, not 5,000). Its answer is
// one payload per object and label, as gqlgen's executor makes them:
// {"data": the fragment's fields, "path": the object's path, "label"}.
//
// A deferred fragment inside a deferred fragment is gqlgen's (the whole
// field is left to it). A group that meets an error, a null in a non-null
// place or a panic is given back: each of its payloads is resolved again by
// gqlgen's executor (graph.Execution.Marshal), which reports the error with its path and
// nulls the payload as gqlgen does for its own deferred fragments.

// Deferrals holds the deferred fields of the answers the fast path
// wrote for one operation until the operation's later payloads resolve
// them. The caller makes one per operation and passes it to Marshal.
type Deferrals struct {
	present graphql.ErrorPresenterFunc
	recover graphql.RecoverFunc

	mu     sync.Mutex
	groups []*fastDeferGroup
}

// NewDeferrals returns an empty Deferrals whose payloads present
// errors with present and recover panics with recover (the server's).
func NewDeferrals(present graphql.ErrorPresenterFunc, rec graphql.RecoverFunc) *Deferrals {
	if present == nil {
		present = graphql.DefaultErrorPresenter
	}
	if rec == nil {
		rec = graphql.DefaultRecover
	}
	return &Deferrals{present: present, recover: rec}
}

// add keeps the groups of a run whose answer was served.
func (d *Deferrals) add(r *fastRun) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, g := range r.groups {
		if len(g.objs) > 0 {
			g.run = r
			d.groups = append(d.groups, g)
		}
	}
}

// Pending reports whether deferred fields wait.
func (d *Deferrals) Pending() bool {
	if d == nil {
		return false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.groups) > 0
}

// Next resolves the first waiting group and returns its payloads, in the
// order of the answer: for each object, one per label of the fragments
// that deferred its fields. It returns nil when nothing waits.
func (d *Deferrals) Next() []*graphql.Response {
	if d == nil {
		return nil
	}
	d.mu.Lock()
	if len(d.groups) == 0 {
		d.mu.Unlock()
		return nil
	}
	g := d.groups[0]
	d.groups = d.groups[1:]
	d.mu.Unlock()
	if out, ok := g.resolve(); ok {
		return out
	}
	return g.gqlgen(d.present, d.recover)
}

// fastDeferGroup is the deferred fields of one type at one level: the
// objects of the level that have them and where they are in the answer.
type fastDeferGroup struct {
	run   *fastRun
	ctx   context.Context // the level's, as its other fields resolved in
	lv    *fastLevel
	t     *fastFields
	objs  []int      // indices in lv.objs, in answer order
	paths []ast.Path // per object: its path below the run's field
}

// add records object i of the level, written at path.
func (g *fastDeferGroup) add(i int, path ast.Path) {
	g.objs = append(g.objs, i)
	g.paths = append(g.paths, slices.Clone(path))
}

// labels returns the labels of the fragments that defer fields of the
// group, in the order of the selection.
func (g *fastDeferGroup) labels() []string {
	var out []string
	for j, f := range g.t.fields {
		if !g.t.deferred[j] {
			continue
		}
		for _, d := range f.Deferrables {
			if !slices.Contains(out, d.Label) {
				out = append(out, d.Label)
			}
		}
	}
	return out
}

// fastHasLabel reports whether a fragment labelled label defers f.
func fastHasLabel(f graphql.CollectedField, label string) bool {
	for _, d := range f.Deferrables {
		if d.Label == label {
			return true
		}
	}
	return false
}

// path returns the absolute path of object k of the group.
func (g *fastDeferGroup) path(k int) ast.Path {
	return append(slices.Clone(g.run.base), g.paths[k]...)
}

// resolve resolves the group's deferred fields breadth first and writes
// its payloads; ok is false when gqlgen must do it instead.
func (g *fastDeferGroup) resolve() (out []*graphql.Response, ok bool) {
	r := g.run
	defer func() {
		if p := recover(); p != nil {
			out, ok = nil, false
		}
	}()
	ctx := graphql.WithResponseContext(g.ctx, graphql.DefaultErrorPresenter, r.oc.RecoverFunc)
	for j, f := range g.t.fields {
		if g.t.deferred[j] {
			if err := r.resolveField(ctx, g.lv, g.t, j, f); err != nil {
				return nil, false
			}
		}
	}
	if len(graphql.GetErrors(ctx)) > 0 {
		return nil, false
	}
	labels := g.labels()
	r.deferring = false // the paths below were recorded already
	for k, i := range g.objs {
		for _, label := range labels {
			r.buf.Reset()
			r.charged = 0
			if !r.writeFields(ctx, g.lv, i, g.t, label, true) || len(graphql.GetErrors(ctx)) > 0 {
				return nil, false
			}
			if err := r.chargeBytes(true); err != nil {
				return nil, false
			}
			out = append(out, &graphql.Response{Data: r.buf.Bytes(), Path: g.path(k), Label: label})
		}
	}
	return out, true
}

// gqlgen resolves the group's payloads with gqlgen's executor, one object
// and label at a time, for a group the fast path gave up on.
func (g *fastDeferGroup) gqlgen(present graphql.ErrorPresenterFunc, rec graphql.RecoverFunc) []*graphql.Response {
	r := g.run
	var out []*graphql.Response
	for k, i := range g.objs {
		o := g.lv.objs[i]
		for _, label := range g.labels() {
			var sel ast.SelectionSet
			for j, f := range g.t.fields {
				if g.t.deferred[j] && fastHasLabel(f, label) {
					c := *f.Field
					c.SelectionSet = f.Selections
					sel = append(sel, &c)
				}
			}
			ctx := graphql.WithResponseContext(r.fieldCtx, present, rec)
			ctx = fastPathContext(ctx, g.paths[k])
			var buf bytes.Buffer
			func() {
				defer func() {
					if p := recover(); p != nil {
						graphql.AddError(ctx, rec(ctx, p))
						buf.Reset()
						buf.WriteString("null")
					}
				}()
				r.ec.Marshal(ctx, o.typ, sel, o.ptr).MarshalGQL(&buf)
			}()
			out = append(out, &graphql.Response{Data: buf.Bytes(), Path: g.path(k), Label: label, Errors: graphql.GetErrors(ctx)})
		}
	}
	return out
}

// fastPathContext returns ctx with field contexts below its own for each
// element of rel, so that gqlgen's executor reports errors at their path.
func fastPathContext(ctx context.Context, rel ast.Path) context.Context {
	for _, el := range rel {
		switch el := el.(type) {
		case ast.PathIndex:
			i := int(el)
			ctx = graphql.WithFieldContext(ctx, &graphql.FieldContext{Index: &i})
		case ast.PathName:
			ctx = graphql.WithFieldContext(ctx, &graphql.FieldContext{Field: graphql.CollectedField{Field: &ast.Field{Alias: string(el)}}})
		}
	}
	return ctx
}
