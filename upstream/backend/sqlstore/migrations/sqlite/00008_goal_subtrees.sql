-- +goose Up
-- What each goal hands up to its parent (upstream.Subtree): its unrounded
-- attainment and the sums over its descendants. A write then recomputes the
-- path from the changed goal to its root, reading only the direct children
-- of each goal on it, instead of the whole tree. A goal without a row (data
-- written before this migration) makes the next write to its tree recompute
-- that tree in full, which fills the rows.
CREATE TABLE goal_subtrees (
    goal_id    TEXT PRIMARY KEY REFERENCES goals(id) ON DELETE CASCADE,
    account_id TEXT NOT NULL,
    attainment REAL NOT NULL,    -- the goal's own attainment
    descendants INTEGER NOT NULL, -- number of descendants
    sum        REAL NOT NULL,    -- sum of the descendants' attainments
    sessions   TEXT NOT NULL     -- JSON object: session id -> descendants in it
);

-- +goose Down
DROP TABLE goal_subtrees;
