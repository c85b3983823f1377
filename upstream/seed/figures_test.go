package seed_test

import (
	"context"
	"math"
	"testing"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
	"github.com/okrgate/okrgate/upstream/seed"
)

// TestSyntheticFiguresMatchFullRecompute: seeding writes in batches whose
// figures are folded once per batch; afterwards every goal's figures and
// counts must equal a computation from scratch over what the store lists.
func TestSyntheticFiguresMatchFullRecompute(t *testing.T) {
	st, ctx := account(t)
	var progress []int
	sum, err := seed.Synthetic(ctx, st, seed.Options{Goals: 300, Seed: 5, Sessions: 3, Batch: 70,
		Progress: func(n int) { progress = append(progress, n) }})
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{70, 140, 210, 280, 300}; len(progress) != len(want) || progress[0] != 70 || progress[4] != 300 {
		t.Errorf("progress reported %v, want %v", progress, want)
	}
	goals := listAll(t, ctx, st.ListGoals)
	metrics := listAll(t, ctx, st.ListMetrics)
	tasks := listAll(t, ctx, st.ListTasks)
	if len(goals) != sum.Goals || len(metrics) != sum.Metrics || len(tasks) != sum.Tasks {
		t.Fatalf("listed %d/%d/%d, summary %+v", len(goals), len(metrics), len(tasks), sum)
	}
	atts := map[string][]float64{}
	for _, m := range metrics { // listed in id order
		atts[m.GoalID] = append(atts[m.GoalID], m.Attainment)
	}
	taskCount := map[string]int{}
	for _, tk := range tasks {
		taskCount[tk.ParentID]++
	}
	tree := make([]upstream.TreeGoal, len(goals))
	for i, g := range goals {
		tree[i] = upstream.TreeGoal{ID: g.ID, ParentID: g.ParentID, SessionID: g.SessionID, Mode: g.AttainmentTypeString, Metrics: atts[g.ID]}
	}
	want := upstream.ComputeFigures(tree)
	round := func(x float64) float64 { return math.Round(x*1e12) / 1e12 }
	deepest := 0
	for _, g := range goals {
		f := want[g.ID]
		if g.Attainment != round(f.Attainment) || g.AggregatedAttainment != round(f.AggregatedAttainment) ||
			g.ChildrenAggregatedAttainment != round(f.ChildrenAggregatedAttainment) ||
			g.FullAggregatedAttainment != round(f.FullAggregatedAttainment) ||
			g.ChildrenCount != f.ChildrenCount || g.SubTreeCount != f.SubTreeCount || g.FullSubTreeCount != f.FullSubTreeCount ||
			g.MetricsCount != len(atts[g.ID]) || g.TasksCount != taskCount[g.ID] || g.NonArchivedTasksCount != taskCount[g.ID] {
			t.Fatalf("goal %s: stored %+v\nwant %+v, %d key results, %d tasks", g.ID, g, f, len(atts[g.ID]), taskCount[g.ID])
		}
		deepest = max(deepest, f.FullSubTreeCount)
	}
	if deepest < 3 {
		t.Fatalf("largest tree has %d descendants: want trees", deepest)
	}
}

// listAll pages through a list operation.
func listAll[T any](t *testing.T, ctx context.Context, list func(context.Context, upstream.ListQuery) (upstream.Page[T], error)) []T {
	t.Helper()
	var out []T
	for {
		p, err := list(ctx, upstream.ListQuery{Skip: len(out), Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p.Items...)
		if len(p.Items) == 0 || len(out) >= p.TotalCount {
			return out
		}
	}
}

var _ seed.Writer = (*sqlstore.Store)(nil)
