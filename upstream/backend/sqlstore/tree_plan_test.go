package sqlstore

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/okrgate/okrgate/upstream/backend/sqlstore/internal/testdb"
)

// TestWritePathPlans: the queries that recompute a path look goals, key
// results and tasks up by their indexes; none walks a whole account
// (EXPLAIN QUERY PLAN on a real SQLite file).
func TestWritePathPlans(t *testing.T) {
	if testdb.Postgres() {
		t.Skip("SQLite's query plans")
	}
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "plan.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, c := range []struct {
		name, stmt string
		args       []any
		want       []string
	}{
		{"path facts", pathFactsSQL, []any{"a", `["g"]`, "a", "a", "a", "a"},
			[]string{"goals_account_id", "sqlite_autoindex_goal_subtrees_1", "goals_account_parent", "metrics_account_goal"}},
		{"attainments", attainmentsSQL, []any{"a", `["g"]`}, []string{"metrics_account_goal"}},
		{"task counts", taskCountsSQL, []any{"a", `["g"]`}, []string{"tasks_account_parent"}},
	} {
		p := strings.Join(queryPlan(t, s, c.stmt, c.args...), "; ")
		for _, w := range c.want {
			if !strings.Contains(p, w) {
				t.Errorf("%s: plan %q does not use %s", c.name, p, w)
			}
		}
		if strings.Contains(p, "(account_id=?)") || strings.Contains(p, "SCAN g ") || strings.Contains(p, "SCAN goals") {
			t.Errorf("%s: plan %q walks an account", c.name, p)
		}
	}
}
