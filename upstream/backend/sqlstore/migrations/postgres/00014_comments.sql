-- +goose Up
-- Comments on key results (upstream.Comment): a JSON document plus the key
-- result commented on, by which a listing is filtered and a caller's
-- visibility decided (a comment is shown as its key result is).
-- The key leads with account_id, as every account's table's does since
-- 00004 (Citus distributes by it).
CREATE TABLE comments (
    id         TEXT COLLATE "C" NOT NULL,
    account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts(id),
    target_id  TEXT COLLATE "C" NOT NULL,
    doc        JSONB NOT NULL,
    PRIMARY KEY (account_id, id)
);
CREATE INDEX comments_account_target ON comments(account_id, target_id, id);

-- +goose Down
DROP TABLE comments;
