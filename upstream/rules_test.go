package upstream_test

import (
	"math"
	"testing"

	"github.com/okrgate/okrgate/upstream"
)

func TestMetricAttainment(t *testing.T) {
	tests := []struct {
		name                    string
		typ, op                 string
		initial, target, actual float64
		want                    float64
	}{
		{"at_least half", "double", "at_least", 0, 100, 50, 0.5},
		{"at_least default operator", "double", "", 0, 100, 25, 0.25},
		{"at_least over target not capped", "double", "at_least", 0, 100, 150, 1.5},
		{"at_least below initial floors at 0", "double", "at_least", 10, 20, 5, 0},
		{"at_least offset initial", "double", "at_least", 10, 20, 15, 0.5},
		{"at_most", "double", "at_most", 100, 60, 80, 0.5},
		{"at_most beyond target", "double", "at_most", 100, 60, 50, 1.25},
		{"at_most worse than initial", "double", "at_most", 100, 60, 120, 0},
		{"stay_above strict", "double", "stay_above", 0, 10, 10, 0},
		{"stay_above met", "double", "stay_above", 0, 10, 11, 1},
		{"stay_below met", "double", "stay_below", 0, 10, 9, 1},
		{"stay_below strict", "double", "stay_below", 0, 10, 10, 0},
		{"target equals initial met", "double", "at_least", 5, 5, 5, 1},
		{"target equals initial not met", "double", "at_least", 5, 5, 4, 0},
		{"at_most target equals initial met", "double", "at_most", 5, 5, 3, 1},
		{"boolean true", "boolean", "", 0, 1, 1, 1},
		{"boolean false", "boolean", "", 0, 1, 0, 0},
	}
	for _, tt := range tests {
		got := upstream.MetricAttainment(tt.typ, tt.op, tt.initial, tt.target, tt.actual)
		if math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("%s: MetricAttainment(%s, %s, %v, %v, %v) = %v, want %v", tt.name, tt.typ, tt.op, tt.initial, tt.target, tt.actual, got, tt.want)
		}
	}
}

func TestComputeFigures(t *testing.T) {
	// root (average_kr, KRs 1.0 and 0.0)
	//   a (average_children)
	//     a1 (KR 0.5)     a2 (KR 1.0, other session)
	//   b (average_kr_and_children, KR 0.2)
	//     b1 (KR 0.8)
	goals := []upstream.TreeGoal{
		{ID: "root", SessionID: "s1", Metrics: []float64{1, 0}},
		{ID: "a", ParentID: "root", SessionID: "s1", Mode: upstream.AverageChildren},
		{ID: "a1", ParentID: "a", SessionID: "s1", Metrics: []float64{0.5}},
		{ID: "a2", ParentID: "a", SessionID: "s2", Metrics: []float64{1}},
		{ID: "b", ParentID: "root", SessionID: "s1", Mode: upstream.AverageKRAndChildren, Metrics: []float64{0.2}},
		{ID: "b1", ParentID: "b", SessionID: "s1", Metrics: []float64{0.8}},
		{ID: "lonely", ParentID: "missing-parent", SessionID: "s1"},
	}
	got := upstream.ComputeFigures(goals)
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	check := func(id string, want upstream.GoalFigures) {
		t.Helper()
		g := got[id]
		if !near(g.Attainment, want.Attainment) || !near(g.AggregatedAttainment, want.AggregatedAttainment) ||
			!near(g.ChildrenAggregatedAttainment, want.ChildrenAggregatedAttainment) ||
			!near(g.FullAggregatedAttainment, want.FullAggregatedAttainment) ||
			g.ChildrenCount != want.ChildrenCount || g.SubTreeCount != want.SubTreeCount || g.FullSubTreeCount != want.FullSubTreeCount {
			t.Errorf("%s: got %+v, want %+v", id, g, want)
		}
	}
	check("a1", upstream.GoalFigures{Attainment: 0.5, FullAggregatedAttainment: 0.5})
	check("a", upstream.GoalFigures{Attainment: 0.75, AggregatedAttainment: 0.75, ChildrenAggregatedAttainment: 0.75,
		FullAggregatedAttainment: 0.75, ChildrenCount: 2, SubTreeCount: 1, FullSubTreeCount: 2})
	check("b", upstream.GoalFigures{Attainment: 0.5, AggregatedAttainment: 0.8, ChildrenAggregatedAttainment: 0.8,
		FullAggregatedAttainment: 0.65, ChildrenCount: 1, SubTreeCount: 1, FullSubTreeCount: 1})
	// root: own 0.5; descendants a .75, a1 .5, a2 1, b .5, b1 .8 → mean 0.71
	check("root", upstream.GoalFigures{Attainment: 0.5, AggregatedAttainment: 0.71, ChildrenAggregatedAttainment: 0.625,
		FullAggregatedAttainment: (0.5 + 3.55) / 6, ChildrenCount: 2, SubTreeCount: 4, FullSubTreeCount: 5})
	check("lonely", upstream.GoalFigures{})
}

func TestComputeFiguresCycleDoesNotHang(t *testing.T) {
	got := upstream.ComputeFigures([]upstream.TreeGoal{
		{ID: "x", ParentID: "y", Metrics: []float64{1}},
		{ID: "y", ParentID: "x", Metrics: []float64{0}},
	})
	if len(got) != 2 {
		t.Fatalf("got %d figures, want 2", len(got))
	}
}

func TestTagName(t *testing.T) {
	for in, want := range map[string]string{"  Growth ": "growth", "growth": "growth", "Q3 Plan": "q3 plan", "": ""} {
		if got := upstream.TagName(in); got != want {
			t.Errorf("TagName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDurationDays(t *testing.T) {
	if got := upstream.DurationDays("2026-01-01T00:00:00.000Z", "2026-03-31T00:00:00.000Z"); got != 89 {
		t.Errorf("got %d, want 89", got)
	}
	if got := upstream.DurationDays("2026-02-01", "2026-01-01"); got != 0 {
		t.Errorf("reversed: got %d, want 0", got)
	}
	if got := upstream.DurationDays("", "2026-01-01"); got != 0 {
		t.Errorf("missing: got %d, want 0", got)
	}
}

func TestIDSource(t *testing.T) {
	src := upstream.NewIDSource()
	seen := map[string]bool{}
	for i := 0; i < 10000; i++ {
		id := src.New()
		if !upstream.ValidID(id) {
			t.Fatalf("invalid id %q", id)
		}
		if seen[id] {
			t.Fatalf("duplicate id %q", id)
		}
		seen[id] = true
	}
	for _, bad := range []string{"", "abc", "ZZZZZZZZZZZZZZZZZZZZZZZZ", "0123456789ABCDEF01234567", "0123456789abcdef012345678"} {
		if upstream.ValidID(bad) {
			t.Errorf("ValidID(%q) = true", bad)
		}
	}
}
