-- +goose Up
-- Whether the listing rule may decide a goal or key result on more than its
-- session (goals) or its goal (key results): upstream.GoalRestricted and
-- upstream.MetricRestricted, kept in step with the document on every write
-- like the other key columns. A restricted caller's listings decide the
-- rows that are not restricted by this column and their session alone, and
-- read the document only for those that are (scope.go): the rule no
-- longer parses every document of every listing. The backfill is
-- conservative: a goal whose access names no inherits is restricted too.
ALTER TABLE goals ADD COLUMN restricted INTEGER NOT NULL DEFAULT 0;
UPDATE goals SET restricted = 1
WHERE COALESCE(json_extract(doc, '$.private'), 0) <> 0
   OR (json_type(doc, '$.access') = 'object'
       AND (COALESCE(json_extract(doc, '$.access.inherits'), 0) = 0
            OR EXISTS (SELECT 1 FROM json_each(doc, '$.access.permissions') ap
                       WHERE COALESCE(json_extract(ap.value, '$.deny."goals:read"'), 0) <> 0
                          OR COALESCE(json_extract(ap.value, '$.deny."*"'), 0) <> 0)));
ALTER TABLE metrics ADD COLUMN restricted INTEGER NOT NULL DEFAULT 0;
UPDATE metrics SET restricted = 1 WHERE COALESCE(json_extract(doc, '$.private'), 0) <> 0;
-- The visible goals' ids come from this index alone (account, restricted,
-- session). A key result's listing decides its rows from metrics_account_id,
-- which now holds the goal and restricted beside the id, in id order: a count
-- reads the index alone and a page walks it (with a second index of the same
-- prefix, SQLite's planner took the narrow one and read every row).
CREATE INDEX goals_account_visibility ON goals(account_id, restricted, session_id, id);
DROP INDEX metrics_account_id;
CREATE INDEX metrics_account_id ON metrics(account_id, id, goal_id, restricted);

-- +goose Down
DROP INDEX metrics_account_id;
CREATE INDEX metrics_account_id ON metrics(account_id, id);
DROP INDEX goals_account_visibility;
ALTER TABLE metrics DROP COLUMN restricted;
ALTER TABLE goals DROP COLUMN restricted;
