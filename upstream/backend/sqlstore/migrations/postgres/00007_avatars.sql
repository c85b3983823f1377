-- +goose Up
-- The pictures users upload, as migrations/sqlite/00014_avatars.sql: at
-- most one per user, replaced and deleted with the change that drops it.
-- account_id leads every key, so that on Citus the table is distributed by
-- account with the others (citus.go).
CREATE TABLE avatars (
    account_id   TEXT COLLATE "C" NOT NULL REFERENCES accounts(id),
    id           TEXT COLLATE "C" NOT NULL,
    user_id      TEXT COLLATE "C" NOT NULL,
    content_type TEXT NOT NULL,
    etag         TEXT NOT NULL,
    created      TEXT NOT NULL,
    data         BYTEA NOT NULL,
    PRIMARY KEY (account_id, id)
);
CREATE UNIQUE INDEX avatars_user ON avatars(account_id, user_id);

-- +goose Down
DROP TABLE avatars;
