-- +goose Up
-- Whether the listing rule may decide a goal or key result on more than its
-- session (goals) or its goal (key results): upstream.GoalRestricted and
-- upstream.MetricRestricted, kept in step with the document on every write
-- like the other key columns. A restricted caller's listings decide the
-- rows that are not restricted by this column and their session alone, and
-- read the document only for those that are (scope.go): the rule no
-- longer reads every document of every listing. The backfill is
-- conservative: a goal whose access names no inherits is restricted too. A
-- flag is set as the visibility SQL reads it: true or a non-zero number.
ALTER TABLE goals ADD COLUMN restricted INTEGER NOT NULL DEFAULT 0;
UPDATE goals SET restricted = 1
WHERE COALESCE(doc -> 'private' NOT IN ('false'::jsonb, '0'::jsonb, 'null'::jsonb), FALSE)
   OR (jsonb_typeof(doc -> 'access') = 'object'
       AND (NOT COALESCE(doc #> '{access,inherits}' NOT IN ('false'::jsonb, '0'::jsonb, 'null'::jsonb), FALSE)
            OR EXISTS (SELECT 1 FROM jsonb_array_elements(CASE WHEN jsonb_typeof(doc #> '{access,permissions}') = 'array'
                               THEN doc #> '{access,permissions}' END) AS ap(value)
                       WHERE COALESCE(ap.value #> '{deny,goals:read}' NOT IN ('false'::jsonb, '0'::jsonb, 'null'::jsonb), FALSE)
                          OR COALESCE(ap.value #> '{deny,*}' NOT IN ('false'::jsonb, '0'::jsonb, 'null'::jsonb), FALSE))));
ALTER TABLE metrics ADD COLUMN restricted INTEGER NOT NULL DEFAULT 0;
UPDATE metrics SET restricted = 1 WHERE COALESCE(doc -> 'private' NOT IN ('false'::jsonb, '0'::jsonb, 'null'::jsonb), FALSE);
-- The visible goals' ids come from this index alone (account, restricted,
-- session). A key result's listing decides its rows from the other: its goal
-- and restricted beside its id, in id order, so that a count reads the index
-- alone and a page walks it.
CREATE INDEX goals_account_visibility ON goals(account_id, restricted, session_id, id);
CREATE INDEX metrics_account_visibility ON metrics(account_id, id, goal_id, restricted);

-- +goose Down
DROP INDEX metrics_account_visibility;
DROP INDEX goals_account_visibility;
ALTER TABLE metrics DROP COLUMN restricted;
ALTER TABLE goals DROP COLUMN restricted;
