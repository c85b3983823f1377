-- +goose Up
-- The pictures users upload (avatars.go): at most one per user, replaced
-- and deleted with the change that drops it, so none outlives its use.
-- id is a random 128-bit name, the last segment of the URL the picture is
-- served at (upstream.AvatarPath); etag a digest of data.
CREATE TABLE avatars (
    account_id   TEXT NOT NULL REFERENCES accounts(id),
    id           TEXT NOT NULL,
    user_id      TEXT NOT NULL,
    content_type TEXT NOT NULL,
    etag         TEXT NOT NULL,
    created      TEXT NOT NULL,
    data         BLOB NOT NULL,
    PRIMARY KEY (account_id, id)
);
CREATE UNIQUE INDEX avatars_user ON avatars(account_id, user_id);

-- +goose Down
DROP TABLE avatars;
