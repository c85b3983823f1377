-- +goose Up
-- The identities of an identity provider bound to users (identify.go,
-- upstream.BindIdentity): an identity (issuer, subject) signs in as the user
-- it was bound to at its first sign-in, whatever its e-mail claim says
-- later; a user has at most one identity per issuer.
CREATE TABLE identities (
    account_id TEXT NOT NULL,
    issuer     TEXT NOT NULL,
    subject    TEXT NOT NULL,
    user_id    TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (account_id, issuer, subject),
    UNIQUE (account_id, issuer, user_id)
);

-- +goose Down
DROP TABLE identities;
