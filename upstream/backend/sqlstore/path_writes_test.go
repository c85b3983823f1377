package sqlstore_test

import (
	"database/sql"
	"slices"
	"testing"

	"github.com/okrgate/okrgate/upstream/backend/sqlstore/sqlstoretest"

	"github.com/okrgate/okrgate/upstream"
)

// goalWrites records, through a trigger on the database file, which goal
// rows the store updates.
type goalWrites struct {
	t  *testing.T
	db *sql.DB
}

func recordGoalWrites(t *testing.T, e *env) *goalWrites {
	t.Helper()
	db, err := sql.Open("sqlite", e.path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	for _, stmt := range []string{
		"CREATE TABLE goal_writes (goal_id TEXT NOT NULL)",
		"CREATE TRIGGER goal_written AFTER UPDATE ON goals BEGIN INSERT INTO goal_writes VALUES (new.id); END",
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	return &goalWrites{t: t, db: db}
}

// take returns the ids of the goals written since the last call, sorted.
func (w *goalWrites) take() []string {
	w.t.Helper()
	rows, err := w.db.Query("SELECT goal_id FROM goal_writes")
	if err != nil {
		w.t.Fatal(err)
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			w.t.Fatal(err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	if _, err := w.db.Exec("DELETE FROM goal_writes"); err != nil {
		w.t.Fatal(err)
	}
	slices.Sort(ids)
	return ids
}

func sorted(ids ...string) []string {
	slices.Sort(ids)
	return ids
}

// TestWritesRewriteOnlyThePath checks that a check-in, a key-result change,
// a task change and a move write the changed goals and their ancestors, not
// the rest of the tree, and that a write changing no figure writes no goal.
func TestWritesRewriteOnlyThePath(t *testing.T) {
	if sqlstoretest.Postgres() {
		t.Skip("counts row writes with a SQLite trigger; the write path is the same SQL on PostgreSQL")
	}
	e := newEnv(t)
	s := e.session(upstream.SessionInput{})
	root := e.goal(upstream.GoalInput{Name: "root", SessionID: s.ID})
	a := e.goal(upstream.GoalInput{Name: "a", SessionID: s.ID, ParentID: root.ID})
	b := e.goal(upstream.GoalInput{Name: "b", SessionID: s.ID, ParentID: root.ID})
	a1 := e.goal(upstream.GoalInput{Name: "a1", SessionID: s.ID, ParentID: a.ID})
	a2 := e.goal(upstream.GoalInput{Name: "a2", SessionID: s.ID, ParentID: a.ID})
	b1 := e.goal(upstream.GoalInput{Name: "b1", SessionID: s.ID, ParentID: b.ID})
	kr := e.metric(upstream.MetricInput{Name: "kr", GoalID: a1.ID, Target: f(10)})
	e.metric(upstream.MetricInput{Name: "other", GoalID: b1.ID, Target: f(10)})
	w := recordGoalWrites(t, e)

	if _, err := e.store.CheckIn(e.ctx, kr.ID, upstream.CheckInInput{Actual: f(5)}); err != nil {
		t.Fatal(err)
	}
	if got, want := w.take(), sorted(a1.ID, a.ID, root.ID); !slices.Equal(got, want) {
		t.Errorf("check-in wrote %v, want the path %v", got, want)
	}
	// The same value again changes no figure: nothing is written.
	if _, err := e.store.CheckIn(e.ctx, kr.ID, upstream.CheckInInput{Actual: f(5)}); err != nil {
		t.Fatal(err)
	}
	if got := w.take(); len(got) != 0 {
		t.Errorf("an unchanged check-in wrote %v", got)
	}
	if _, err := e.store.CreateMetric(e.ctx, upstream.MetricInput{Name: "new", GoalID: a2.ID, Target: f(4), Actual: f(1)}); err != nil {
		t.Fatal(err)
	}
	if got, want := w.take(), sorted(a2.ID, a.ID, root.ID); !slices.Equal(got, want) {
		t.Errorf("new key result wrote %v, want %v", got, want)
	}
	task, err := e.store.CreateTask(e.ctx, upstream.TaskInput{Name: "t", ParentID: b1.ID, ParentType: upstream.ParentGoal})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := w.take(), []string{b1.ID}; !slices.Equal(got, want) {
		t.Errorf("new task wrote %v, want only its goal %v", got, want)
	}
	if _, err := e.store.UpdateTask(e.ctx, task.ID, upstream.TaskPatch{Archived: ptrTo(true)}); err != nil {
		t.Fatal(err)
	}
	if got, want := w.take(), []string{b1.ID}; !slices.Equal(got, want) {
		t.Errorf("archiving a task wrote %v, want %v", got, want)
	}
	// Moving a2 under b: a2 itself and both parents; the root's figures
	// stay the same (the same descendants), so it is not written.
	if _, err := e.store.UpdateGoal(e.ctx, a2.ID, upstream.GoalPatch{ParentID: &b.ID}); err != nil {
		t.Fatal(err)
	}
	if got, want := w.take(), sorted(a2.ID, a.ID, b.ID); !slices.Equal(got, want) {
		t.Errorf("move wrote %v, want %v", got, want)
	}
	// A rename changes no figure: only the goal itself is written.
	if _, err := e.store.UpdateGoal(e.ctx, b1.ID, upstream.GoalPatch{Name: str("b1 renamed")}); err != nil {
		t.Fatal(err)
	}
	if got, want := w.take(), []string{b1.ID}; !slices.Equal(got, want) {
		t.Errorf("rename wrote %v, want %v", got, want)
	}
}
