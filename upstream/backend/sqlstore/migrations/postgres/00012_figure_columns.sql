-- +goose Up
-- What recomputing a path reads of a goal and a key result, in columns kept
-- in step with the document on every write like the other key columns
-- (migrations/sqlite/00019_figure_columns.sql): a goal's attainment mode
-- and its derived figures, a key result's attainment. The path's statement
-- reads them instead of taking eleven members out of each document. The
-- documents still hold the same values; the backfill copies them out.
ALTER TABLE goals
    ADD COLUMN attainment_type TEXT NOT NULL DEFAULT '',
    ADD COLUMN figure_attainment DOUBLE PRECISION NOT NULL DEFAULT 0,
    ADD COLUMN figure_aggregated DOUBLE PRECISION NOT NULL DEFAULT 0,
    ADD COLUMN figure_children_aggregated DOUBLE PRECISION NOT NULL DEFAULT 0,
    ADD COLUMN figure_full_aggregated DOUBLE PRECISION NOT NULL DEFAULT 0,
    ADD COLUMN figure_children BIGINT NOT NULL DEFAULT 0,
    ADD COLUMN figure_subtree BIGINT NOT NULL DEFAULT 0,
    ADD COLUMN figure_full_subtree BIGINT NOT NULL DEFAULT 0,
    ADD COLUMN figure_metrics BIGINT NOT NULL DEFAULT 0,
    ADD COLUMN figure_tasks BIGINT NOT NULL DEFAULT 0,
    ADD COLUMN figure_live_tasks BIGINT NOT NULL DEFAULT 0;
UPDATE goals SET
    attainment_type = coalesce(doc ->> 'attainmentTypeString', ''),
    figure_attainment = coalesce((doc ->> 'attainment')::double precision, 0),
    figure_aggregated = coalesce((doc ->> 'aggregatedAttainment')::double precision, 0),
    figure_children_aggregated = coalesce((doc ->> 'childrenAggregatedAttainment')::double precision, 0),
    figure_full_aggregated = coalesce((doc ->> 'fullAggregatedAttainment')::double precision, 0),
    figure_children = coalesce((doc ->> 'childrenCount')::bigint, 0),
    figure_subtree = coalesce((doc ->> 'subTreeCount')::bigint, 0),
    figure_full_subtree = coalesce((doc ->> 'fullSubTreeCount')::bigint, 0),
    figure_metrics = coalesce((doc ->> 'metricsCount')::bigint, 0),
    figure_tasks = coalesce((doc ->> 'tasksCount')::bigint, 0),
    figure_live_tasks = coalesce((doc ->> 'nonArchivedTasksCount')::bigint, 0);
ALTER TABLE metrics ADD COLUMN figure_attainment DOUBLE PRECISION NOT NULL DEFAULT 0;
UPDATE metrics SET figure_attainment = coalesce((doc ->> 'attainment')::double precision, 0);

-- +goose Down
ALTER TABLE metrics DROP COLUMN figure_attainment;
ALTER TABLE goals
    DROP COLUMN figure_live_tasks, DROP COLUMN figure_tasks, DROP COLUMN figure_metrics,
    DROP COLUMN figure_full_subtree, DROP COLUMN figure_subtree, DROP COLUMN figure_children,
    DROP COLUMN figure_full_aggregated, DROP COLUMN figure_children_aggregated, DROP COLUMN figure_aggregated,
    DROP COLUMN figure_attainment, DROP COLUMN attainment_type;
