package upstream

import (
	"math"
	"strings"
	"time"
)

// MetricAttainment returns the attainment of a key result as a fraction
// (1.0 = 100%), never below 0 and not capped above:
//   - at_least:   (actual − initial) / (target − initial)
//   - at_most:    (initial − actual) / (initial − target)
//   - stay_above: 1 if actual > target, else 0
//   - stay_below: 1 if actual < target, else 0
//
// When target equals initial the key result is 1 if the target is met by its
// operator and 0 otherwise. A boolean key result's attainment is its actual (0 or 1).
func MetricAttainment(manualType, operator string, initial, target, actual float64) float64 {
	if manualType == TypeBool {
		if actual >= 1 {
			return 1
		}
		return 0
	}
	var a float64
	switch operator {
	case StayAbove:
		a = boolf(actual > target)
	case StayBelow:
		a = boolf(actual < target)
	case AtMost:
		if target == initial {
			a = boolf(actual <= target)
		} else {
			a = (initial - actual) / (initial - target)
		}
	default: // AtLeast
		if target == initial {
			a = boolf(actual >= target)
		} else {
			a = (actual - initial) / (target - initial)
		}
	}
	if a < 0 || math.IsNaN(a) {
		return 0
	}
	return a
}

func boolf(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// mean returns the arithmetic mean of xs, or 0 for none.
func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var sum float64
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

// TreeGoal holds what the derived figures of a goal depend on.
type TreeGoal struct {
	ID        string
	ParentID  string
	SessionID string
	// Mode is the goal's attainmentTypeString.
	Mode string
	// Metrics are the attainments of the goal's key results.
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

// ComputeFigures computes the figures of every goal in goals, which must be
// closed under descent: every child of a goal in the set is in the set.
// Parents outside the set are ignored, so a subtree can be passed on its own.
// Goals whose parent chain forms a cycle get figures as if they were roots of
// their own; the store never creates cycles.
func ComputeFigures(goals []TreeGoal) map[string]GoalFigures {
	byID := make(map[string]*TreeGoal, len(goals))
	children := make(map[string][]string, len(goals))
	for i := range goals {
		byID[goals[i].ID] = &goals[i]
	}
	for _, g := range goals {
		if _, ok := byID[g.ParentID]; ok && g.ParentID != g.ID {
			children[g.ParentID] = append(children[g.ParentID], g.ID)
		}
	}
	out := make(map[string]GoalFigures, len(goals))
	// descendants of a goal: attainments and session ids, gathered bottom-up.
	type sub struct {
		atts     []float64
		sessions []string
	}
	subs := make(map[string]sub, len(goals))
	visiting := make(map[string]bool)
	var visit func(id string) sub
	visit = func(id string) sub {
		if s, ok := subs[id]; ok {
			return s
		}
		if visiting[id] {
			return sub{}
		}
		visiting[id] = true
		g := byID[id]
		var childAtts []float64
		var s sub
		for _, c := range children[id] {
			cs := visit(c)
			if _, done := subs[c]; !done {
				continue // part of a cycle
			}
			ca := out[c].Attainment
			childAtts = append(childAtts, ca)
			s.atts = append(s.atts, ca)
			s.atts = append(s.atts, cs.atts...)
			s.sessions = append(s.sessions, byID[c].SessionID)
			s.sessions = append(s.sessions, cs.sessions...)
		}
		var att float64
		switch g.Mode {
		case AverageChildren:
			att = mean(childAtts)
		case AverageKRAndChildren:
			att = mean(append(append([]float64(nil), g.Metrics...), childAtts...))
		default:
			att = mean(g.Metrics)
		}
		same := 0
		for _, sid := range s.sessions {
			if sid == g.SessionID {
				same++
			}
		}
		out[id] = GoalFigures{
			Attainment:                   att,
			AggregatedAttainment:         mean(s.atts),
			ChildrenAggregatedAttainment: mean(childAtts),
			FullAggregatedAttainment:     mean(append([]float64{att}, s.atts...)),
			ChildrenCount:                len(childAtts),
			SubTreeCount:                 same,
			FullSubTreeCount:             len(s.atts),
		}
		subs[id] = s
		visiting[id] = false
		return s
	}
	for _, g := range goals {
		visit(g.ID)
	}
	return out
}

// TagName returns a tag's identity for a title: lowercased and space-trimmed.
func TagName(title string) string {
	return strings.ToLower(strings.TrimSpace(title))
}

// DurationDays returns the whole days from one timestamp to another (in
// TimeLayout or yyyy-mm-dd), or 0 when either is missing or to precedes from.
func DurationDays(from, to string) int {
	f, err1 := parseAny(from)
	t, err2 := parseAny(to)
	if err1 != nil || err2 != nil || t.Before(f) {
		return 0
	}
	return int(t.Sub(f).Hours() / 24)
}

func parseAny(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	return time.Parse(DateLayout, s)
}
