-- +goose Up
-- Idempotency-Key: one row per (caller, operation, key), holding a digest of
-- the request and, once it answered, the answer to replay. A row lives
-- upstream.IdempotencyTTL (24 h); expired rows are swept when a key is
-- reserved. state: running (reserved), applied (the write committed, in
-- the same transaction), done (the answer is recorded).
CREATE TABLE idempotency_keys (
    account_id   TEXT NOT NULL,
    user_id      TEXT NOT NULL,
    method       TEXT NOT NULL,
    path         TEXT NOT NULL,
    key          TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    state        TEXT NOT NULL,
    created_at   TEXT NOT NULL,
    expires_at   TEXT NOT NULL,
    response     TEXT,
    PRIMARY KEY (account_id, user_id, method, path, key)
) WITHOUT ROWID;
CREATE INDEX idempotency_keys_expires_at ON idempotency_keys(expires_at);

-- +goose Down
DROP TABLE idempotency_keys;
