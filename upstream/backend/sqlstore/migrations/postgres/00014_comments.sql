-- +goose Up
-- Comments on key results (upstream.Comment): a JSON document plus the key
-- result commented on, by which a listing is filtered and a caller's
-- visibility decided (a comment is shown as its key result is).
CREATE TABLE comments (
    id         TEXT COLLATE "C" PRIMARY KEY,
    account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts(id),
    target_id  TEXT COLLATE "C" NOT NULL,
    doc        JSONB NOT NULL
);
CREATE INDEX comments_account_target ON comments(account_id, target_id, id);
CREATE INDEX comments_account_id ON comments(account_id, id);

-- +goose Down
DROP TABLE comments;
