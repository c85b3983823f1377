-- +goose Up
-- Webhooks, as migrations/sqlite/00010_webhooks.sql. Replicas claim due
-- deliveries with SELECT … FOR UPDATE SKIP LOCKED, and turn a webhook's
-- events into deliveries under its row lock, so no two replicas send the
-- same delivery at once (docs/webhooks.md, "Several replicas").
CREATE TABLE webhooks (
    id            TEXT COLLATE "C" PRIMARY KEY,
    account_id    TEXT COLLATE "C" NOT NULL,
    url           TEXT NOT NULL,
    events        TEXT NOT NULL,
    secret        TEXT NOT NULL,
    description   TEXT NOT NULL DEFAULT '',
    active        INTEGER NOT NULL DEFAULT 1,
    last_position BIGINT NOT NULL,
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL
);
CREATE INDEX webhooks_account ON webhooks (account_id, created_at);

CREATE TABLE webhook_deliveries (
    id              TEXT COLLATE "C" PRIMARY KEY,
    account_id      TEXT COLLATE "C" NOT NULL,
    webhook_id      TEXT COLLATE "C" NOT NULL,
    position        BIGINT NOT NULL,
    type            TEXT NOT NULL,
    status          TEXT NOT NULL,
    attempts        INTEGER NOT NULL DEFAULT 0,
    attempt_log     TEXT NOT NULL DEFAULT '[]',
    payload         TEXT NOT NULL,
    created_at      TEXT NOT NULL,
    next_attempt_at TEXT,
    lease_until     TEXT,
    completed_at    TEXT,
    UNIQUE (webhook_id, position)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at);

-- +goose Down
DROP TABLE webhook_deliveries;
DROP TABLE webhooks;
