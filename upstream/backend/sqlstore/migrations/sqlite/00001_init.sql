-- +goose Up
-- Every resource is a JSON document (doc) plus the keys that lists, joins and
-- dataloaders filter by, in their own indexed columns. account_id scopes
-- every query.
CREATE TABLE accounts (
    id   TEXT PRIMARY KEY,
    doc  TEXT NOT NULL
);

CREATE TABLE users (
    id         TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id),
    email      TEXT NOT NULL,
    doc        TEXT NOT NULL
);
CREATE UNIQUE INDEX users_account_email ON users(account_id, email);

CREATE TABLE tokens (
    hash       TEXT PRIMARY KEY, -- hex SHA-256 of the token; the token itself is never stored
    account_id TEXT NOT NULL REFERENCES accounts(id),
    user_id    TEXT NOT NULL REFERENCES users(id),
    created    TEXT NOT NULL
);
CREATE INDEX tokens_user ON tokens(user_id);

CREATE TABLE teams (
    id         TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id),
    parent_id  TEXT NOT NULL DEFAULT '',
    doc        TEXT NOT NULL
);
CREATE INDEX teams_account_parent ON teams(account_id, parent_id);

CREATE TABLE sessions (
    id         TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id),
    parent_id  TEXT NOT NULL DEFAULT '',
    doc        TEXT NOT NULL
);
CREATE INDEX sessions_account_parent ON sessions(account_id, parent_id);

CREATE TABLE goals (
    id         TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id),
    parent_id  TEXT NOT NULL DEFAULT '',
    session_id TEXT NOT NULL,
    owner_id   TEXT NOT NULL DEFAULT '',
    doc        TEXT NOT NULL
);
CREATE INDEX goals_account_parent ON goals(account_id, parent_id);
CREATE INDEX goals_account_session ON goals(account_id, session_id);
CREATE INDEX goals_account_owner ON goals(account_id, owner_id);

CREATE TABLE metrics (
    id         TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id),
    goal_id    TEXT NOT NULL,
    session_id TEXT NOT NULL,
    owner_id   TEXT NOT NULL DEFAULT '',
    doc        TEXT NOT NULL
);
CREATE INDEX metrics_account_goal ON metrics(account_id, goal_id);
CREATE INDEX metrics_account_session ON metrics(account_id, session_id);
CREATE INDEX metrics_account_owner ON metrics(account_id, owner_id);

CREATE TABLE checkins (
    id         TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id),
    metric_id  TEXT NOT NULL,
    goal_id    TEXT NOT NULL,
    doc        TEXT NOT NULL,
    snapshot   TEXT NOT NULL -- the key result right after this check-in
);
CREATE INDEX checkins_account_metric ON checkins(account_id, metric_id);
CREATE INDEX checkins_account_goal ON checkins(account_id, goal_id);

CREATE TABLE tasks (
    id         TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id),
    parent_id  TEXT NOT NULL DEFAULT '',
    session_id TEXT NOT NULL DEFAULT '',
    owner_id   TEXT NOT NULL DEFAULT '',
    doc        TEXT NOT NULL
);
CREATE INDEX tasks_account_parent ON tasks(account_id, parent_id);
CREATE INDEX tasks_account_session ON tasks(account_id, session_id);
CREATE INDEX tasks_account_owner ON tasks(account_id, owner_id);

CREATE TABLE tags (
    id         TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id),
    name       TEXT NOT NULL,
    doc        TEXT NOT NULL
);
CREATE UNIQUE INDEX tags_account_name ON tags(account_id, name);

CREATE TABLE item_tags (
    account_id TEXT NOT NULL,
    tag_id     TEXT NOT NULL REFERENCES tags(id),
    item_id    TEXT NOT NULL,
    item_type  TEXT NOT NULL, -- goal, dashboard, insight
    added      TEXT NOT NULL,
    PRIMARY KEY (tag_id, item_id)
);
CREATE INDEX item_tags_item ON item_tags(account_id, item_id);

-- +goose Down
DROP TABLE item_tags;
DROP TABLE tags;
DROP TABLE tasks;
DROP TABLE checkins;
DROP TABLE metrics;
DROP TABLE goals;
DROP TABLE sessions;
DROP TABLE teams;
DROP TABLE tokens;
DROP TABLE users;
DROP TABLE accounts;
