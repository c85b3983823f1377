-- +goose Up
-- The account of every token, by the token's hash: authentication reads it
-- first, then the token, its user and its account with the account named,
-- so that on Citus it reads one shard instead of searching every shard for
-- the hash. Shared by all accounts, and on Citus a reference table
-- (citus.go): a copy on every node. A token's row here is written and
-- deleted with its row in tokens (tokens.go). Every existing token is
-- copied, so every token keeps working. tokens_hash, which served the
-- search by hash alone, goes: the lookup by (account_id, hash) uses the
-- primary key.
CREATE TABLE token_accounts (
    hash       TEXT COLLATE "C" PRIMARY KEY, -- tokens.hash
    account_id TEXT COLLATE "C" NOT NULL
);
INSERT INTO token_accounts (hash, account_id) SELECT hash, account_id FROM tokens;
DROP INDEX tokens_hash;

-- +goose Down
CREATE INDEX tokens_hash ON tokens(hash);
DROP TABLE token_accounts;
