-- +goose Up
-- The event log (outbox): every write appends the events of what it changed
-- in its own transaction. position increases per account in commit order
-- (writes are serialised per account), so a reader resumes after the last
-- position it saw. Events older than the retention are pruned
-- (Store.PruneEvents).
CREATE TABLE events (
    account_id TEXT NOT NULL,
    position   INTEGER NOT NULL,
    type       TEXT NOT NULL,
    item_id    TEXT NOT NULL,
    at         TEXT NOT NULL,   -- RFC 3339 UTC, the commit's time
    doc        TEXT NOT NULL,   -- upstream.Event as JSON
    PRIMARY KEY (account_id, position)
) WITHOUT ROWID;
CREATE INDEX events_at ON events (at);

-- +goose Down
DROP TABLE events;
