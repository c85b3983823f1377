-- +goose Up
-- The account of every token, by the token's hash, as on PostgreSQL
-- (migrations/postgres/00005_token_accounts.sql): authentication reads it
-- first, then the token with its account named, in both dialects. Every
-- existing token is copied, so every token keeps working.
CREATE TABLE token_accounts (
    hash       TEXT PRIMARY KEY, -- tokens.hash
    account_id TEXT NOT NULL
);
INSERT INTO token_accounts (hash, account_id) SELECT hash, account_id FROM tokens;

-- +goose Down
DROP TABLE token_accounts;
