package sqlstore

import "github.com/okrgate/okrgate/upstream"

// What recomputing a path reads of a goal — its attainment mode and its
// derived figures — and of a key result — its attainment — is kept in key
// columns beside the document (migrations/sqlite/00019_figure_columns.sql,
// migrations/postgres/00012), written with the document by every write of
// the row (table.keys) and with the document's figures by figureWrites. A
// check-in then reads the goals on its path and their key results from
// those columns instead of parsing each document (paths.go). The documents
// keep the same values: reads serve them.

// goalFigureColumns are the figure columns of goals, in the order of
// goalFigureKeys and of goalRow's destinations after its place in the tree.
var goalFigureColumns = []string{"attainment_type", "figure_attainment", "figure_aggregated", "figure_children_aggregated",
	"figure_full_aggregated", "figure_children", "figure_subtree", "figure_full_subtree", "figure_metrics", "figure_tasks",
	"figure_live_tasks"}

// goalFigureKeys returns the values of goalFigureColumns for g.
func goalFigureKeys(g *upstream.Goal) []any {
	return []any{g.AttainmentTypeString, g.Attainment, g.AggregatedAttainment, g.ChildrenAggregatedAttainment,
		g.FullAggregatedAttainment, g.ChildrenCount, g.SubTreeCount, g.FullSubTreeCount, g.MetricsCount, g.TasksCount,
		g.NonArchivedTasksCount}
}

// goalRowColumns selects a goalRow from goals g (its destinations: dests).
const goalRowColumns = `g.id, g.parent_id, g.session_id, g.attainment_type, g.figure_attainment, g.figure_aggregated,
	g.figure_children_aggregated, g.figure_full_aggregated, g.figure_children, g.figure_subtree, g.figure_full_subtree,
	g.figure_metrics, g.figure_tasks, g.figure_live_tasks`

// figureColumnsFromDocs returns the statements that set the figure columns
// of an account's goals and key results from their documents (parameter:
// the account), as the migrations' backfill does: for rows stored without
// them (an account file written before the columns).
func figureColumnsFromDocs(d dialect) []string {
	num := func(key string) string { return "coalesce(" + d.num("doc", key) + ", 0)" }
	return []string{
		`UPDATE goals SET attainment_type = coalesce(` + d.text("doc", "attainmentTypeString") + `, ''),
			figure_attainment = ` + num("attainment") + `, figure_aggregated = ` + num("aggregatedAttainment") + `,
			figure_children_aggregated = ` + num("childrenAggregatedAttainment") + `, figure_full_aggregated = ` + num("fullAggregatedAttainment") + `,
			figure_children = ` + num("childrenCount") + `, figure_subtree = ` + num("subTreeCount") + `,
			figure_full_subtree = ` + num("fullSubTreeCount") + `, figure_metrics = ` + num("metricsCount") + `,
			figure_tasks = ` + num("tasksCount") + `, figure_live_tasks = ` + num("nonArchivedTasksCount") + `
		WHERE account_id = ?`,
		`UPDATE metrics SET figure_attainment = ` + num("attainment") + ` WHERE account_id = ?`,
	}
}
