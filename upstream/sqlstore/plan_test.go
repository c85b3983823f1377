package sqlstore

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/okrgate/okrgate/upstream/sqlstore/internal/testdb"
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
		"goals":                goals.pageSQL(sqliteDialect{}, "goals", "1", nil),
		"metrics":              metrics.pageSQL(sqliteDialect{}, "metrics", "1", nil),
		"checkins":             checkins.pageSQL(sqliteDialect{}, "checkins", "1", nil),
		"tasks":                tasks.pageSQL(sqliteDialect{}, "tasks", "1", nil),
		"sessions":             sessions.pageSQL(sqliteDialect{}, "sessions", "1", nil),
		"users":                users.pageSQL(sqliteDialect{}, "users", "1", nil),
		"teams":                teams.pageSQL(sqliteDialect{}, "teams", "1", nil),
		"dashboards":           dashboards.pageSQL(sqliteDialect{}, "dashboards", "1", nil),
		"dashboard_parameters": dashboardParams.pageSQL(sqliteDialect{}, "dashboard_parameters", "1", nil),
		"badges":               badges.pageSQL(sqliteDialect{}, "badges", "1", nil),
		"badge_assignments":    badgeAssignments.pageSQL(sqliteDialect{}, "badge_assignments", "1", nil),
		"kpi_groups":           kpiGroups.pageSQL(sqliteDialect{}, "kpi_groups", "1", nil),
		"kpis":                 kpis.pageSQL(sqliteDialect{}, "kpis", "1", nil),
	}
	for name, stmt := range pages {
		rows, err := s.r.QueryContext(ctx, "EXPLAIN QUERY PLAN "+stmt, "acct", 100, 0)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		rows.Close()
		p := strings.Join(plan, "; ")
		if strings.Contains(p, "TEMP B-TREE") || !strings.Contains(p, name+"_account_id") {
			t.Errorf("%s: plan %q; want a walk of %s_account_id without a temporary sort", name, p, name)
		}
	}
}
