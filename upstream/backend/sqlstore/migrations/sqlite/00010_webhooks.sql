-- +goose Up
-- Webhooks (docs/webhooks.md): each reads the event log of its account
-- from last_position, the durable cursor of the dispatcher, and turns the
-- events it selects into deliveries. The secret is kept as it is: it signs
-- every delivery, so it cannot be hashed like a token.
CREATE TABLE webhooks (
    id            TEXT PRIMARY KEY,
    account_id    TEXT NOT NULL,
    url           TEXT NOT NULL,
    events        TEXT NOT NULL,   -- JSON array of event types, or ["*"]
    secret        TEXT NOT NULL,
    description   TEXT NOT NULL DEFAULT '',
    active        INTEGER NOT NULL DEFAULT 1,
    last_position INTEGER NOT NULL, -- the last event position turned into deliveries
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL
);
CREATE INDEX webhooks_account ON webhooks (account_id, created_at);

-- One event to send to one webhook, with its attempts. A dispatcher claims
-- a due delivery by setting lease_until, sends it, and records the attempt;
-- a lease left by a process that stopped expires and the delivery is
-- tried again.
CREATE TABLE webhook_deliveries (
    id              TEXT PRIMARY KEY,
    account_id      TEXT NOT NULL,
    webhook_id      TEXT NOT NULL,
    position        INTEGER NOT NULL,
    type            TEXT NOT NULL,
    status          TEXT NOT NULL,  -- pending, succeeded, failed
    attempts        INTEGER NOT NULL DEFAULT 0,
    attempt_log     TEXT NOT NULL DEFAULT '[]', -- JSON array of upstream.WebhookAttempt
    payload         TEXT NOT NULL,  -- upstream.Event as JSON
    created_at      TEXT NOT NULL,
    next_attempt_at TEXT,           -- pending only
    lease_until     TEXT,           -- claimed by a dispatcher until then
    completed_at    TEXT,
    UNIQUE (webhook_id, position)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at);

-- +goose Down
DROP TABLE webhook_deliveries;
DROP TABLE webhooks;
