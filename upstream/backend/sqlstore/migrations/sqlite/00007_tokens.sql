-- +goose Up
-- Tokens become credentials that can be listed, revoked, limited and that
-- expire (docs/authorization.md, "API tokens"). Existing tokens keep working:
-- they get an id, no name, read and write scopes, and expire 90 days (the
-- default lifetime) after this migration runs, which gives their owners time
-- to replace them with tokens of their own choosing.
ALTER TABLE tokens ADD COLUMN id TEXT NOT NULL DEFAULT '';
ALTER TABLE tokens ADD COLUMN name TEXT NOT NULL DEFAULT '';
ALTER TABLE tokens ADD COLUMN scopes TEXT NOT NULL DEFAULT 'read,write';
ALTER TABLE tokens ADD COLUMN expires TEXT NOT NULL DEFAULT ''; -- TimeLayout; '' = never
ALTER TABLE tokens ADD COLUMN last_used TEXT NOT NULL DEFAULT ''; -- TimeLayout; '' = never used
UPDATE tokens SET id = lower(hex(randomblob(12))) WHERE id = '';
UPDATE tokens SET expires = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '+90 days') WHERE expires = '';
CREATE UNIQUE INDEX tokens_id ON tokens(id);

-- +goose Down
DROP INDEX tokens_id;
ALTER TABLE tokens DROP COLUMN last_used;
ALTER TABLE tokens DROP COLUMN expires;
ALTER TABLE tokens DROP COLUMN scopes;
ALTER TABLE tokens DROP COLUMN name;
ALTER TABLE tokens DROP COLUMN id;
