-- +goose Up
-- What recomputing a path reads of a goal and a key result, in columns kept
-- in step with the document on every write like the other key columns: a
-- goal's attainment mode and its derived figures (attainments, counts), a
-- key result's attainment. A check-in inside a tree reads them for every
-- goal on its path and every key result of those goals (paths.go); read
-- out of the documents with json_extract, that parsed each document once
-- per check-in. The documents still hold the same values, which reads
-- serve; the backfill copies them out of the documents.
ALTER TABLE goals ADD COLUMN attainment_type TEXT NOT NULL DEFAULT '';
ALTER TABLE goals ADD COLUMN figure_attainment REAL NOT NULL DEFAULT 0;
ALTER TABLE goals ADD COLUMN figure_aggregated REAL NOT NULL DEFAULT 0;
ALTER TABLE goals ADD COLUMN figure_children_aggregated REAL NOT NULL DEFAULT 0;
ALTER TABLE goals ADD COLUMN figure_full_aggregated REAL NOT NULL DEFAULT 0;
ALTER TABLE goals ADD COLUMN figure_children INTEGER NOT NULL DEFAULT 0;
ALTER TABLE goals ADD COLUMN figure_subtree INTEGER NOT NULL DEFAULT 0;
ALTER TABLE goals ADD COLUMN figure_full_subtree INTEGER NOT NULL DEFAULT 0;
ALTER TABLE goals ADD COLUMN figure_metrics INTEGER NOT NULL DEFAULT 0;
ALTER TABLE goals ADD COLUMN figure_tasks INTEGER NOT NULL DEFAULT 0;
ALTER TABLE goals ADD COLUMN figure_live_tasks INTEGER NOT NULL DEFAULT 0;
UPDATE goals SET
    attainment_type = coalesce(json_extract(doc, '$.attainmentTypeString'), ''),
    figure_attainment = coalesce(json_extract(doc, '$.attainment'), 0),
    figure_aggregated = coalesce(json_extract(doc, '$.aggregatedAttainment'), 0),
    figure_children_aggregated = coalesce(json_extract(doc, '$.childrenAggregatedAttainment'), 0),
    figure_full_aggregated = coalesce(json_extract(doc, '$.fullAggregatedAttainment'), 0),
    figure_children = coalesce(json_extract(doc, '$.childrenCount'), 0),
    figure_subtree = coalesce(json_extract(doc, '$.subTreeCount'), 0),
    figure_full_subtree = coalesce(json_extract(doc, '$.fullSubTreeCount'), 0),
    figure_metrics = coalesce(json_extract(doc, '$.metricsCount'), 0),
    figure_tasks = coalesce(json_extract(doc, '$.tasksCount'), 0),
    figure_live_tasks = coalesce(json_extract(doc, '$.nonArchivedTasksCount'), 0);
ALTER TABLE metrics ADD COLUMN figure_attainment REAL NOT NULL DEFAULT 0;
UPDATE metrics SET figure_attainment = coalesce(json_extract(doc, '$.attainment'), 0);

-- +goose Down
ALTER TABLE metrics DROP COLUMN figure_attainment;
ALTER TABLE goals DROP COLUMN figure_live_tasks;
ALTER TABLE goals DROP COLUMN figure_tasks;
ALTER TABLE goals DROP COLUMN figure_metrics;
ALTER TABLE goals DROP COLUMN figure_full_subtree;
ALTER TABLE goals DROP COLUMN figure_subtree;
ALTER TABLE goals DROP COLUMN figure_children;
ALTER TABLE goals DROP COLUMN figure_full_aggregated;
ALTER TABLE goals DROP COLUMN figure_children_aggregated;
ALTER TABLE goals DROP COLUMN figure_aggregated;
ALTER TABLE goals DROP COLUMN figure_attainment;
ALTER TABLE goals DROP COLUMN attainment_type;
