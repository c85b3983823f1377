package sqlstoretest

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver, for Raw on PostgreSQL

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
)

// Raw is a connection of its own to a store's database, for tests that
// read (or break) its rows directly.
type Raw struct {
	*sql.DB
	pg bool
}

// OpenRaw opens the database dsn (a SQLite path or a PostgreSQL URL), closed
// when t ends.
func OpenRaw(t testing.TB, dsn string) *Raw {
	t.Helper()
	r := &Raw{pg: sqlstore.IsPostgres(dsn)}
	var err error
	if r.pg {
		r.DB, err = sql.Open("pgx", dsn)
	} else {
		r.DB, err = sql.Open("sqlite", dsn+"?_pragma=busy_timeout(10000)")
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// Q returns stmt, written with "?" placeholders, in the database's own
// spelling.
func (r *Raw) Q(stmt string) string {
	if !r.pg {
		return stmt
	}
	var b strings.Builder
	n := 0
	for _, c := range stmt {
		if c == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

// CheckFigures compares every goal of account as stored (attainments,
// aggregates, counts, and the stored Subtree where there is one) with a
// computation from scratch (upstream.ComputeTree) over the account's raw
// rows, and the figure columns of goals and key results with their
// documents (CheckFigureColumns), and reports the first difference.
func CheckFigures(ctx context.Context, r *Raw, account string) error {
	if err := CheckFigureColumns(ctx, r, account); err != nil {
		return err
	}
	var stored []upstream.Goal
	if err := eachDoc(ctx, r, "goals", account, func(_ string, doc []byte) error {
		var g upstream.Goal
		if err := json.Unmarshal(doc, &g); err != nil {
			return err
		}
		stored = append(stored, g)
		return nil
	}); err != nil {
		return err
	}
	metrics := map[string][]float64{}
	if err := eachDoc(ctx, r, "metrics", account, func(_ string, doc []byte) error {
		var m struct {
			GoalID     string  `json:"goalId"`
			Attainment float64 `json:"attainment"`
		}
		if err := json.Unmarshal(doc, &m); err != nil {
			return err
		}
		metrics[m.GoalID] = append(metrics[m.GoalID], m.Attainment)
		return nil
	}); err != nil {
		return err
	}
	type counts struct{ all, live int }
	tasks := map[string]counts{}
	if err := eachDoc(ctx, r, "tasks", account, func(parent string, doc []byte) error {
		var x struct {
			Archived bool `json:"archived"`
		}
		if err := json.Unmarshal(doc, &x); err != nil {
			return err
		}
		c := tasks[parent]
		c.all++
		if !x.Archived {
			c.live++
		}
		tasks[parent] = c
		return nil
	}); err != nil {
		return err
	}
	subs := map[string]upstream.Subtree{}
	rows, err := r.QueryContext(ctx, r.Q("SELECT goal_id, attainment, descendants, sum, sessions FROM goal_subtrees WHERE account_id = ?"), account)
	if err != nil {
		return err
	}
	for rows.Next() {
		var id, sessions string
		var s upstream.Subtree
		if err := rows.Scan(&id, &s.Attainment, &s.Count, &s.Sum, &sessions); err != nil {
			rows.Close()
			return err
		}
		if err := json.Unmarshal([]byte(sessions), &s.Sessions); err != nil {
			rows.Close()
			return err
		}
		if len(s.Sessions) == 0 {
			s.Sessions = nil
		}
		subs[id] = s
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}

	tree := make([]upstream.TreeGoal, len(stored))
	for i, g := range stored {
		tree[i] = upstream.TreeGoal{ID: g.ID, ParentID: g.ParentID, SessionID: g.SessionID, Mode: g.AttainmentTypeString, Metrics: metrics[g.ID]}
	}
	want := upstream.ComputeTree(tree)
	round := func(x float64) float64 { return math.Round(x*1e12) / 1e12 }
	for _, g := range stored {
		f := want[g.ID].Figures
		got := [10]float64{g.Attainment, g.AggregatedAttainment, g.ChildrenAggregatedAttainment, g.FullAggregatedAttainment,
			float64(g.ChildrenCount), float64(g.SubTreeCount), float64(g.FullSubTreeCount),
			float64(g.MetricsCount), float64(g.TasksCount), float64(g.NonArchivedTasksCount)}
		exp := [10]float64{round(f.Attainment), round(f.AggregatedAttainment), round(f.ChildrenAggregatedAttainment), round(f.FullAggregatedAttainment),
			float64(f.ChildrenCount), float64(f.SubTreeCount), float64(f.FullSubTreeCount),
			float64(len(metrics[g.ID])), float64(tasks[g.ID].all), float64(tasks[g.ID].live)}
		if got != exp {
			return fmt.Errorf("goal %s (parent %q, %s) has\n  att, agg, childAgg, fullAgg, children, sub, full, metrics, tasks, live\n  %v, want\n  %v",
				g.ID, g.ParentID, g.AttainmentTypeString, got, exp)
		}
		if s, ok := subs[g.ID]; ok && !s.Equal(want[g.ID].Subtree) {
			return fmt.Errorf("goal %s stores subtree %+v, want %+v", g.ID, s, want[g.ID].Subtree)
		}
	}
	return nil
}

// CheckFigureColumns compares the figure columns of every goal (attainment
// mode, attainments, counts) and key result (attainment) of account with
// the same fields of its document, exactly, and reports the first
// difference: the columns a write's recomputation reads must say what the
// documents that reads serve say.
func CheckFigureColumns(ctx context.Context, r *Raw, account string) error {
	rows, err := r.QueryContext(ctx, r.Q(`SELECT id, doc, attainment_type, figure_attainment, figure_aggregated,
		figure_children_aggregated, figure_full_aggregated, figure_children, figure_subtree, figure_full_subtree,
		figure_metrics, figure_tasks, figure_live_tasks FROM goals WHERE account_id = ? ORDER BY id`), account)
	if err != nil {
		return fmt.Errorf("read goals' figure columns: %w", err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var id string
		var doc []byte
		var col upstream.Goal
		if err := rows.Scan(&id, &doc, &col.AttainmentTypeString, &col.Attainment, &col.AggregatedAttainment,
			&col.ChildrenAggregatedAttainment, &col.FullAggregatedAttainment, &col.ChildrenCount, &col.SubTreeCount,
			&col.FullSubTreeCount, &col.MetricsCount, &col.TasksCount, &col.NonArchivedTasksCount); err != nil {
			return fmt.Errorf("read goals' figure columns: %w", err)
		}
		var g upstream.Goal
		if err := json.Unmarshal(doc, &g); err != nil {
			return fmt.Errorf("goal %s: %w", id, err)
		}
		got := goalFigureFields(col)
		if want := goalFigureFields(g); got != want {
			return fmt.Errorf("goal %s: figure columns\n  %+v, its document\n  %+v", id, got, want)
		}
		n++
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read goals' figure columns: %w", err)
	}
	mrows, err := r.QueryContext(ctx, r.Q("SELECT id, doc, figure_attainment FROM metrics WHERE account_id = ? ORDER BY id"), account)
	if err != nil {
		return fmt.Errorf("read key results' figure column: %w", err)
	}
	defer mrows.Close()
	for mrows.Next() {
		var id string
		var doc []byte
		var att float64
		if err := mrows.Scan(&id, &doc, &att); err != nil {
			return fmt.Errorf("read key results' figure column: %w", err)
		}
		var m upstream.Metric
		if err := json.Unmarshal(doc, &m); err != nil {
			return fmt.Errorf("key result %s: %w", id, err)
		}
		if att != m.Attainment {
			return fmt.Errorf("key result %s: figure_attainment %v, its document %v", id, att, m.Attainment)
		}
	}
	return mrows.Err()
}

// figureFields are the fields of a goal that its figure columns hold
// (compared with ==: exact, and 0 equals -0, which a REAL column may keep
// as 0).
type figureFields struct {
	Mode                                                             string
	Attainment, Aggregated, ChildrenAggregated, FullAggregated       float64
	Children, SubTree, FullSubTree, Metrics, Tasks, NonArchivedTasks int
}

func goalFigureFields(g upstream.Goal) figureFields {
	return figureFields{Mode: g.AttainmentTypeString,
		Attainment: g.Attainment, Aggregated: g.AggregatedAttainment,
		ChildrenAggregated: g.ChildrenAggregatedAttainment, FullAggregated: g.FullAggregatedAttainment,
		Children: g.ChildrenCount, SubTree: g.SubTreeCount, FullSubTree: g.FullSubTreeCount,
		Metrics: g.MetricsCount, Tasks: g.TasksCount, NonArchivedTasks: g.NonArchivedTasksCount}
}

// eachDoc calls fn with the key column (parent_id for tasks, else id) and
// document of every row of table in account, in id order.
func eachDoc(ctx context.Context, r *Raw, table, account string, fn func(key string, doc []byte) error) error {
	key := "id"
	if table == "tasks" {
		key = "parent_id"
	}
	rows, err := r.QueryContext(ctx, r.Q("SELECT "+key+", doc FROM "+table+" WHERE account_id = ? ORDER BY id"), account)
	if err != nil {
		return fmt.Errorf("read %s: %w", table, err)
	}
	defer rows.Close()
	for rows.Next() {
		var k string
		var doc []byte
		if err := rows.Scan(&k, &doc); err != nil {
			return fmt.Errorf("read %s: %w", table, err)
		}
		if err := fn(k, doc); err != nil {
			return fmt.Errorf("read %s: %w", table, err)
		}
	}
	return rows.Err()
}
