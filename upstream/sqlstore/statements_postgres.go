package sqlstore

// pgStatements are the statements of the write path that PostgreSQL spells
// differently, written out whole and keyed by their SQLite text: the
// dialect's rebind uses them in place of the SQLite statement. They take the
// same parameters in the same order (numbered, so a parameter can be used
// twice). SQLite's CROSS JOIN … ON only pins its planner's join order;
// PostgreSQL plans the order itself. The non-recursive term of a tree walk
// selects the goal's own row so that the walk's column keeps the "C"
// collation of goals.id.
var pgStatements = map[string]string{
	isDescendantSQL: `WITH RECURSIVE down(id) AS (
		SELECT id FROM goals WHERE id = $1 AND account_id = $2
		UNION
		SELECT g.id FROM down JOIN goals g ON g.account_id = $2 AND g.parent_id = down.id)
	SELECT count(*) FROM down WHERE id = $3`,

	pathSQL: `WITH RECURSIVE up(id, parent_id, depth) AS (
				SELECT id, parent_id, 0 FROM goals WHERE id = $1 AND account_id = $2
				UNION ALL
				SELECT g.id, g.parent_id, up.depth + 1 FROM up JOIN goals g ON g.id = up.parent_id
				WHERE g.account_id = $3 AND up.depth < 10000)
			SELECT up.depth, ` + pgGoalRowColumns + `, t.attainment, t.descendants, t.sum, t.sessions
			FROM up JOIN goals g ON g.id = up.id LEFT JOIN goal_subtrees t ON t.goal_id = up.id AND t.account_id = g.account_id
			WHERE g.account_id = $4
			ORDER BY up.depth`,

	attainmentsSQL: `SELECT id, goal_id, (doc #>> '{attainment}')::double precision FROM metrics
		WHERE account_id = $1 AND goal_id IN (SELECT jsonb_array_elements_text(CAST($2 AS jsonb)))`,

	taskCountsSQL: `SELECT parent_id, count(*), count(*) FILTER (WHERE doc -> 'archived' IN ('false'::jsonb, '0'::jsonb)) FROM tasks
		WHERE account_id = $1 AND parent_id IN (SELECT jsonb_array_elements_text(CAST($2 AS jsonb))) GROUP BY parent_id`,

	updateFiguresSQL: `UPDATE goals SET doc = doc || jsonb_build_object(
		'attainment', CAST($1 AS jsonb), 'aggregatedAttainment', CAST($2 AS jsonb),
		'childrenAggregatedAttainment', CAST($3 AS jsonb), 'fullAggregatedAttainment', CAST($4 AS jsonb),
		'childrenCount', CAST($5 AS bigint), 'subTreeCount', CAST($6 AS bigint), 'fullSubTreeCount', CAST($7 AS bigint),
		'metricsCount', CAST($8 AS bigint), 'tasksCount', CAST($9 AS bigint), 'nonArchivedTasksCount', CAST($10 AS bigint))
	WHERE id = $11 AND account_id = $12`,

	goalRowsSQL: `SELECT ` + pgGoalRowColumns + ` FROM goals g
	WHERE g.account_id = $1 AND g.id IN (SELECT jsonb_array_elements_text(CAST($2 AS jsonb)))`,

	treeSQL: `WITH RECURSIVE down(id) AS (
		SELECT id FROM goals WHERE id = $1 AND account_id = $2
		UNION
		SELECT g.id FROM down JOIN goals g ON g.account_id = $2 AND g.parent_id = down.id)
	SELECT ` + pgGoalRowColumns + ` FROM down JOIN goals g ON g.id = down.id WHERE g.account_id = $3`,
}

// pgGoalRowColumns is goalRowColumns on PostgreSQL.
const pgGoalRowColumns = `g.id, g.parent_id, g.session_id, coalesce(g.doc ->> 'attainmentTypeString', ''),
	coalesce((g.doc ->> 'attainment')::double precision, 0), coalesce((g.doc ->> 'aggregatedAttainment')::double precision, 0),
	coalesce((g.doc ->> 'childrenAggregatedAttainment')::double precision, 0), coalesce((g.doc ->> 'fullAggregatedAttainment')::double precision, 0),
	coalesce((g.doc ->> 'childrenCount')::bigint, 0), coalesce((g.doc ->> 'subTreeCount')::bigint, 0),
	coalesce((g.doc ->> 'fullSubTreeCount')::bigint, 0), coalesce((g.doc ->> 'metricsCount')::bigint, 0),
	coalesce((g.doc ->> 'tasksCount')::bigint, 0), coalesce((g.doc ->> 'nonArchivedTasksCount')::bigint, 0)`
