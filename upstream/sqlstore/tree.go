package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"

	"github.com/okrgate/okrgate/upstream"
)

// rootOf returns the root of the goal tree holding id.
func rootOf(ctx context.Context, q querier, account, id string) (string, error) {
	var root string
	err := q.QueryRowContext(ctx, `WITH RECURSIVE up(id, parent_id, depth) AS (
			SELECT id, parent_id, 0 FROM goals WHERE id = ? AND account_id = ?
			UNION ALL
			SELECT g.id, g.parent_id, up.depth + 1 FROM goals g JOIN up ON g.id = up.parent_id
			WHERE g.account_id = ? AND up.depth < 10000)
		SELECT id FROM up ORDER BY depth DESC LIMIT 1`, id, account, account).Scan(&root)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("sqlstore: find root of %s: %w", id, err)
	}
	return root, nil
}

// descendants is a recursive CTE naming the goal ? and all goals below it
// (second parameter: the account). The recursive step is a CROSS JOIN so
// that SQLite walks down from the known ids through the (account_id,
// parent_id) index; left to itself the planner scans the whole account at
// every step (measured: 122 ms → 1.5 ms (80×) for a 52-goal tree in an account
// of 2,000 goals).
const descendants = `WITH RECURSIVE down(id) AS (
		SELECT ?
		UNION
		SELECT g.id FROM down CROSS JOIN goals g ON g.account_id = ? AND g.parent_id = down.id)`

// subtree returns the goal id and all its descendants.
func subtree(ctx context.Context, q querier, account, id string) ([]upstream.Goal, error) {
	rows, err := q.QueryContext(ctx, descendants+` SELECT g.doc FROM down CROSS JOIN goals g ON g.id = down.id ORDER BY g.id`, id, account)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: load tree of %s: %w", id, err)
	}
	gs, err := scanDocs[upstream.Goal](rows)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: load tree of %s: %w", id, err)
	}
	return gs, nil
}

// isDescendant reports whether candidate is in the subtree below id.
func isDescendant(ctx context.Context, q querier, account, id, candidate string) (bool, error) {
	var n int
	err := q.QueryRowContext(ctx, descendants+` SELECT count(*) FROM down WHERE id = ?`, id, account, candidate).Scan(&n)
	return n > 0, err
}

// recompute recomputes the derived figures (attainment, aggregates, counts)
// of every goal in the trees holding ids, and writes those that changed. It
// runs inside the transaction of the write that made them stale.
func (s *Store) recompute(ctx context.Context, q querier, account string, ids ...string) error {
	roots := map[string]bool{}
	for _, id := range ids {
		if id == "" {
			continue
		}
		r, err := rootOf(ctx, q, account, id)
		if err != nil {
			return err
		}
		if r != "" {
			roots[r] = true
		}
	}
	for root := range roots {
		if err := s.recomputeTree(ctx, q, account, root); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) recomputeTree(ctx context.Context, q querier, account, root string) error {
	gs, err := subtree(ctx, q, account, root)
	if err != nil {
		return err
	}
	ids := make([]string, len(gs))
	for i, g := range gs {
		ids[i] = g.ID
	}
	// Key-result attainments per goal.
	att := map[string][]float64{}
	rows, err := q.QueryContext(ctx, `SELECT goal_id, json_extract(doc, '$.attainment') FROM metrics
		WHERE account_id = ? AND goal_id IN (SELECT value FROM json_each(?)) ORDER BY id`, account, idsParam(ids))
	if err != nil {
		return fmt.Errorf("sqlstore: load attainments: %w", err)
	}
	for rows.Next() {
		var gid string
		var a float64
		if err := rows.Scan(&gid, &a); err != nil {
			rows.Close()
			return fmt.Errorf("sqlstore: load attainments: %w", err)
		}
		att[gid] = append(att[gid], a)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("sqlstore: load attainments: %w", err)
	}
	// Task counts per goal.
	type counts struct{ all, live int }
	tc := map[string]counts{}
	rows, err = q.QueryContext(ctx, `SELECT parent_id, count(*), sum(json_extract(doc, '$.archived') = 0) FROM tasks
		WHERE account_id = ? AND parent_id IN (SELECT value FROM json_each(?)) GROUP BY parent_id`, account, idsParam(ids))
	if err != nil {
		return fmt.Errorf("sqlstore: count tasks: %w", err)
	}
	for rows.Next() {
		var pid string
		var c counts
		if err := rows.Scan(&pid, &c.all, &c.live); err != nil {
			rows.Close()
			return fmt.Errorf("sqlstore: count tasks: %w", err)
		}
		tc[pid] = c
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("sqlstore: count tasks: %w", err)
	}

	tree := make([]upstream.TreeGoal, len(gs))
	for i, g := range gs {
		tree[i] = upstream.TreeGoal{ID: g.ID, ParentID: g.ParentID, SessionID: g.SessionID, Mode: g.AttainmentTypeString, Metrics: att[g.ID]}
	}
	figs := upstream.ComputeFigures(tree)
	for i := range gs {
		g := gs[i]
		f := figs[g.ID]
		next := g
		next.Attainment = round(f.Attainment)
		next.AggregatedAttainment = round(f.AggregatedAttainment)
		next.ChildrenAggregatedAttainment = round(f.ChildrenAggregatedAttainment)
		next.FullAggregatedAttainment = round(f.FullAggregatedAttainment)
		next.ChildrenCount = f.ChildrenCount
		next.SubTreeCount = f.SubTreeCount
		next.FullSubTreeCount = f.FullSubTreeCount
		next.MetricsCount = len(att[g.ID])
		next.TasksCount = tc[g.ID].all
		next.NonArchivedTasksCount = tc[g.ID].live
		if figuresEqual(g, next) {
			continue
		}
		if err := goals.update(ctx, q, account, &next); err != nil {
			return err
		}
	}
	return nil
}

// round keeps attainments free of floating-point noise (12 significant decimals).
func round(x float64) float64 { return math.Round(x*1e12) / 1e12 }

func figuresEqual(a, b upstream.Goal) bool {
	return a.Attainment == b.Attainment && a.AggregatedAttainment == b.AggregatedAttainment &&
		a.ChildrenAggregatedAttainment == b.ChildrenAggregatedAttainment &&
		a.FullAggregatedAttainment == b.FullAggregatedAttainment && a.ChildrenCount == b.ChildrenCount &&
		a.SubTreeCount == b.SubTreeCount && a.FullSubTreeCount == b.FullSubTreeCount &&
		a.MetricsCount == b.MetricsCount && a.TasksCount == b.TasksCount && a.NonArchivedTasksCount == b.NonArchivedTasksCount
}
