package sqlstore_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore/sqlstoretest"
)

// TestIncrementalFiguresMatchFullRecompute applies random writes through the
// store's public operations to random trees (several sessions, all three
// attainment modes, archived tasks) and, after every write, compares every
// goal's stored figures, counts and Subtree with a computation from scratch
// (upstream.ComputeTree over the account's raw facts). Writes recompute only
// the paths they touch, so any missed ancestor or stale sum shows here.
func TestIncrementalFiguresMatchFullRecompute(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3, 4} {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			e := newEnv(t)
			raw := sqlstoretest.OpenRaw(t, e.path)
			w := &randomWriter{e: e, rng: rand.New(rand.NewPCG(seed, 99))}
			for i := 0; i < 3; i++ {
				w.sessions = append(w.sessions, e.session(upstream.SessionInput{Title: fmt.Sprint("S", i)}).ID)
			}
			for i := 0; i < 25; i++ {
				w.createGoal()
			}
			for i := 0; i < 40; i++ {
				w.createMetric()
			}
			checkFigures(t, raw, e.boot.AccountID, "initial tree")
			for step := 0; step < 150; step++ {
				op := w.step()
				checkFigures(t, raw, e.boot.AccountID, fmt.Sprintf("step %d (%s)", step, op))
				if step == 75 {
					// Data from before the stored Subtrees: the next write
					// to a tree recomputes it in full.
					if _, err := raw.Exec("DELETE FROM goal_subtrees"); err != nil {
						t.Fatal(err)
					}
				}
			}
			if w.done < 100 {
				t.Fatalf("only %d of 150 writes succeeded", w.done)
			}
		})
	}
}

// randomWriter makes random writes and remembers what exists.
type randomWriter struct {
	e        *env
	rng      *rand.Rand
	sessions []string
	goals    []string
	metrics  []string
	tasks    []string
	done     int
}

var modes = []string{upstream.AverageKR, upstream.AverageChildren, upstream.AverageKRAndChildren}

func (w *randomWriter) pick(xs []string) string {
	if len(xs) == 0 {
		return ""
	}
	return xs[w.rng.IntN(len(xs))]
}

func (w *randomWriter) ok(op string, err error) string {
	if err == nil {
		w.done++
		return op
	}
	switch upstream.ErrorCode(err) {
	case upstream.CodeInvalid: // e.g. a move that would make a cycle
		return op + " (refused)"
	}
	w.e.t.Fatalf("%s: %v", op, err)
	return op
}

func (w *randomWriter) createGoal() string {
	in := upstream.GoalInput{Name: "g", SessionID: w.pick(w.sessions), AttainmentTypeString: modes[w.rng.IntN(3)]}
	if w.rng.IntN(5) != 0 {
		in.ParentID = w.pick(w.goals)
	}
	g, err := w.e.store.CreateGoal(w.e.ctx, in)
	if err == nil {
		w.goals = append(w.goals, g.ID)
	}
	return w.ok("create goal", err)
}

func (w *randomWriter) createMetric() string {
	g := w.pick(w.goals)
	if g == "" {
		return w.createGoal()
	}
	in := upstream.MetricInput{Name: "kr", GoalID: g, InitialValue: float64(w.rng.IntN(10)),
		Target: ptrTo(float64(10 + w.rng.IntN(90))), TargetOperator: []string{"at_least", "at_most", "stay_above", "stay_below"}[w.rng.IntN(4)]}
	if w.rng.IntN(4) == 0 {
		in = upstream.MetricInput{Name: "done?", GoalID: g, ManualType: upstream.TypeBool}
	}
	m, err := w.e.store.CreateMetric(w.e.ctx, in)
	if err == nil {
		w.metrics = append(w.metrics, m.ID)
	}
	return w.ok("create key result", err)
}

func (w *randomWriter) step() string {
	ctx, st := w.e.ctx, w.e.store
	switch w.rng.IntN(14) {
	case 0, 1, 2:
		id := w.pick(w.metrics)
		if id == "" {
			return w.createMetric()
		}
		m, err := st.GetMetric(ctx, id)
		if err != nil {
			w.e.t.Fatal(err)
		}
		actual := float64(w.rng.IntN(120))
		if m.ManualType == upstream.TypeBool {
			actual = float64(w.rng.IntN(2))
		}
		_, err = st.CheckIn(ctx, id, upstream.CheckInInput{Actual: &actual})
		return w.ok("check-in", err)
	case 3:
		return w.createMetric()
	case 4:
		id := w.pick(w.metrics)
		if id == "" {
			return w.createMetric()
		}
		p := upstream.MetricPatch{Target: ptrTo(float64(5 + w.rng.IntN(200)))}
		if w.rng.IntN(2) == 0 {
			p = upstream.MetricPatch{GoalID: ptrTo(w.pick(w.goals))}
		}
		m, err := st.GetMetric(ctx, id)
		if err != nil {
			w.e.t.Fatal(err)
		}
		if m.ManualType == upstream.TypeBool {
			p.Target = nil
		}
		_, err = st.UpdateMetric(ctx, id, p)
		return w.ok("update key result", err)
	case 5:
		if len(w.metrics) == 0 {
			return w.createMetric()
		}
		i := w.rng.IntN(len(w.metrics))
		err := st.DeleteMetric(ctx, w.metrics[i])
		w.metrics = slices.Delete(w.metrics, i, i+1)
		return w.ok("delete key result", err)
	case 6:
		g := w.pick(w.goals)
		if g == "" {
			return w.createGoal()
		}
		t, err := st.CreateTask(ctx, upstream.TaskInput{Name: "t", ParentID: g, ParentType: upstream.ParentGoal})
		if err == nil {
			w.tasks = append(w.tasks, t.ID)
		}
		return w.ok("create task", err)
	case 7:
		id := w.pick(w.tasks)
		if id == "" {
			return w.createGoal()
		}
		p := upstream.TaskPatch{Archived: ptrTo(w.rng.IntN(2) == 0)}
		if w.rng.IntN(3) == 0 {
			p = upstream.TaskPatch{ParentID: ptrTo(w.pick(w.goals)), ParentType: ptrTo(upstream.ParentGoal)}
		}
		_, err := st.UpdateTask(ctx, id, p)
		return w.ok("update task", err)
	case 8:
		if len(w.tasks) == 0 {
			return w.createGoal()
		}
		i := w.rng.IntN(len(w.tasks))
		err := st.DeleteTask(ctx, w.tasks[i])
		w.tasks = slices.Delete(w.tasks, i, i+1)
		return w.ok("delete task", err)
	case 9:
		return w.createGoal()
	case 10:
		id := w.pick(w.goals)
		parent := ""
		if w.rng.IntN(4) != 0 {
			parent = w.pick(w.goals)
		}
		_, err := st.UpdateGoal(ctx, id, upstream.GoalPatch{ParentID: &parent})
		return w.ok("move goal", err)
	case 11:
		if len(w.goals) < 5 {
			return w.createGoal()
		}
		i := w.rng.IntN(len(w.goals))
		id := w.goals[i]
		g, err := st.GetGoal(ctx, id)
		if err != nil {
			w.e.t.Fatal(err)
		}
		for _, m := range g.Metrics {
			w.metrics = slices.DeleteFunc(w.metrics, func(x string) bool { return x == m.ID })
		}
		ts, err := st.ListTasks(ctx, upstream.ListQuery{Limit: 1000})
		if err != nil {
			w.e.t.Fatal(err)
		}
		err = st.DeleteGoal(ctx, id)
		w.goals = slices.Delete(w.goals, i, i+1)
		w.tasks = w.tasks[:0]
		for _, t := range ts.Items {
			if t.ParentID != id {
				w.tasks = append(w.tasks, t.ID)
			}
		}
		return w.ok("delete goal", err)
	case 12:
		_, err := st.UpdateGoal(ctx, w.pick(w.goals), upstream.GoalPatch{SessionID: ptrTo(w.pick(w.sessions))})
		return w.ok("change session", err)
	default:
		_, err := st.UpdateGoal(ctx, w.pick(w.goals), upstream.GoalPatch{AttainmentTypeString: ptrTo(modes[w.rng.IntN(3)])})
		return w.ok("change mode", err)
	}
}

func ptrTo[T any](v T) *T { return &v }

// checkFigures fails t when a stored figure of account differs from a
// computation from scratch (sqlstoretest.CheckFigures).
func checkFigures(t *testing.T, raw *sqlstoretest.Raw, account, when string) {
	t.Helper()
	if err := sqlstoretest.CheckFigures(context.Background(), raw, account); err != nil {
		t.Fatalf("after %s: %v", when, err)
	}
}
