package resolvers_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/okrgate/okrgate/resolvers/transport/graphqlhttp"
	"github.com/okrgate/okrgate/upstream"
)

// leanQuery is the tree of ids alone (treebench's lean selection).
const leanQuery = `query Lean($id: ID!) {
  session(id: $id) { id goals(roots: true) { id metrics { id checkins { id } } children { id metrics { id } children { id metrics { id } } } } }
}`

// decodeWatch is the store, recording what each list of goals, key
// results and check-ins asked to decode and how many of its items came
// back with a name or a value (fields a whole document fills).
type decodeWatch struct {
	upstream.API
	mu     sync.Mutex
	lists  int        // lists of the three kinds
	whole  int        // of them, lists of whole documents (Decode nil)
	keys   [][]string // per list, its Decode
	filled int        // items with a name (goals, key results) or an actual value (check-ins)
}

func (w *decodeWatch) note(q upstream.ListQuery, filled int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.lists++
	if q.Decode == nil {
		w.whole++
	}
	w.keys = append(w.keys, q.Decode)
	w.filled += filled
}

func (w *decodeWatch) ListGoals(ctx context.Context, q upstream.ListQuery) (upstream.Page[upstream.Goal], error) {
	p, err := w.API.ListGoals(ctx, q)
	w.note(q, countFunc(p.Items, func(g *upstream.Goal) bool { return g.Name != "" && !g.Obfuscated }))
	return p, err
}

func (w *decodeWatch) ListMetrics(ctx context.Context, q upstream.ListQuery) (upstream.Page[upstream.Metric], error) {
	p, err := w.API.ListMetrics(ctx, q)
	w.note(q, countFunc(p.Items, func(m *upstream.Metric) bool { return m.Name != "" }))
	return p, err
}

func (w *decodeWatch) ListCheckIns(ctx context.Context, q upstream.ListQuery) (upstream.Page[upstream.CheckIn], error) {
	p, err := w.API.ListCheckIns(ctx, q)
	w.note(q, countFunc(p.Items, func(c *upstream.CheckIn) bool { return c.Actual != 0 || c.CheckInDate != "" }))
	return p, err
}

func countFunc[T any](items []T, f func(*T) bool) int {
	n := 0
	for i := range items {
		if f(&items[i]) {
			n++
		}
	}
	return n
}

// TestLeanTreeDecodesNoDocument: the tree of ids alone reads every level
// of goals, key results and check-ins narrowed to the keys it needs — no
// list of whole documents, and no item comes back with a name or a
// check-in's value, which whole documents would fill — while the full
// tree of the same session reads names (the watch sees them). A lean
// selection's memory is then its ids and the store's own keys, not whole
// documents (docs/benchmarks/tree-memory.md, "Rows buffered up to an item").
func TestLeanTreeDecodesNoDocument(t *testing.T) {
	f := seeded(t, 100, 2)
	sid := biggestSession(t, f)
	run := func(q string) *decodeWatch {
		w := &decodeWatch{API: f.store}
		h := graphqlhttp.NewHandler(graphqlhttp.Config{API: w, Auth: f.store})
		serveQuery(t, h, f.token, q, map[string]any{"id": sid})
		return w
	}
	lean := run(leanQuery)
	if lean.lists < 5 {
		t.Fatalf("the lean tree made %d lists of goals, key results and check-ins; want one per level, at least 5", lean.lists)
	}
	if lean.whole != 0 || lean.filled != 0 {
		t.Errorf("the lean tree read %d of %d lists as whole documents and got %d items with names or values back; want 0 and 0 (keys asked: %v)",
			lean.whole, lean.lists, lean.filled, lean.keys)
	}
	for _, k := range lean.keys {
		if slices.Contains(k, "name") {
			t.Errorf("a lean list asked to decode %v; the selection names no name", k)
		}
	}
	full := run(treeQuery)
	if full.filled == 0 {
		t.Errorf("the full tree's %d lists came back without names: the watch sees nothing", full.lists)
	}
}
