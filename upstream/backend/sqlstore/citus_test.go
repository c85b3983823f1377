package sqlstore_test

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore/sqlstoretest"
	"github.com/okrgate/okrgate/upstream/query"
	"github.com/okrgate/okrgate/upstream/seed"
)

// citusOnly skips t unless the tests run on a Citus coordinator.
func citusOnly(t *testing.T) {
	t.Helper()
	if !sqlstoretest.Citus() {
		t.Skip("Citus only: set OKRGATE_TEST_CITUS to a coordinator's URL")
	}
}

// TestCitusDistributesByAccount: on a Citus coordinator the store
// distributes accounts by id and every other table of the store by
// account_id, all co-located, but for token_accounts, shared by every
// account, a reference table; the migration tool's table stays on the
// coordinator; and ten accounts' rows spread over every worker.
func TestCitusDistributesByAccount(t *testing.T) {
	citusOnly(t)
	ctx := context.Background()
	dsn := sqlstoretest.DSN(t)
	st, err := sqlstore.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if ok, err := st.Citus(ctx); err != nil || !ok {
		t.Fatalf("Citus() = %v, %v on a coordinator", ok, err)
	}
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `SELECT c.relname, coalesce(p.partmethod::text, ''),
			coalesce(column_to_column_name(p.logicalrelid, p.partkey), ''), coalesce(p.colocationid, 0)
		FROM pg_class c LEFT JOIN pg_dist_partition p ON p.logicalrelid = c.oid
		WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r' ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	colocation := map[int]bool{}
	distributed := map[string]bool{}
	n, references := 0, 0
	for rows.Next() {
		var table, method, column string
		var group int
		if err := rows.Scan(&table, &method, &column, &group); err != nil {
			t.Fatal(err)
		}
		switch {
		case table == "goose_db_version":
			if method != "" {
				t.Errorf("goose_db_version is distributed (%q): it belongs to the coordinator", method)
			}
		case table == "token_accounts":
			if method != "n" {
				t.Errorf("token_accounts: partition method %q, want a reference table (n)", method)
			}
			references++
		case table == "accounts" && (method != "h" || column != "id"):
			t.Errorf("accounts: partition method %q column %q, want hash on id", method, column)
		case table != "accounts" && (method != "h" || column != "account_id"):
			t.Errorf("%s: partition method %q column %q, want hash on account_id", table, method, column)
		default:
			colocation[group] = true
			distributed[table] = true
			n++
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	// Every table of an account's data (avatars, identities, … as
	// sqlstoretest lists them) is among them.
	for table := range sqlstoretest.AccountTables {
		if !distributed[table] {
			t.Errorf("%s, a table of an account's data, is not distributed by account_id with accounts", table)
		}
	}
	if n < 20 || len(colocation) != 1 {
		t.Errorf("%d tables distributed in %d co-location groups, want every table in one", n, len(colocation))
	}
	if references != 1 {
		t.Errorf("%d reference tables, want token_accounts", references)
	}

	for i := range 10 {
		b, err := st.Bootstrap(ctx, sqlstore.BootstrapInput{AccountName: fmt.Sprintf("Spread %d", i), Email: fmt.Sprintf("a%d@spread.test", i)})
		if err != nil {
			t.Fatal(err)
		}
		c, err := st.Authenticate(ctx, b.Token)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := seed.Synthetic(upstream.NewContext(ctx, c), st, seed.Options{Goals: 3, Seed: uint64(i)}); err != nil {
			t.Fatal(err)
		}
	}
	var workers, all int
	if err := db.QueryRowContext(ctx, `SELECT count(DISTINCT (s.nodename, s.nodeport))
		FROM (SELECT DISTINCT get_shard_id_for_distribution_column('goals', account_id) AS shardid FROM goals) g
		JOIN pg_dist_shard_placement s USING (shardid)`).Scan(&workers); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM pg_dist_node WHERE noderole = 'primary' AND shouldhaveshards").Scan(&all); err != nil {
		t.Fatal(err)
	}
	if all < 2 || workers != all {
		t.Errorf("ten accounts' goals on %d of %d nodes with shards, want all (two or more)", workers, all)
	}
}

// TestCitusRouterPlans: on a Citus coordinator, every statement of a read
// of the goal tree level by level (the roots, their children, their key
// results and tasks, as GraphQL's edges load them), of authenticating a
// token (alone and in a batch, recording its use) and of a check-in runs
// on one shard: EXPLAIN of each shows one task, or no distributed table.
func TestCitusRouterPlans(t *testing.T) {
	citusOnly(t)
	ctx := context.Background()
	dsn := sqlstoretest.DSN(t)
	var rec recorder
	st, err := sqlstore.Open(ctx, dsn, sqlstore.WithStatementObserver(rec.observe))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var admin context.Context
	var account string
	var tokens []string
	for i := range 3 { // other accounts' rows in other shards
		b, err := st.Bootstrap(ctx, sqlstore.BootstrapInput{AccountName: fmt.Sprintf("Plan %d", i), Email: fmt.Sprintf("a%d@plan.test", i)})
		if err != nil {
			t.Fatal(err)
		}
		c, err := st.Authenticate(ctx, b.Token)
		if err != nil {
			t.Fatal(err)
		}
		admin = upstream.NewContext(ctx, c)
		account, tokens = c.AccountID, append(tokens, b.Token)
		if _, err := seed.Synthetic(admin, st, seed.Options{Goals: 12, Seed: uint64(i)}); err != nil {
			t.Fatal(err)
		}
	}
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()

	byID := []query.SortKey{{Field: "id"}}
	var roots, children []any
	for _, level := range []struct {
		name string
		run  func(ctx context.Context) error
	}{
		{"roots", func(ctx context.Context) error {
			p, err := st.ListGoals(ctx, upstream.ListQuery{Filter: query.In("parentId", ""), Sort: byID, Limit: upstream.MaxLimit})
			for _, g := range p.Items {
				roots = append(roots, g.ID)
			}
			return err
		}},
		{"children", func(ctx context.Context) error {
			p, err := st.ListGoals(ctx, upstream.ListQuery{Filter: query.In("parentId", roots...), Sort: byID, Limit: upstream.MaxLimit})
			for _, g := range p.Items {
				children = append(children, g.ID)
			}
			return err
		}},
		{"key results", func(ctx context.Context) error {
			_, err := st.ListMetrics(ctx, upstream.ListQuery{Filter: query.In("goalId", children...), Sort: byID, Limit: upstream.MaxLimit})
			return err
		}},
		{"tasks", func(ctx context.Context) error {
			_, err := st.ListTasks(ctx, upstream.ListQuery{Filter: query.In("parentId", children...), Sort: byID, Limit: upstream.MaxLimit})
			return err
		}},
		{"goal", func(ctx context.Context) error {
			_, err := st.GetGoal(ctx, children[0].(string))
			return err
		}},
		{"authentication", func(ctx context.Context) error {
			// Stale records of use, so that the write is seen too.
			if _, err := db.ExecContext(ctx, "UPDATE tokens SET last_used = '' WHERE account_id = $1", account); err != nil {
				return err
			}
			rec.reset()
			_, err := st.Authenticate(ctx, tokens[len(tokens)-1])
			return err
		}},
		{"authentication of a batch", func(ctx context.Context) error {
			if _, err := db.ExecContext(ctx, "UPDATE tokens SET last_used = '' WHERE account_id = $1", account); err != nil {
				return err
			}
			rec.reset()
			res, err := st.AuthenticateMany(ctx, tokens[len(tokens)-1:])
			if err == nil && res[0].Err != nil {
				err = res[0].Err
			}
			return err
		}},
		{"check-in", func(ctx context.Context) error {
			m, err := st.ListMetrics(ctx, upstream.ListQuery{Filter: query.In("goalId", children...), Limit: 1})
			if err != nil || len(m.Items) == 0 {
				return fmt.Errorf("a key result to check in: %v", err)
			}
			rec.reset()
			v := m.Items[0].Actual + 1
			_, err = st.CheckIn(ctx, m.Items[0].ID, upstream.CheckInInput{Actual: &v})
			return err
		}},
	} {
		rec.reset()
		if err := level.run(upstream.WithMemo(admin)); err != nil {
			t.Fatalf("%s: %v", level.name, err)
		}
		stmts := rec.take()
		if len(stmts) == 0 {
			t.Fatalf("%s: no statements observed", level.name)
		}
		for _, s := range stmts {
			plan, skip := explain(ctx, t, db, s)
			if skip {
				continue
			}
			if tasks := taskCounts.FindAllStringSubmatch(plan, -1); len(tasks) > 0 {
				for _, m := range tasks {
					if m[1] != "1" {
						t.Errorf("%s: %s shards for\n%s\nplan:\n%s", level.name, m[1], s.text, plan)
					}
				}
			} else if strings.Contains(plan, "Citus") {
				t.Errorf("%s: a distributed plan without a task count for\n%s\nplan:\n%s", level.name, s.text, plan)
			}
		}
	}
}

// taskCounts finds the number of shards each distributed step of a Citus
// plan runs on.
var taskCounts = regexp.MustCompile(`Task Count: (\d+)`)

// explain returns the plan of s, or skip for a statement that is not a
// query (transaction control, locks without a table).
func explain(ctx context.Context, t *testing.T, db *sql.DB, s observed) (plan string, skip bool) {
	t.Helper()
	verb := strings.ToUpper(strings.Fields(s.text)[0])
	if !slices.Contains([]string{"SELECT", "WITH", "INSERT", "UPDATE", "DELETE"}, verb) {
		return "", true
	}
	rows, err := db.QueryContext(ctx, "EXPLAIN "+s.text, s.args...)
	if err != nil {
		t.Fatalf("EXPLAIN %s: %v", s.text, err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		b.WriteString(line + "\n")
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return b.String(), false
}

// observed is a statement the store ran, with its arguments.
type observed struct {
	text string
	args []any
}

// recorder keeps the statements a store runs.
type recorder struct {
	mu    sync.Mutex
	stmts []observed
}

func (r *recorder) observe(stmt string, args []any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stmts = append(r.stmts, observed{stmt, slices.Clone(args)})
}

func (r *recorder) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stmts = nil
}

func (r *recorder) take() []observed {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.stmts
	r.stmts = nil
	return out
}
