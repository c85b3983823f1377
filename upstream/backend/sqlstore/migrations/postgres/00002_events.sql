-- +goose Up
-- The event log (outbox), as migrations/sqlite/00009_events.sql: every
-- write appends the events of what it changed in its own transaction.
-- position increases per account in commit order: writes of an account
-- hold its row lock (lockAccount), or under serializable isolation two
-- writers reading the same last position conflict and one is retried.
CREATE TABLE events (
    account_id TEXT COLLATE "C" NOT NULL,
    position   BIGINT NOT NULL,
    type       TEXT NOT NULL,
    item_id    TEXT COLLATE "C" NOT NULL,
    at         TEXT NOT NULL,   -- RFC 3339 UTC, the commit's time
    doc        TEXT NOT NULL,   -- upstream.Event as JSON
    PRIMARY KEY (account_id, position)
);
CREATE INDEX events_at ON events (at);

-- +goose Down
DROP TABLE events;
