package upstream_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/okrgate/okrgate/upstream"
)

// TestFoldPathMatchesComputeTree changes one goal of a random tree and
// refolds only its path to the root from the other goals' Subtrees: the
// result must be bit for bit what ComputeTree gives for the changed tree.
func TestFoldPathMatchesComputeTree(t *testing.T) {
	modes := []string{upstream.AverageKR, upstream.AverageChildren, upstream.AverageKRAndChildren}
	for seed := uint64(0); seed < 50; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		n := 2 + rng.IntN(60)
		goals := make([]upstream.TreeGoal, n)
		for i := range goals {
			g := upstream.TreeGoal{ID: fmt.Sprintf("g%03d", rng.IntN(1000)*100+i), SessionID: fmt.Sprint("s", rng.IntN(3)), Mode: modes[rng.IntN(3)]}
			if i > 0 && rng.IntN(6) != 0 {
				g.ParentID = goals[rng.IntN(i)].ID
			}
			for range rng.IntN(4) {
				g.Metrics = append(g.Metrics, rng.Float64()*1.3)
			}
			goals[i] = g
		}
		before := upstream.ComputeTree(goals)
		// Change one goal's key results and session.
		x := rng.IntN(n)
		goals[x].Metrics = append(goals[x].Metrics, rng.Float64())
		goals[x].SessionID = fmt.Sprint("s", rng.IntN(3))
		after := upstream.ComputeTree(goals)

		byID := map[string]upstream.TreeGoal{}
		children := map[string][]string{}
		for _, g := range goals {
			byID[g.ID] = g
			children[g.ParentID] = append(children[g.ParentID], g.ID)
		}
		fresh := map[string]upstream.Subtree{}
		for id := goals[x].ID; id != ""; id = byID[id].ParentID {
			var cs []upstream.Child
			for _, c := range children[id] {
				sub, ok := fresh[c]
				if !ok {
					sub = before[c].Subtree
				}
				cs = append(cs, upstream.Child{ID: c, SessionID: byID[c].SessionID, Subtree: sub})
			}
			sub, figs := upstream.Fold(byID[id], cs)
			fresh[id] = sub
			if !sub.Equal(after[id].Subtree) || figs != after[id].Figures {
				t.Fatalf("seed %d, goal %s: path fold %+v %+v, full %+v", seed, id, sub, figs, after[id])
			}
		}
	}
}

func TestFoldEmpty(t *testing.T) {
	sub, figs := upstream.Fold(upstream.TreeGoal{ID: "x", Mode: upstream.AverageKRAndChildren}, nil)
	if sub.Count != 0 || sub.Attainment != 0 || figs != (upstream.GoalFigures{}) {
		t.Fatalf("empty goal: %+v %+v", sub, figs)
	}
}
