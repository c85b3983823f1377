-- +goose Up
-- Listings are paged in id order within an account (the id tie-breaker ends
-- every sort). With (account_id, id) SQLite walks an account's rows in that
-- order and stops after the page, instead of reading every document of the
-- account into a temporary sort.
CREATE INDEX users_account_id ON users(account_id, id);
CREATE INDEX teams_account_id ON teams(account_id, id);
CREATE INDEX sessions_account_id ON sessions(account_id, id);
CREATE INDEX goals_account_id ON goals(account_id, id);
CREATE INDEX metrics_account_id ON metrics(account_id, id);
CREATE INDEX checkins_account_id ON checkins(account_id, id);
CREATE INDEX tasks_account_id ON tasks(account_id, id);
CREATE INDEX tags_account_id ON tags(account_id, id);
CREATE INDEX roles_account_id ON roles(account_id, id);
CREATE INDEX role_mappings_account_id ON role_mappings(account_id, id);
CREATE INDEX permissions_account_id ON permissions(account_id, id);
CREATE INDEX dashboards_account_id ON dashboards(account_id, id);
CREATE INDEX dashboard_parameters_account_id ON dashboard_parameters(account_id, id);
CREATE INDEX badges_account_id ON badges(account_id, id);
CREATE INDEX badge_assignments_account_id ON badge_assignments(account_id, id);
CREATE INDEX kpi_groups_account_id ON kpi_groups(account_id, id);
CREATE INDEX kpis_account_id ON kpis(account_id, id);
CREATE INDEX lists_account_id ON lists(account_id, id);
CREATE INDEX announcements_account_id ON announcements(account_id, id);

-- +goose Down
DROP INDEX users_account_id;
DROP INDEX teams_account_id;
DROP INDEX sessions_account_id;
DROP INDEX goals_account_id;
DROP INDEX metrics_account_id;
DROP INDEX checkins_account_id;
DROP INDEX tasks_account_id;
DROP INDEX tags_account_id;
DROP INDEX roles_account_id;
DROP INDEX role_mappings_account_id;
DROP INDEX permissions_account_id;
DROP INDEX dashboards_account_id;
DROP INDEX dashboard_parameters_account_id;
DROP INDEX badges_account_id;
DROP INDEX badge_assignments_account_id;
DROP INDEX kpi_groups_account_id;
DROP INDEX kpis_account_id;
DROP INDEX lists_account_id;
DROP INDEX announcements_account_id;
