-- +goose Up
-- A keyed lookup ("goal_id IN (…) ORDER BY id", as the GraphQL edges and a
-- goal's key results ask) reads its key's index entries in id order: each
-- key index ends with id. The (account_id, key) indexes they replace are
-- prefixes of the new ones. Planner statistics (Store.plannerStats, at
-- open) make SQLite prefer these to a walk of the whole account through
-- (account_id, id), which 00004 added for default pages.
CREATE INDEX goals_account_parent_id ON goals(account_id, parent_id, id);
CREATE INDEX goals_account_session_id ON goals(account_id, session_id, id);
CREATE INDEX goals_account_owner_id ON goals(account_id, owner_id, id);
DROP INDEX goals_account_parent;
DROP INDEX goals_account_session;
DROP INDEX goals_account_owner;
CREATE INDEX metrics_account_goal_id ON metrics(account_id, goal_id, id);
CREATE INDEX metrics_account_session_id ON metrics(account_id, session_id, id);
CREATE INDEX metrics_account_owner_id ON metrics(account_id, owner_id, id);
DROP INDEX metrics_account_goal;
DROP INDEX metrics_account_session;
DROP INDEX metrics_account_owner;
CREATE INDEX checkins_account_metric_id ON checkins(account_id, metric_id, id);
CREATE INDEX checkins_account_goal_id ON checkins(account_id, goal_id, id);
DROP INDEX checkins_account_metric;
DROP INDEX checkins_account_goal;
CREATE INDEX tasks_account_parent_id ON tasks(account_id, parent_id, id);
CREATE INDEX tasks_account_session_id ON tasks(account_id, session_id, id);
CREATE INDEX tasks_account_owner_id ON tasks(account_id, owner_id, id);
DROP INDEX tasks_account_parent;
DROP INDEX tasks_account_session;
DROP INDEX tasks_account_owner;
CREATE INDEX sessions_account_parent_id ON sessions(account_id, parent_id, id);
DROP INDEX sessions_account_parent;
CREATE INDEX teams_account_parent_id ON teams(account_id, parent_id, id);
DROP INDEX teams_account_parent;
CREATE INDEX badge_assignments_account_badge_id ON badge_assignments(account_id, badge_id, id);
DROP INDEX badge_assignments_account_badge;

-- +goose Down
CREATE INDEX goals_account_parent ON goals(account_id, parent_id);
CREATE INDEX goals_account_session ON goals(account_id, session_id);
CREATE INDEX goals_account_owner ON goals(account_id, owner_id);
DROP INDEX goals_account_parent_id;
DROP INDEX goals_account_session_id;
DROP INDEX goals_account_owner_id;
CREATE INDEX metrics_account_goal ON metrics(account_id, goal_id);
CREATE INDEX metrics_account_session ON metrics(account_id, session_id);
CREATE INDEX metrics_account_owner ON metrics(account_id, owner_id);
DROP INDEX metrics_account_goal_id;
DROP INDEX metrics_account_session_id;
DROP INDEX metrics_account_owner_id;
CREATE INDEX checkins_account_metric ON checkins(account_id, metric_id);
CREATE INDEX checkins_account_goal ON checkins(account_id, goal_id);
DROP INDEX checkins_account_metric_id;
DROP INDEX checkins_account_goal_id;
CREATE INDEX tasks_account_parent ON tasks(account_id, parent_id);
CREATE INDEX tasks_account_session ON tasks(account_id, session_id);
CREATE INDEX tasks_account_owner ON tasks(account_id, owner_id);
DROP INDEX tasks_account_parent_id;
DROP INDEX tasks_account_session_id;
DROP INDEX tasks_account_owner_id;
CREATE INDEX sessions_account_parent ON sessions(account_id, parent_id);
DROP INDEX sessions_account_parent_id;
CREATE INDEX teams_account_parent ON teams(account_id, parent_id);
DROP INDEX teams_account_parent_id;
CREATE INDEX badge_assignments_account_badge ON badge_assignments(account_id, badge_id);
DROP INDEX badge_assignments_account_badge_id;
