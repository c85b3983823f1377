-- +goose Up
-- The organisation's access model: account roles, role-to-team mappings and
-- persistent grants. Built-in roles (admin, member, viewer) are not stored:
-- they are the same in every account (upstream.BuiltinRoles).
CREATE TABLE roles (
    id         TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id),
    name       TEXT NOT NULL,
    doc        TEXT NOT NULL
);
CREATE UNIQUE INDEX roles_account_name ON roles(account_id, name);

CREATE TABLE role_mappings (
    id         TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id),
    role_id    TEXT NOT NULL,
    team_id    TEXT NOT NULL,
    doc        TEXT NOT NULL
);
CREATE UNIQUE INDEX role_mappings_role_team ON role_mappings(account_id, role_id, team_id);
CREATE INDEX role_mappings_team ON role_mappings(account_id, team_id);

-- A grant: one action to principals (user or role ids), kept in the
-- document; the action is a column so a principal's actions load in one query.
CREATE TABLE permissions (
    id         TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id),
    action     TEXT NOT NULL,
    doc        TEXT NOT NULL
);
CREATE INDEX permissions_account_action ON permissions(account_id, action);

-- +goose Down
DROP TABLE permissions;
DROP TABLE role_mappings;
DROP TABLE roles;
