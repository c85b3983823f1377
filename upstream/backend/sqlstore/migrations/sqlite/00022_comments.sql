-- +goose Up
-- Comments on key results (upstream.Comment): a JSON document plus the key
-- result commented on, by which a listing is filtered and a caller's
-- visibility decided (a comment is shown as its key result is).
CREATE TABLE comments (
    id         TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id),
    target_id  TEXT NOT NULL,
    doc        TEXT NOT NULL
);
CREATE INDEX comments_account_target ON comments(account_id, target_id, id);

-- +goose Down
DROP INDEX comments_account_target;
DROP TABLE comments;
