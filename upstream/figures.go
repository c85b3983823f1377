package upstream

import (
	"cmp"
	"slices"
)

// TreeGoal holds what the derived figures of a goal depend on.
type TreeGoal struct {
	ID        string
	ParentID  string
	SessionID string
	// Mode is the goal's attainmentTypeString.
	Mode string
	// Metrics are the attainments of the goal's key results, in key-result
	// id order (the order fixes the floating-point sums).
	Metrics []float64
}

// GoalFigures are the derived figures of a goal.
type GoalFigures struct {
	Attainment                   float64
	AggregatedAttainment         float64 // mean over all descendants, not itself
	ChildrenAggregatedAttainment float64 // mean over direct children
	FullAggregatedAttainment     float64 // mean over itself and all descendants
	ChildrenCount                int
	SubTreeCount                 int // descendants in the goal's own session
	FullSubTreeCount             int // all descendants
}

// Subtree is what a goal hands up to its parent: its own attainment and the
// sums over its descendants. Every figure of a goal follows from its own
// facts (mode, session, key results) and the Subtrees of its direct
// children, so a store that keeps a Subtree per goal recomputes a change by
// folding the path from the changed goal to its root, reading only the
// direct children of each goal on the path.
type Subtree struct {
	Attainment float64        // the goal's attainment, unrounded
	Count      int            // number of descendants
	Sum        float64        // sum of the descendants' attainments
	Sessions   map[string]int // number of descendants per session id
}

// Equal reports whether two summaries are the same, bit for bit.
func (s Subtree) Equal(o Subtree) bool {
	if s.Attainment != o.Attainment || s.Count != o.Count || s.Sum != o.Sum || len(s.Sessions) != len(o.Sessions) {
		return false
	}
	for k, v := range s.Sessions {
		if w, ok := o.Sessions[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// Child is a direct child of a goal as its parent sees it.
type Child struct {
	ID        string
	SessionID string
	Subtree
}

// Fold computes the Subtree and the figures of goal g from its own facts and
// the Subtrees of its direct children. It sorts children by id in place:
// the sums are then taken in one fixed order, so folding a path and
// computing the whole tree give the same bits.
//
//   - attainment: average_kr is the mean of the key results; average_children
//     the mean of the children's attainments; average_kr_and_children the mean
//     of both together. No values means 0.
//   - childrenAggregatedAttainment: mean of the children's attainments.
//   - aggregatedAttainment: mean of all descendants' attainments.
//   - fullAggregatedAttainment: mean of the goal's and all descendants' attainments.
//   - childrenCount, fullSubTreeCount: direct children, all descendants.
//   - subTreeCount: descendants in the goal's own session.
func Fold(g TreeGoal, children []Child) (Subtree, GoalFigures) {
	slices.SortFunc(children, func(a, b Child) int { return cmp.Compare(a.ID, b.ID) })
	var sub Subtree
	var childSum float64
	for _, c := range children {
		childSum += c.Attainment
		sub.Sum += c.Attainment
		sub.Sum += c.Sum
		sub.Count += 1 + c.Count
		if sub.Sessions == nil {
			sub.Sessions = map[string]int{}
		}
		sub.Sessions[c.SessionID]++
		for sid, n := range c.Sessions {
			sub.Sessions[sid] += n
		}
	}
	var metricSum float64
	for _, a := range g.Metrics {
		metricSum += a
	}
	switch g.Mode {
	case AverageChildren:
		sub.Attainment = ratio(childSum, len(children))
	case AverageKRAndChildren:
		sub.Attainment = ratio(metricSum+childSum, len(g.Metrics)+len(children))
	default:
		sub.Attainment = ratio(metricSum, len(g.Metrics))
	}
	return sub, GoalFigures{
		Attainment:                   sub.Attainment,
		AggregatedAttainment:         ratio(sub.Sum, sub.Count),
		ChildrenAggregatedAttainment: ratio(childSum, len(children)),
		FullAggregatedAttainment:     (sub.Attainment + sub.Sum) / float64(1+sub.Count),
		ChildrenCount:                len(children),
		SubTreeCount:                 sub.Sessions[g.SessionID],
		FullSubTreeCount:             sub.Count,
	}
}

// ratio is sum/n, or 0 for no values.
func ratio(sum float64, n int) float64 {
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// Folded is one goal's result of ComputeTree.
type Folded struct {
	Subtree Subtree
	Figures GoalFigures
}

// ComputeTree folds every goal in goals bottom-up. goals must be closed under
// descent: every child of a goal in the set is in the set. Parents outside
// the set are ignored, so a subtree can be passed on its own. A goal whose
// parent chain forms a cycle is not counted as a child in the cycle; the
// store never creates cycles.
func ComputeTree(goals []TreeGoal) map[string]Folded {
	byID := make(map[string]*TreeGoal, len(goals))
	for i := range goals {
		byID[goals[i].ID] = &goals[i]
	}
	children := make(map[string][]string, len(goals))
	for _, g := range goals {
		if _, ok := byID[g.ParentID]; ok && g.ParentID != g.ID {
			children[g.ParentID] = append(children[g.ParentID], g.ID)
		}
	}
	out := make(map[string]Folded, len(goals))
	visiting := make(map[string]bool)
	var visit func(id string) bool
	visit = func(id string) bool {
		if _, ok := out[id]; ok {
			return true
		}
		if visiting[id] {
			return false // a cycle
		}
		visiting[id] = true
		g := byID[id]
		var cs []Child
		for _, c := range children[id] {
			if !visit(c) {
				continue
			}
			cs = append(cs, Child{ID: c, SessionID: byID[c].SessionID, Subtree: out[c].Subtree})
		}
		sub, figs := Fold(*g, cs)
		out[id] = Folded{Subtree: sub, Figures: figs}
		visiting[id] = false
		return true
	}
	for _, g := range goals {
		visit(g.ID)
	}
	return out
}

// ComputeFigures computes the figures of every goal in goals from scratch;
// see ComputeTree for what goals must hold.
func ComputeFigures(goals []TreeGoal) map[string]GoalFigures {
	tree := ComputeTree(goals)
	out := make(map[string]GoalFigures, len(tree))
	for id, f := range tree {
		out[id] = f.Figures
	}
	return out
}
