-- +goose Up
-- The identities of an identity provider bound to users (identify.go,
-- upstream.BindIdentity): an identity (issuer, subject) signs in as the user
-- it was bound to at its first sign-in, whatever its e-mail claim says
-- later; a user has at most one identity per issuer. On Citus it is
-- distributed by account_id, as every table with one (citus.go).
CREATE TABLE identities (
    account_id TEXT COLLATE "C" NOT NULL,
    issuer     TEXT COLLATE "C" NOT NULL,
    subject    TEXT COLLATE "C" NOT NULL,
    user_id    TEXT COLLATE "C" NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (account_id, issuer, subject),
    UNIQUE (account_id, issuer, user_id)
);

-- +goose Down
DROP TABLE identities;
