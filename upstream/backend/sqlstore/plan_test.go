package sqlstore

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/okrgate/okrgate/upstream/backend/sqlstore/internal/testdb"
)

// TestDefaultPagesNeedNoSort: a page in the default order (the id
// tie-breaker) of any listed table walks the (account_id, id) index and
// stops after the page; it never reads all of an account's documents into a
// temporary sort (EXPLAIN QUERY PLAN on a real SQLite file).
func TestDefaultPagesNeedNoSort(t *testing.T) {
	if testdb.Postgres() {
		t.Skip("SQLite's query plans")
	}
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "plan.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	pages := map[string]string{
		"goals":                goals.pageSQL(sqliteDialect{}, "goals", "doc", "1", nil),
		"metrics":              metrics.pageSQL(sqliteDialect{}, "metrics", "doc", "1", nil),
		"checkins":             checkins.pageSQL(sqliteDialect{}, "checkins", "doc", "1", nil),
		"tasks":                tasks.pageSQL(sqliteDialect{}, "tasks", "doc", "1", nil),
		"sessions":             sessions.pageSQL(sqliteDialect{}, "sessions", "doc", "1", nil),
		"users":                users.pageSQL(sqliteDialect{}, "users", "doc", "1", nil),
		"teams":                teams.pageSQL(sqliteDialect{}, "teams", "doc", "1", nil),
		"dashboards":           dashboards.pageSQL(sqliteDialect{}, "dashboards", "doc", "1", nil),
		"dashboard_parameters": dashboardParams.pageSQL(sqliteDialect{}, "dashboard_parameters", "doc", "1", nil),
		"badges":               badges.pageSQL(sqliteDialect{}, "badges", "doc", "1", nil),
		"badge_assignments":    badgeAssignments.pageSQL(sqliteDialect{}, "badge_assignments", "doc", "1", nil),
		"kpi_groups":           kpiGroups.pageSQL(sqliteDialect{}, "kpi_groups", "doc", "1", nil),
		"kpis":                 kpis.pageSQL(sqliteDialect{}, "kpis", "doc", "1", nil),
	}
	for name, stmt := range pages {
		p := strings.Join(queryPlan(t, s, stmt, "acct", 100, 0), "; ")
		if strings.Contains(p, "TEMP B-TREE") || !strings.Contains(p, name+"_account_id") {
			t.Errorf("%s: plan %q; want a walk of %s_account_id without a temporary sort", name, p, name)
		}
	}
}

// TestPagesByIDsSortOnlyIDs: a filtered page of an edge's level ($in on a
// key, more matches than a page) sorts the matching ids in the key's
// covering index, then reads only the page's documents by primary key
// (EXPLAIN QUERY PLAN on a real SQLite file).
func TestPagesByIDsSortOnlyIDs(t *testing.T) {
	if testdb.Postgres() {
		t.Skip("SQLite's query plans")
	}
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "plan.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, c := range []struct{ table, stmt, index string }{
		{"metrics", metrics.pageByIDsSQL(sqliteDialect{}, "metrics", "doc", "goal_id IN (?, ?)", nil), "metrics_account_goal_id"},
		{"checkins", checkins.pageByIDsSQL(sqliteDialect{}, "checkins", "doc", "metric_id IN (?, ?)", nil), "checkins_account_metric_id"},
		{"tasks", tasks.pageByIDsSQL(sqliteDialect{}, "tasks", "doc", "parent_id IN (?, ?)", nil), "tasks_account_parent_id"},
		{"goals", goals.pageByIDsSQL(sqliteDialect{}, "goals", "doc", "parent_id IN (?, ?)", nil), "goals_account_parent_id"},
	} {
		p := strings.Join(queryPlan(t, s, c.stmt, "acct", "a", "b", 1000, 1000, "acct"), "; ")
		// The documents by id: through the primary key, or through the
		// (account_id, id) index the read's account condition matches.
		byID := strings.Contains(p, "SEARCH "+c.table+" USING INDEX sqlite_autoindex_"+c.table+"_1 (id=?)") ||
			strings.Contains(p, "SEARCH "+c.table+" USING INDEX "+c.table+"_account_id (account_id=? AND id=?)")
		if !strings.Contains(p, "USING COVERING INDEX "+c.index) || !byID || strings.Contains(p, "SCAN "+c.table) {
			t.Errorf("%s: plan %q; want the ids from the covering index %s, then the documents by id", c.table, p, c.index)
		}
	}
}

// queryPlan returns the lines of SQLite's EXPLAIN QUERY PLAN for stmt.
func queryPlan(t *testing.T, s *Store, stmt string, args ...any) []string {
	t.Helper()
	rows, err := s.r.QueryContext(context.Background(), "EXPLAIN QUERY PLAN "+stmt, args...)
	if err != nil {
		t.Fatalf("explain %.200s: %v", stmt, err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return plan
}
