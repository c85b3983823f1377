-- +goose Up
-- The rest of the contract: dashboards and their parameters, badges and
-- their assignments, KPI groups and KPIs, saved lists, announcements. Same
-- layout as 00001: a JSON document plus indexed key columns; account_id
-- scopes every query.
CREATE TABLE dashboards (
    id         TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id),
    created_by TEXT NOT NULL DEFAULT '',
    is_report  INTEGER NOT NULL DEFAULT 0,
    doc        TEXT NOT NULL
);
CREATE INDEX dashboards_account ON dashboards(account_id, is_report);

CREATE TABLE dashboard_parameters (
    id         TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id),
    key        TEXT NOT NULL,
    doc        TEXT NOT NULL
);
CREATE UNIQUE INDEX dashboard_parameters_account_key ON dashboard_parameters(account_id, key);

CREATE TABLE badges (
    id         TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id),
    doc        TEXT NOT NULL
);
CREATE INDEX badges_account ON badges(account_id);

CREATE TABLE badge_assignments (
    id         TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id),
    badge_id   TEXT NOT NULL REFERENCES badges(id),
    status     TEXT NOT NULL, -- pending, approved, rejected
    doc        TEXT NOT NULL
);
CREATE INDEX badge_assignments_account_badge ON badge_assignments(account_id, badge_id);
CREATE INDEX badge_assignments_account_status ON badge_assignments(account_id, status);

CREATE TABLE kpi_groups (
    id         TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id),
    doc        TEXT NOT NULL
);
CREATE INDEX kpi_groups_account ON kpi_groups(account_id);

CREATE TABLE kpi_favorites (
    account_id TEXT NOT NULL,
    user_id    TEXT NOT NULL,
    group_id   TEXT NOT NULL REFERENCES kpi_groups(id),
    PRIMARY KEY (user_id, group_id)
);
CREATE INDEX kpi_favorites_group ON kpi_favorites(account_id, group_id);

CREATE TABLE kpis (
    id         TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id),
    doc        TEXT NOT NULL -- groupIds (the groups holding the KPI) live in the document
);
CREATE INDEX kpis_account ON kpis(account_id);

CREATE TABLE lists (
    id         TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id),
    doc        TEXT NOT NULL
);
CREATE INDEX lists_account ON lists(account_id);

CREATE TABLE announcements (
    id         TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id),
    doc        TEXT NOT NULL
);
CREATE INDEX announcements_account ON announcements(account_id);

CREATE INDEX item_tags_account_type ON item_tags(account_id, item_type, tag_id);

-- +goose Down
DROP INDEX item_tags_account_type;
DROP TABLE announcements;
DROP TABLE lists;
DROP TABLE kpis;
DROP TABLE kpi_favorites;
DROP TABLE kpi_groups;
DROP TABLE badge_assignments;
DROP TABLE badges;
DROP TABLE dashboard_parameters;
DROP TABLE dashboards;
