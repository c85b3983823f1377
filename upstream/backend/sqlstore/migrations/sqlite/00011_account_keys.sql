-- +goose Up
-- The webhook queue's ON CONFLICT names the key with account_id, as on
-- PostgreSQL (migrations/postgres/00004_account_keys.sql), so that one
-- statement serves both. SQLite keeps its other keys: a single file is
-- never distributed, and widening a primary key would rebuild every table.
CREATE UNIQUE INDEX webhook_deliveries_account_webhook_position ON webhook_deliveries(account_id, webhook_id, position);

-- +goose Down
DROP INDEX webhook_deliveries_account_webhook_position;
