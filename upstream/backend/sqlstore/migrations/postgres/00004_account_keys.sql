-- +goose Up
-- account_id in every key of an account's rows, so that the tables can be
-- distributed by account on Citus (distributed.go), which requires the
-- distribution column in every primary key, unique constraint and foreign
-- key between distributed tables. Ids stay unique across accounts, so no
-- row changes and no row can conflict with another under the wider keys.
-- The (account_id, id) indexes the primary keys now are go.

-- Foreign keys between account tables first: they depend on the keys.
ALTER TABLE tokens DROP CONSTRAINT tokens_user_id_fkey;
ALTER TABLE item_tags DROP CONSTRAINT item_tags_tag_id_fkey;
ALTER TABLE badge_assignments DROP CONSTRAINT badge_assignments_badge_id_fkey;
ALTER TABLE kpi_favorites DROP CONSTRAINT kpi_favorites_group_id_fkey;
ALTER TABLE goal_subtrees DROP CONSTRAINT goal_subtrees_goal_id_fkey;

ALTER TABLE users DROP CONSTRAINT users_pkey, ADD PRIMARY KEY (account_id, id);
DROP INDEX users_account_id;
ALTER TABLE tokens DROP CONSTRAINT tokens_pkey, ADD PRIMARY KEY (account_id, hash);
DROP INDEX tokens_id;
CREATE UNIQUE INDEX tokens_id ON tokens(account_id, id);
DROP INDEX tokens_user;
CREATE INDEX tokens_user ON tokens(account_id, user_id);
CREATE INDEX tokens_hash ON tokens(hash); -- authentication finds a token by its hash alone
ALTER TABLE teams DROP CONSTRAINT teams_pkey, ADD PRIMARY KEY (account_id, id);
DROP INDEX teams_account_id;
ALTER TABLE sessions DROP CONSTRAINT sessions_pkey, ADD PRIMARY KEY (account_id, id);
DROP INDEX sessions_account_id;
ALTER TABLE goals DROP CONSTRAINT goals_pkey, ADD PRIMARY KEY (account_id, id);
DROP INDEX goals_account_id;
ALTER TABLE metrics DROP CONSTRAINT metrics_pkey, ADD PRIMARY KEY (account_id, id);
DROP INDEX metrics_account_id;
ALTER TABLE checkins DROP CONSTRAINT checkins_pkey, ADD PRIMARY KEY (account_id, id);
DROP INDEX checkins_account_id;
ALTER TABLE tasks DROP CONSTRAINT tasks_pkey, ADD PRIMARY KEY (account_id, id);
DROP INDEX tasks_account_id;
ALTER TABLE tags DROP CONSTRAINT tags_pkey, ADD PRIMARY KEY (account_id, id);
DROP INDEX tags_account_id;
ALTER TABLE item_tags DROP CONSTRAINT item_tags_pkey, ADD PRIMARY KEY (account_id, tag_id, item_id);
ALTER TABLE roles DROP CONSTRAINT roles_pkey, ADD PRIMARY KEY (account_id, id);
DROP INDEX roles_account_id;
ALTER TABLE role_mappings DROP CONSTRAINT role_mappings_pkey, ADD PRIMARY KEY (account_id, id);
DROP INDEX role_mappings_account_id;
ALTER TABLE permissions DROP CONSTRAINT permissions_pkey, ADD PRIMARY KEY (account_id, id);
DROP INDEX permissions_account_id;
ALTER TABLE dashboards DROP CONSTRAINT dashboards_pkey, ADD PRIMARY KEY (account_id, id);
DROP INDEX dashboards_account_id;
ALTER TABLE dashboard_parameters DROP CONSTRAINT dashboard_parameters_pkey, ADD PRIMARY KEY (account_id, id);
DROP INDEX dashboard_parameters_account_id;
ALTER TABLE badges DROP CONSTRAINT badges_pkey, ADD PRIMARY KEY (account_id, id);
DROP INDEX badges_account_id;
ALTER TABLE badge_assignments DROP CONSTRAINT badge_assignments_pkey, ADD PRIMARY KEY (account_id, id);
DROP INDEX badge_assignments_account_id;
ALTER TABLE kpi_groups DROP CONSTRAINT kpi_groups_pkey, ADD PRIMARY KEY (account_id, id);
DROP INDEX kpi_groups_account_id;
ALTER TABLE kpi_favorites DROP CONSTRAINT kpi_favorites_pkey, ADD PRIMARY KEY (account_id, user_id, group_id);
ALTER TABLE kpis DROP CONSTRAINT kpis_pkey, ADD PRIMARY KEY (account_id, id);
DROP INDEX kpis_account_id;
ALTER TABLE lists DROP CONSTRAINT lists_pkey, ADD PRIMARY KEY (account_id, id);
DROP INDEX lists_account_id;
ALTER TABLE announcements DROP CONSTRAINT announcements_pkey, ADD PRIMARY KEY (account_id, id);
DROP INDEX announcements_account_id;
ALTER TABLE goal_subtrees DROP CONSTRAINT goal_subtrees_pkey, ADD PRIMARY KEY (account_id, goal_id);
ALTER TABLE webhooks DROP CONSTRAINT webhooks_pkey, ADD PRIMARY KEY (account_id, id);
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_pkey, ADD PRIMARY KEY (account_id, id);
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_webhook_id_position_key,
    ADD CONSTRAINT webhook_deliveries_webhook_id_position_key UNIQUE (account_id, webhook_id, position);

ALTER TABLE tokens ADD CONSTRAINT tokens_user_id_fkey
    FOREIGN KEY (account_id, user_id) REFERENCES users(account_id, id);
ALTER TABLE item_tags ADD CONSTRAINT item_tags_tag_id_fkey
    FOREIGN KEY (account_id, tag_id) REFERENCES tags(account_id, id);
ALTER TABLE badge_assignments ADD CONSTRAINT badge_assignments_badge_id_fkey
    FOREIGN KEY (account_id, badge_id) REFERENCES badges(account_id, id);
ALTER TABLE kpi_favorites ADD CONSTRAINT kpi_favorites_group_id_fkey
    FOREIGN KEY (account_id, group_id) REFERENCES kpi_groups(account_id, id);
ALTER TABLE goal_subtrees ADD CONSTRAINT goal_subtrees_goal_id_fkey
    FOREIGN KEY (account_id, goal_id) REFERENCES goals(account_id, id) ON DELETE CASCADE;

-- +goose Down
ALTER TABLE tokens DROP CONSTRAINT tokens_user_id_fkey;
ALTER TABLE item_tags DROP CONSTRAINT item_tags_tag_id_fkey;
ALTER TABLE badge_assignments DROP CONSTRAINT badge_assignments_badge_id_fkey;
ALTER TABLE kpi_favorites DROP CONSTRAINT kpi_favorites_group_id_fkey;
ALTER TABLE goal_subtrees DROP CONSTRAINT goal_subtrees_goal_id_fkey;
ALTER TABLE users DROP CONSTRAINT users_pkey, ADD PRIMARY KEY (id);
CREATE INDEX users_account_id ON users(account_id, id);
ALTER TABLE tokens DROP CONSTRAINT tokens_pkey, ADD PRIMARY KEY (hash);
ALTER TABLE teams DROP CONSTRAINT teams_pkey, ADD PRIMARY KEY (id);
CREATE INDEX teams_account_id ON teams(account_id, id);
ALTER TABLE sessions DROP CONSTRAINT sessions_pkey, ADD PRIMARY KEY (id);
CREATE INDEX sessions_account_id ON sessions(account_id, id);
ALTER TABLE goals DROP CONSTRAINT goals_pkey, ADD PRIMARY KEY (id);
CREATE INDEX goals_account_id ON goals(account_id, id);
ALTER TABLE metrics DROP CONSTRAINT metrics_pkey, ADD PRIMARY KEY (id);
CREATE INDEX metrics_account_id ON metrics(account_id, id);
ALTER TABLE checkins DROP CONSTRAINT checkins_pkey, ADD PRIMARY KEY (id);
CREATE INDEX checkins_account_id ON checkins(account_id, id);
ALTER TABLE tasks DROP CONSTRAINT tasks_pkey, ADD PRIMARY KEY (id);
CREATE INDEX tasks_account_id ON tasks(account_id, id);
ALTER TABLE tags DROP CONSTRAINT tags_pkey, ADD PRIMARY KEY (id);
CREATE INDEX tags_account_id ON tags(account_id, id);
ALTER TABLE item_tags DROP CONSTRAINT item_tags_pkey, ADD PRIMARY KEY (tag_id, item_id);
ALTER TABLE roles DROP CONSTRAINT roles_pkey, ADD PRIMARY KEY (id);
CREATE INDEX roles_account_id ON roles(account_id, id);
ALTER TABLE role_mappings DROP CONSTRAINT role_mappings_pkey, ADD PRIMARY KEY (id);
CREATE INDEX role_mappings_account_id ON role_mappings(account_id, id);
ALTER TABLE permissions DROP CONSTRAINT permissions_pkey, ADD PRIMARY KEY (id);
CREATE INDEX permissions_account_id ON permissions(account_id, id);
ALTER TABLE dashboards DROP CONSTRAINT dashboards_pkey, ADD PRIMARY KEY (id);
CREATE INDEX dashboards_account_id ON dashboards(account_id, id);
ALTER TABLE dashboard_parameters DROP CONSTRAINT dashboard_parameters_pkey, ADD PRIMARY KEY (id);
CREATE INDEX dashboard_parameters_account_id ON dashboard_parameters(account_id, id);
ALTER TABLE badges DROP CONSTRAINT badges_pkey, ADD PRIMARY KEY (id);
CREATE INDEX badges_account_id ON badges(account_id, id);
ALTER TABLE badge_assignments DROP CONSTRAINT badge_assignments_pkey, ADD PRIMARY KEY (id);
CREATE INDEX badge_assignments_account_id ON badge_assignments(account_id, id);
ALTER TABLE kpi_groups DROP CONSTRAINT kpi_groups_pkey, ADD PRIMARY KEY (id);
CREATE INDEX kpi_groups_account_id ON kpi_groups(account_id, id);
ALTER TABLE kpi_favorites DROP CONSTRAINT kpi_favorites_pkey, ADD PRIMARY KEY (user_id, group_id);
ALTER TABLE kpis DROP CONSTRAINT kpis_pkey, ADD PRIMARY KEY (id);
CREATE INDEX kpis_account_id ON kpis(account_id, id);
ALTER TABLE lists DROP CONSTRAINT lists_pkey, ADD PRIMARY KEY (id);
CREATE INDEX lists_account_id ON lists(account_id, id);
ALTER TABLE announcements DROP CONSTRAINT announcements_pkey, ADD PRIMARY KEY (id);
CREATE INDEX announcements_account_id ON announcements(account_id, id);
ALTER TABLE goal_subtrees DROP CONSTRAINT goal_subtrees_pkey, ADD PRIMARY KEY (goal_id);
ALTER TABLE webhooks DROP CONSTRAINT webhooks_pkey, ADD PRIMARY KEY (id);
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_pkey, ADD PRIMARY KEY (id);
DROP INDEX tokens_hash;
DROP INDEX tokens_id;
CREATE UNIQUE INDEX tokens_id ON tokens(id);
DROP INDEX tokens_user;
CREATE INDEX tokens_user ON tokens(user_id);
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_webhook_id_position_key,
    ADD CONSTRAINT webhook_deliveries_webhook_id_position_key UNIQUE (webhook_id, position);
ALTER TABLE tokens ADD CONSTRAINT tokens_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id);
ALTER TABLE item_tags ADD CONSTRAINT item_tags_tag_id_fkey FOREIGN KEY (tag_id) REFERENCES tags(id);
ALTER TABLE badge_assignments ADD CONSTRAINT badge_assignments_badge_id_fkey FOREIGN KEY (badge_id) REFERENCES badges(id);
ALTER TABLE kpi_favorites ADD CONSTRAINT kpi_favorites_group_id_fkey FOREIGN KEY (group_id) REFERENCES kpi_groups(id);
ALTER TABLE goal_subtrees ADD CONSTRAINT goal_subtrees_goal_id_fkey FOREIGN KEY (goal_id) REFERENCES goals(id) ON DELETE CASCADE;
