-- +goose Up
-- The schema of migrations/sqlite 00001–00008 in one step, for PostgreSQL.
-- Every resource is a JSONB document (doc) plus the keys that lists, joins
-- and dataloaders filter by, in their own indexed columns; account_id
-- scopes every query. Key and text columns use the "C" collation so that
-- they compare and sort bytewise, as in SQLite and Go, whatever the
-- database's locale (paging by id and sorting by name agree across stores).
CREATE TABLE accounts (
    id   TEXT COLLATE "C" PRIMARY KEY,
    doc  JSONB NOT NULL
);

CREATE TABLE users (
    id         TEXT COLLATE "C" PRIMARY KEY,
    account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts(id),
    email      TEXT COLLATE "C" NOT NULL,
    doc        JSONB NOT NULL
);
CREATE UNIQUE INDEX users_account_email ON users(account_id, email);
CREATE INDEX users_account_id ON users(account_id, id);

CREATE TABLE tokens (
    hash       TEXT COLLATE "C" PRIMARY KEY, -- hex SHA-256 of the token; the token itself is never stored
    account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts(id),
    user_id    TEXT COLLATE "C" NOT NULL REFERENCES users(id),
    created    TEXT COLLATE "C" NOT NULL,
    id         TEXT COLLATE "C" NOT NULL DEFAULT '',
    name       TEXT NOT NULL DEFAULT '',
    scopes     TEXT NOT NULL DEFAULT 'read,write',
    expires    TEXT COLLATE "C" NOT NULL DEFAULT '', -- TimeLayout; '' = never
    last_used  TEXT COLLATE "C" NOT NULL DEFAULT ''  -- TimeLayout; '' = never used
);
CREATE INDEX tokens_user ON tokens(user_id);
CREATE UNIQUE INDEX tokens_id ON tokens(id);

CREATE TABLE teams (
    id         TEXT COLLATE "C" PRIMARY KEY,
    account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts(id),
    parent_id  TEXT COLLATE "C" NOT NULL DEFAULT '',
    doc        JSONB NOT NULL
);
CREATE INDEX teams_account_parent_id ON teams(account_id, parent_id, id);
CREATE INDEX teams_account_id ON teams(account_id, id);

CREATE TABLE sessions (
    id         TEXT COLLATE "C" PRIMARY KEY,
    account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts(id),
    parent_id  TEXT COLLATE "C" NOT NULL DEFAULT '',
    doc        JSONB NOT NULL
);
CREATE INDEX sessions_account_parent_id ON sessions(account_id, parent_id, id);
CREATE INDEX sessions_account_id ON sessions(account_id, id);

CREATE TABLE goals (
    id         TEXT COLLATE "C" PRIMARY KEY,
    account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts(id),
    parent_id  TEXT COLLATE "C" NOT NULL DEFAULT '',
    session_id TEXT COLLATE "C" NOT NULL,
    owner_id   TEXT COLLATE "C" NOT NULL DEFAULT '',
    doc        JSONB NOT NULL
);
CREATE INDEX goals_account_parent_id ON goals(account_id, parent_id, id);
CREATE INDEX goals_account_session_id ON goals(account_id, session_id, id);
CREATE INDEX goals_account_owner_id ON goals(account_id, owner_id, id);
CREATE INDEX goals_account_id ON goals(account_id, id);

CREATE TABLE metrics (
    id         TEXT COLLATE "C" PRIMARY KEY,
    account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts(id),
    goal_id    TEXT COLLATE "C" NOT NULL,
    session_id TEXT COLLATE "C" NOT NULL,
    owner_id   TEXT COLLATE "C" NOT NULL DEFAULT '',
    doc        JSONB NOT NULL
);
CREATE INDEX metrics_account_goal_id ON metrics(account_id, goal_id, id);
CREATE INDEX metrics_account_session_id ON metrics(account_id, session_id, id);
CREATE INDEX metrics_account_owner_id ON metrics(account_id, owner_id, id);
CREATE INDEX metrics_account_id ON metrics(account_id, id);

CREATE TABLE checkins (
    id         TEXT COLLATE "C" PRIMARY KEY,
    account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts(id),
    metric_id  TEXT COLLATE "C" NOT NULL,
    goal_id    TEXT COLLATE "C" NOT NULL,
    doc        JSONB NOT NULL,
    snapshot   JSONB NOT NULL -- the key result right after this check-in
);
CREATE INDEX checkins_account_metric_id ON checkins(account_id, metric_id, id);
CREATE INDEX checkins_account_goal_id ON checkins(account_id, goal_id, id);
CREATE INDEX checkins_account_id ON checkins(account_id, id);

CREATE TABLE tasks (
    id         TEXT COLLATE "C" PRIMARY KEY,
    account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts(id),
    parent_id  TEXT COLLATE "C" NOT NULL DEFAULT '',
    session_id TEXT COLLATE "C" NOT NULL DEFAULT '',
    owner_id   TEXT COLLATE "C" NOT NULL DEFAULT '',
    doc        JSONB NOT NULL
);
CREATE INDEX tasks_account_parent_id ON tasks(account_id, parent_id, id);
CREATE INDEX tasks_account_session_id ON tasks(account_id, session_id, id);
CREATE INDEX tasks_account_owner_id ON tasks(account_id, owner_id, id);
CREATE INDEX tasks_account_id ON tasks(account_id, id);

CREATE TABLE tags (
    id         TEXT COLLATE "C" PRIMARY KEY,
    account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts(id),
    name       TEXT COLLATE "C" NOT NULL,
    doc        JSONB NOT NULL
);
CREATE UNIQUE INDEX tags_account_name ON tags(account_id, name);
CREATE INDEX tags_account_id ON tags(account_id, id);

CREATE TABLE item_tags (
    account_id TEXT COLLATE "C" NOT NULL,
    tag_id     TEXT COLLATE "C" NOT NULL REFERENCES tags(id),
    item_id    TEXT COLLATE "C" NOT NULL,
    item_type  TEXT COLLATE "C" NOT NULL, -- goal, dashboard, insight
    added      TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (tag_id, item_id)
);
CREATE INDEX item_tags_item ON item_tags(account_id, item_id);
CREATE INDEX item_tags_account_type ON item_tags(account_id, item_type, tag_id);

CREATE TABLE roles (
    id         TEXT COLLATE "C" PRIMARY KEY,
    account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts(id),
    name       TEXT COLLATE "C" NOT NULL,
    doc        JSONB NOT NULL
);
CREATE UNIQUE INDEX roles_account_name ON roles(account_id, name);
CREATE INDEX roles_account_id ON roles(account_id, id);

CREATE TABLE role_mappings (
    id         TEXT COLLATE "C" PRIMARY KEY,
    account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts(id),
    role_id    TEXT COLLATE "C" NOT NULL,
    team_id    TEXT COLLATE "C" NOT NULL,
    doc        JSONB NOT NULL
);
CREATE UNIQUE INDEX role_mappings_role_team ON role_mappings(account_id, role_id, team_id);
CREATE INDEX role_mappings_team ON role_mappings(account_id, team_id);
CREATE INDEX role_mappings_account_id ON role_mappings(account_id, id);

CREATE TABLE permissions (
    id         TEXT COLLATE "C" PRIMARY KEY,
    account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts(id),
    action     TEXT COLLATE "C" NOT NULL,
    doc        JSONB NOT NULL
);
CREATE INDEX permissions_account_action ON permissions(account_id, action);
CREATE INDEX permissions_account_id ON permissions(account_id, id);

CREATE TABLE dashboards (
    id         TEXT COLLATE "C" PRIMARY KEY,
    account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts(id),
    created_by TEXT COLLATE "C" NOT NULL DEFAULT '',
    is_report  BOOLEAN NOT NULL DEFAULT FALSE,
    doc        JSONB NOT NULL
);
CREATE INDEX dashboards_account ON dashboards(account_id, is_report);
CREATE INDEX dashboards_account_id ON dashboards(account_id, id);

CREATE TABLE dashboard_parameters (
    id         TEXT COLLATE "C" PRIMARY KEY,
    account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts(id),
    key        TEXT COLLATE "C" NOT NULL,
    doc        JSONB NOT NULL
);
CREATE UNIQUE INDEX dashboard_parameters_account_key ON dashboard_parameters(account_id, key);
CREATE INDEX dashboard_parameters_account_id ON dashboard_parameters(account_id, id);

CREATE TABLE badges (
    id         TEXT COLLATE "C" PRIMARY KEY,
    account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts(id),
    doc        JSONB NOT NULL
);
CREATE INDEX badges_account_id ON badges(account_id, id);

CREATE TABLE badge_assignments (
    id         TEXT COLLATE "C" PRIMARY KEY,
    account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts(id),
    badge_id   TEXT COLLATE "C" NOT NULL REFERENCES badges(id),
    status     TEXT COLLATE "C" NOT NULL, -- pending, approved, rejected
    doc        JSONB NOT NULL
);
CREATE INDEX badge_assignments_account_badge_id ON badge_assignments(account_id, badge_id, id);
CREATE INDEX badge_assignments_account_status ON badge_assignments(account_id, status);
CREATE INDEX badge_assignments_account_id ON badge_assignments(account_id, id);

CREATE TABLE kpi_groups (
    id         TEXT COLLATE "C" PRIMARY KEY,
    account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts(id),
    doc        JSONB NOT NULL
);
CREATE INDEX kpi_groups_account_id ON kpi_groups(account_id, id);

CREATE TABLE kpi_favorites (
    account_id TEXT COLLATE "C" NOT NULL,
    user_id    TEXT COLLATE "C" NOT NULL,
    group_id   TEXT COLLATE "C" NOT NULL REFERENCES kpi_groups(id),
    PRIMARY KEY (user_id, group_id)
);
CREATE INDEX kpi_favorites_group ON kpi_favorites(account_id, group_id);

CREATE TABLE kpis (
    id         TEXT COLLATE "C" PRIMARY KEY,
    account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts(id),
    doc        JSONB NOT NULL -- groupIds (the groups holding the KPI) live in the document
);
CREATE INDEX kpis_account_id ON kpis(account_id, id);

CREATE TABLE lists (
    id         TEXT COLLATE "C" PRIMARY KEY,
    account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts(id),
    doc        JSONB NOT NULL
);
CREATE INDEX lists_account_id ON lists(account_id, id);

CREATE TABLE announcements (
    id         TEXT COLLATE "C" PRIMARY KEY,
    account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts(id),
    doc        JSONB NOT NULL
);
CREATE INDEX announcements_account_id ON announcements(account_id, id);

CREATE TABLE idempotency_keys (
    account_id   TEXT COLLATE "C" NOT NULL,
    user_id      TEXT COLLATE "C" NOT NULL,
    method       TEXT COLLATE "C" NOT NULL,
    path         TEXT COLLATE "C" NOT NULL,
    key          TEXT COLLATE "C" NOT NULL,
    request_hash TEXT NOT NULL,
    state        TEXT NOT NULL,
    created_at   TEXT COLLATE "C" NOT NULL,
    expires_at   TEXT COLLATE "C" NOT NULL,
    response     TEXT,
    PRIMARY KEY (account_id, user_id, method, path, key)
);
CREATE INDEX idempotency_keys_expires_at ON idempotency_keys(expires_at);

CREATE TABLE goal_subtrees (
    goal_id     TEXT COLLATE "C" PRIMARY KEY REFERENCES goals(id) ON DELETE CASCADE,
    account_id  TEXT COLLATE "C" NOT NULL,
    attainment  DOUBLE PRECISION NOT NULL, -- the goal's own attainment
    descendants BIGINT NOT NULL,           -- number of descendants
    sum         DOUBLE PRECISION NOT NULL, -- sum of the descendants' attainments
    sessions    TEXT NOT NULL              -- JSON object: session id -> descendants in it
);

-- +goose Down
DROP TABLE goal_subtrees;
DROP TABLE idempotency_keys;
DROP TABLE announcements;
DROP TABLE lists;
DROP TABLE kpis;
DROP TABLE kpi_favorites;
DROP TABLE kpi_groups;
DROP TABLE badge_assignments;
DROP TABLE badges;
DROP TABLE dashboard_parameters;
DROP TABLE dashboards;
DROP TABLE permissions;
DROP TABLE role_mappings;
DROP TABLE roles;
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
