package sqlstore

import "strconv"

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

	pathFactsSQL:       pgPathFactsFrom(`g.id = ANY(ARRAY(SELECT jsonb_array_elements_text(CAST($2 AS jsonb))))`, 3),
	metricPathFactsSQL: pgPathFactsFrom(`g.id IN (SELECT goal_id FROM metrics WHERE id = $2 AND account_id = $3)`, 4),

	putFiguresSQL: `UPDATE goals g SET doc = g.doc || (v.value -> 1),
			figure_attainment = (v.value ->> 2)::double precision, figure_aggregated = (v.value ->> 3)::double precision,
			figure_children_aggregated = (v.value ->> 4)::double precision, figure_full_aggregated = (v.value ->> 5)::double precision,
			figure_children = (v.value ->> 6)::bigint, figure_subtree = (v.value ->> 7)::bigint,
			figure_full_subtree = (v.value ->> 8)::bigint, figure_metrics = (v.value ->> 9)::bigint,
			figure_tasks = (v.value ->> 10)::bigint, figure_live_tasks = (v.value ->> 11)::bigint
		FROM jsonb_array_elements(CAST($1 AS jsonb)) v WHERE g.id = v.value ->> 0 AND g.account_id = $2`,

	// The goal's row supplies the key, so that Citus runs the statement
	// on the account's shard (a router query) rather than computing the
	// rows on the coordinator first.
	putSubtreesSQL: `INSERT INTO goal_subtrees (goal_id, account_id, attainment, descendants, sum, sessions)
		SELECT g.id, g.account_id, (v.value ->> 1)::double precision, (v.value ->> 2)::bigint,
			(v.value ->> 3)::double precision, v.value ->> 4
		FROM jsonb_array_elements(CAST($2 AS jsonb)) v JOIN goals g ON g.account_id = $1 AND g.id = v.value ->> 0
		ON CONFLICT (account_id, goal_id) DO UPDATE SET attainment = excluded.attainment, descendants = excluded.descendants,
			sum = excluded.sum, sessions = excluded.sessions`,

	appendEventsSQL: `WITH base AS (SELECT coalesce(max(position), 0) AS p FROM events WHERE account_id = $1),
		ins AS (INSERT INTO events (account_id, position, type, item_id, at, doc)
			SELECT $2, base.p + e.o, e.v ->> 'type', e.v ->> 'itemId', $3, jsonb_set(e.v, '{position}', to_jsonb(base.p + e.o))::text
			FROM base, jsonb_array_elements(CAST($4 AS jsonb)) WITH ORDINALITY AS e(v, o)
			RETURNING 1)
		SELECT pg_notify(` + eventsChannelSQL + `, $2) WHERE EXISTS (SELECT 1 FROM ins)`,

	attainmentsSQL: `SELECT id, goal_id, figure_attainment FROM metrics
		WHERE account_id = $1 AND goal_id IN (SELECT jsonb_array_elements_text(CAST($2 AS jsonb)))`,

	taskCountsSQL: `SELECT parent_id, count(*), count(*) FILTER (WHERE doc -> 'archived' IN ('false'::jsonb, '0'::jsonb)) FROM tasks
		WHERE account_id = $1 AND parent_id IN (SELECT jsonb_array_elements_text(CAST($2 AS jsonb))) GROUP BY parent_id`,

	goalRowsSQL: `SELECT ` + goalRowColumns + ` FROM goals g
	WHERE g.account_id = $1 AND g.id IN (SELECT jsonb_array_elements_text(CAST($2 AS jsonb)))`,

	treeSQL: `WITH RECURSIVE down(id) AS (
		SELECT id FROM goals WHERE id = $1 AND account_id = $2
		UNION
		SELECT g.id FROM down JOIN goals g ON g.account_id = $2 AND g.parent_id = down.id)
	SELECT ` + goalRowColumns + ` FROM down JOIN goals g ON g.id = down.id WHERE g.account_id = $3`,
}

// pgPathFactsFrom is pathFactsFrom on PostgreSQL: start uses the parameters
// $2 up to $n-1 (after the account, $1); the rest follow from $n. Every
// "in the walk" is "= ANY(ARRAY(SELECT id FROM up))", as inIDs: the
// planner takes it as an index condition on (account_id, id), (account_id,
// parent_id) and (account_id, goal_id) whatever its statistics say, where
// "IN (SELECT id FROM up)" under a generic plan scanned all the account's
// goals and key results to hash-join them with the walk — each
// recomputation of a 10,000-objective account's path read them all.
func pgPathFactsFrom(start string, n int) string {
	p := func(i int) string { return "$" + strconv.Itoa(n+i) }
	return `WITH RECURSIVE up(id, parent_id) AS (
			SELECT g.id, g.parent_id FROM goals g WHERE g.account_id = $1 AND ` + start + `
			UNION
			SELECT g.id, g.parent_id FROM up JOIN goals g ON g.id = up.parent_id WHERE g.account_id = ` + p(0) + `)
		SELECT 'path', ` + goalRowColumns + `, t.attainment, t.descendants, t.sum, t.sessions
			FROM goals g LEFT JOIN goal_subtrees t ON t.goal_id = g.id AND t.account_id = g.account_id
			WHERE g.account_id = ` + p(1) + ` AND g.id = ANY(ARRAY(SELECT id FROM up))
		UNION ALL
		SELECT 'child', ` + childRowColumns + `, t.attainment, t.descendants, t.sum, t.sessions
			FROM goals g LEFT JOIN goal_subtrees t ON t.goal_id = g.id AND t.account_id = g.account_id
			WHERE g.account_id = ` + p(2) + ` AND g.parent_id = ANY(ARRAY(SELECT id FROM up))
		UNION ALL
		SELECT 'metric', m.id, m.goal_id, '', '', m.figure_attainment, 0, 0, 0, 0, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL
			FROM metrics m WHERE m.account_id = ` + p(3) + ` AND m.goal_id = ANY(ARRAY(SELECT id FROM up))`
}
