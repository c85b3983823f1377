package sqlstore

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/okrgate/okrgate/upstream"
)

// What recomputing paths reads and writes (tree.go folds): the goals on the
// paths with their direct children and key-result attainments in one
// statement, and the changed figures and Subtrees in one statement each,
// however deep the paths.

// pathFactsSQL loads, for the goals of a JSON array of ids (parameters:
// account, ids, account, account, account, account), the goals on their
// paths to the root ('path' rows: a goalRow and the stored Subtree), the
// direct children of those goals ('child' rows: the same, without the
// figures: childRowColumns), and the key
// results of those goals ('metric' rows: id, goal id, attainment). The
// walk up stops at a goal seen before, so a corrupt cycle ends it.
var pathFactsSQL = pathFactsFrom(`g.id IN (SELECT value FROM json_each(?))`)

// metricPathFactsSQL is pathFactsSQL for the goal of a key result
// (parameters: account, key result, account, account, account, account,
// account).
var metricPathFactsSQL = pathFactsFrom(`g.id IN (SELECT goal_id FROM metrics WHERE id = ? AND account_id = ?)`)

// pathFactsFrom returns the path-facts statement whose walk starts at the
// goals g of the account that start selects.
func pathFactsFrom(start string) string {
	return `WITH RECURSIVE up(id, parent_id) AS (
		SELECT g.id, g.parent_id FROM goals g WHERE g.account_id = ? AND ` + start + `
		UNION
		SELECT g.id, g.parent_id FROM up CROSS JOIN goals g ON g.id = up.parent_id WHERE g.account_id = ?)
	SELECT 'path', ` + goalRowColumns + `, t.attainment, t.descendants, t.sum, t.sessions
		FROM up CROSS JOIN goals g ON g.id = up.id LEFT JOIN goal_subtrees t ON t.goal_id = g.id AND t.account_id = g.account_id
		WHERE g.account_id = ?
	UNION ALL
	SELECT 'child', ` + childRowColumns + `, t.attainment, t.descendants, t.sum, t.sessions
		FROM goals g LEFT JOIN goal_subtrees t ON t.goal_id = g.id AND t.account_id = g.account_id
		WHERE g.account_id = ? AND g.parent_id IN (SELECT id FROM up)
	UNION ALL
	SELECT 'metric', m.id, m.goal_id, '', '', m.figure_attainment, 0, 0, 0, 0, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL
		FROM metrics m WHERE m.account_id = ? AND m.goal_id IN (SELECT id FROM up)`
}

// childRowColumns are goalRowColumns for a child that is not on a path:
// the fold needs its id, parent, session and stored Subtree, not its
// figures.
const childRowColumns = `g.id, g.parent_id, g.session_id, '', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0`

// pathFacts are what recomputing the paths of some goals reads.
type pathFacts struct {
	path map[string]*pathNode // the goals on the paths, with their depths
	kids map[string][]upstream.Child
	// complete is false when a child that is not on the paths has no
	// stored Subtree.
	complete bool
	metrics  []metricAttainment
	// finish completes the facts once the rows are read.
	finish func() error
	// folded are the figures recomputePaths folded for the goals on the
	// paths, so that a write can answer with them without reading again.
	folded map[string]storedFigures
}

// addGoal makes f hold a goal about to be stored — with no children, key
// results or tasks yet — on the path of its parent.
func (f *pathFacts) addGoal(g goalRow) {
	depth := 0
	if p := f.path[g.ParentID]; p != nil {
		depth = p.depth + 1
		f.kids[g.ParentID] = append(f.kids[g.ParentID], upstream.Child{ID: g.ID, SessionID: g.SessionID})
	}
	f.path[g.ID] = &pathNode{goal: g, depth: depth}
}

// addMetric makes f hold a key result about to be stored under goal.
func (f *pathFacts) addMetric(id, goal string, att float64) {
	f.metrics = append(f.metrics, metricAttainment{id: id, goal: goal, att: att})
}

// metricAttainment is a key result's attainment.
type metricAttainment struct {
	id, goal string
	att      float64
}

// setAttainment makes f hold att as the attainment of key result id, as a
// write about to store it leaves it.
func (f *pathFacts) setAttainment(id string, att float64) {
	for i := range f.metrics {
		if f.metrics[i].id == id {
			f.metrics[i].att = att
		}
	}
}

// attainments returns the key-result attainments per goal, in key-result
// id order.
func (f *pathFacts) attainments() map[string][]float64 {
	ms := slices.Clone(f.metrics)
	slices.SortFunc(ms, func(a, b metricAttainment) int { return cmp.Compare(a.id, b.id) })
	out := map[string][]float64{}
	for _, m := range ms {
		out[m.goal] = append(out[m.goal], m.att)
	}
	return out
}

// loadPathFacts reads the path facts of the goals ids.
func (s *Store) loadPathFacts(ctx context.Context, q querier, account string, ids []string) (*pathFacts, error) {
	f := &pathFacts{}
	if err := s.run(ctx, q, pathFactsStmt(account, ids, f)); err != nil {
		return nil, fmt.Errorf("sqlstore: load paths: %w", err)
	}
	return f, f.finish()
}

// pathFactsStmt returns the statement that loads the path facts of ids
// into f; f.finish completes f once its rows are read.
func pathFactsStmt(account string, ids []string, f *pathFacts) stmt {
	return f.stmt(pathFactsSQL, []any{account, idsParam(nonEmpty(ids)), account, account, account, account})
}

// metricPathFactsStmt returns the statement that loads the path facts of
// the goal of key result id into f.
func metricPathFactsStmt(account, id string, f *pathFacts) stmt {
	return f.stmt(metricPathFactsSQL, []any{account, id, account, account, account, account, account})
}

// stmt returns the path-facts statement sql with args, reading into f.
func (f *pathFacts) stmt(sql string, args []any) stmt {
	f.path, f.kids, f.complete, f.metrics = map[string]*pathNode{}, map[string][]upstream.Child{}, true, nil
	var children []struct {
		parent string
		c      upstream.Child
		st     storedSubtree
	}
	f.finish = func() error {
		for _, ch := range children {
			c := ch.c
			if n := f.path[c.ID]; n != nil {
				c.SessionID = n.goal.SessionID // folded afresh
			} else {
				sub, err := ch.st.decode()
				if err != nil {
					return fmt.Errorf("sqlstore: subtree of %s: %w", c.ID, err)
				}
				if sub == nil {
					f.complete = false
				} else {
					c.Subtree = *sub
				}
			}
			f.kids[ch.parent] = append(f.kids[ch.parent], c)
		}
		for id, n := range f.path {
			n.depth = len(ancestorsIn(id, func(id string) string {
				if p := f.path[id]; p != nil {
					return p.goal.ParentID
				}
				return ""
			}))
		}
		return nil
	}
	return stmt{sql: sql, args: args,
		rows: func(scan func(...any) error) error {
			var kind string
			var g goalRow
			var st storedSubtree
			if err := scan(append(append([]any{&kind}, g.dests()...), &st.att, &st.count, &st.sum, &st.sessions)...); err != nil {
				return fmt.Errorf("sqlstore: load paths: %w", err)
			}
			switch kind {
			case "path":
				sub, err := st.decode()
				if err != nil {
					return fmt.Errorf("sqlstore: subtree of %s: %w", g.ID, err)
				}
				f.path[g.ID] = &pathNode{goal: g, stored: sub}
			case "child":
				children = append(children, struct {
					parent string
					c      upstream.Child
					st     storedSubtree
				}{g.ParentID, upstream.Child{ID: g.ID, SessionID: g.SessionID}, st})
			case "metric":
				f.metrics = append(f.metrics, metricAttainment{id: g.ID, goal: g.ParentID, att: g.figures.Attainment})
			}
			return nil
		}}
}

// nonEmpty returns ids without the empty ones.
func nonEmpty(ids []string) []string {
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if id != "" {
			out = append(out, id)
		}
	}
	return out
}

// figureWrites collects the figures and Subtrees a recomputation changed,
// to write them in one statement each (queue).
type figureWrites struct {
	account  string
	figures  []any // [id, {derived fields}, the same in putFiguresSQL's column order…] tuples
	subtrees []any // [id, attainment, descendants, sum, sessions] tuples
}

// goal sets the derived fields of g's document to next when they differ
// from what is stored. A change appends a goal.recomputed event naming the
// goal's ancestors (nearest first; nil when the caller does not know them).
// Attainments are written as Go formats them in JSON, so they read back as
// the same float64.
func (w *figureWrites) goal(q querier, g goalRow, next storedFigures, ancestors []string) {
	if g.figures == next {
		return
	}
	att := next.Attainment
	emit(q, upstream.Event{AccountID: w.account, Type: upstream.EventGoalRecomputed, ItemID: g.ID, GoalID: g.ID,
		SessionID: g.SessionID, Attainment: &att, Ancestors: ancestors})
	w.figures = append(w.figures, []any{g.ID, map[string]any{
		"attainment": next.Attainment, "aggregatedAttainment": next.Aggregated,
		"childrenAggregatedAttainment": next.ChildrenAggregated, "fullAggregatedAttainment": next.FullAggregated,
		"childrenCount": next.Children, "subTreeCount": next.SubTree, "fullSubTreeCount": next.FullSubTree,
		"metricsCount": next.Metrics, "tasksCount": next.Tasks, "nonArchivedTasksCount": next.NonArchivedTasks,
	}, next.Attainment, next.Aggregated, next.ChildrenAggregated, next.FullAggregated, next.Children, next.SubTree,
		next.FullSubTree, next.Metrics, next.Tasks, next.NonArchivedTasks})
}

// subtree stores the Subtree of goal id.
func (w *figureWrites) subtree(id string, sub upstream.Subtree) error {
	sessions := "{}"
	if len(sub.Sessions) > 0 {
		b, err := json.Marshal(sub.Sessions)
		if err != nil {
			return fmt.Errorf("sqlstore: encode subtree of %s: %w", id, err)
		}
		sessions = string(b)
	}
	w.subtrees = append(w.subtrees, []any{id, sub.Attainment, sub.Count, sub.Sum, sessions})
	return nil
}

// stmts returns the statements that write what w collected.
func (w *figureWrites) stmts() ([]stmt, error) {
	var out []stmt
	if len(w.figures) > 0 {
		b, err := json.Marshal(w.figures)
		if err != nil {
			return nil, fmt.Errorf("sqlstore: encode figures: %w", err)
		}
		out = append(out, stmt{sql: putFiguresSQL, args: []any{string(b), w.account}})
	}
	if len(w.subtrees) > 0 {
		b, err := json.Marshal(w.subtrees)
		if err != nil {
			return nil, fmt.Errorf("sqlstore: encode subtrees: %w", err)
		}
		out = append(out, stmt{sql: putSubtreesSQL, args: []any{w.account, string(b)}})
	}
	return out, nil
}

// queue writes what w collected with the write's next round trip.
func (w *figureWrites) queue(ctx context.Context, s *Store, q querier) error {
	st, err := w.stmts()
	if err != nil {
		return err
	}
	return s.queue(ctx, q, st...)
}

// putFiguresSQL merges the derived fields into goal documents and sets
// their figure columns (parameters: a JSON array of [id, {fields},
// attainment, aggregated, children aggregated, full aggregated, children,
// subtree, full subtree, key results, tasks, live tasks] tuples, the
// account).
const putFiguresSQL = `UPDATE goals SET doc = json_patch(goals.doc, json_extract(v.value, '$[1]')),
		figure_attainment = json_extract(v.value, '$[2]'), figure_aggregated = json_extract(v.value, '$[3]'),
		figure_children_aggregated = json_extract(v.value, '$[4]'), figure_full_aggregated = json_extract(v.value, '$[5]'),
		figure_children = json_extract(v.value, '$[6]'), figure_subtree = json_extract(v.value, '$[7]'),
		figure_full_subtree = json_extract(v.value, '$[8]'), figure_metrics = json_extract(v.value, '$[9]'),
		figure_tasks = json_extract(v.value, '$[10]'), figure_live_tasks = json_extract(v.value, '$[11]')
	FROM json_each(?) v WHERE goals.id = json_extract(v.value, '$[0]') AND goals.account_id = ?`

// putSubtreesSQL stores Subtrees (parameters: the account, a JSON array of
// [goal, attainment, descendants, sum, sessions] tuples).
const putSubtreesSQL = `INSERT INTO goal_subtrees (goal_id, account_id, attainment, descendants, sum, sessions)
	SELECT json_extract(v.value, '$[0]'), ?, json_extract(v.value, '$[1]'), json_extract(v.value, '$[2]'),
		json_extract(v.value, '$[3]'), json_extract(v.value, '$[4]')
	FROM json_each(?) v WHERE true
	ON CONFLICT (goal_id) DO UPDATE SET attainment = excluded.attainment, descendants = excluded.descendants,
		sum = excluded.sum, sessions = excluded.sessions`
