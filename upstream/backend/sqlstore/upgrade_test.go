package sqlstore_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pressly/goose/v3"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore/sqlstoretest"
	"github.com/okrgate/okrgate/upstream/seed"
)

// Versions of the schema before account_id joined every key
// (migrations/sqlite/00011_account_keys.sql, migrations/postgres/00004).
const (
	sqliteBeforeAccountKeys   = 10
	postgresBeforeAccountKeys = 3
)

// TestUpgradeKeepsEveryRow: a database of the schema before the account
// keys, holding a seeded account's data, upgrades in place when a store
// opens it: every row of every table is the same afterwards, the keys
// carry account_id (PostgreSQL), every token has its row in token_accounts
// and the account's token still authenticates, and every goal's figures
// still equal a computation from scratch. The data is seeded through the store into a
// SQLite file and copied into a database migrated only to the old version.
func TestUpgradeKeepsEveryRow(t *testing.T) {
	ctx := context.Background()
	src := filepath.Join(t.TempDir(), "seeded.db")
	account, token := seedForUpgrade(t, src)

	dsn := sqlstoretest.DSN(t)
	driver, dir, version := "sqlite", "migrations/sqlite", int64(sqliteBeforeAccountKeys)
	if sqlstoretest.Postgres() {
		driver, dir, version = "pgx", "migrations/postgres", postgresBeforeAccountKeys
	}
	old, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	gd := goose.DialectSQLite3
	if sqlstoretest.Postgres() {
		gd = goose.DialectPostgres
	}
	p, err := goose.NewProvider(gd, old, os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(ctx, version); err != nil {
		t.Fatal(err)
	}
	if sqlstoretest.Postgres() {
		err = sqlstoretest.CopyToPostgres(ctx, src, dsn)
	} else {
		err = copySQLite(ctx, old, src)
	}
	if err != nil {
		t.Fatal(err)
	}
	before, cols := dumpRows(t, old, sqlstoretest.Postgres(), nil)
	if n := len(before["goals"]); n < 50 {
		t.Fatalf("%d goals copied: want the seeded ones", n)
	}
	for _, table := range []string{"users", "tokens", "teams", "metrics", "checkins", "tasks", "item_tags",
		"badge_assignments", "kpi_groups", "goal_subtrees", "events"} {
		if len(before[table]) == 0 {
			t.Errorf("no rows of %s copied: the upgrade of its keys goes untested", table)
		}
	}

	st, err := sqlstore.Open(ctx, dsn)
	if err != nil {
		t.Fatalf("upgrade: %v", err)
	}
	if c, err := st.Authenticate(ctx, token); err != nil || c.AccountID != account {
		t.Errorf("the account's token after the upgrade: %+v, %v", c, err)
	}
	st.Close()
	// The upgraded database is read through new connections: old's hold
	// statements prepared against the tables before the upgrade, which
	// PostgreSQL refuses to run once a table gained columns ("cached plan
	// must not change result type").
	upgraded, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer upgraded.Close()
	after, _ := dumpRows(t, upgraded, sqlstoretest.Postgres(), cols)
	checkRestricted(t, upgraded)
	var tokens, found int
	if err := upgraded.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM tokens),
		(SELECT count(*) FROM tokens t JOIN token_accounts k ON k.hash = t.hash AND k.account_id = t.account_id)`).Scan(&tokens, &found); err != nil {
		t.Fatal(err)
	}
	if tokens == 0 || found != tokens {
		t.Errorf("%d of %d tokens in token_accounts after the upgrade, want every one", found, tokens)
	}
	for table, rows := range before {
		if !slices.Equal(rows, after[table]) {
			t.Errorf("%s: %d rows before the upgrade, %d after, or they differ", table, len(rows), len(after[table]))
		}
	}
	if now, err := p.GetDBVersion(ctx); err != nil || now <= version {
		t.Errorf("schema version %d after the upgrade (%v), want > %d", now, err, version)
	}
	if sqlstoretest.Postgres() {
		var keys []string
		rows, err := upgraded.QueryContext(ctx, `SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
			JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = i.indkey[0]
			WHERE i.indisprimary AND c.relnamespace = current_schema()::regnamespace
				AND c.relname NOT IN ('accounts', 'token_accounts', 'goose_db_version') AND a.attname <> 'account_id'`)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var name string
			if err := rows.Scan(&name); err != nil {
				t.Fatal(err)
			}
			keys = append(keys, name)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if len(keys) > 0 {
			t.Errorf("primary keys not led by account_id after the upgrade: %v", keys)
		}
	}
	if err := sqlstoretest.CheckFigures(ctx, sqlstoretest.OpenRaw(t, dsn), account); err != nil {
		t.Errorf("figures after the upgrade: %v", err)
	}
}

// seedForUpgrade fills a new SQLite store at path with an account's data
// that reaches every table whose keys the upgrade changes, and returns the
// account and its admin's token.
func seedForUpgrade(t *testing.T, path string) (account, token string) {
	t.Helper()
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	b, err := st.Bootstrap(ctx, sqlstore.BootstrapInput{AccountName: "Upgrade", Email: "u@example.test"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := st.Authenticate(ctx, b.Token)
	if err != nil {
		t.Fatal(err)
	}
	ctx = upstream.NewContext(ctx, c)
	if _, err := seed.Demo(ctx, st); err != nil {
		t.Fatal(err)
	}
	if _, err := seed.Synthetic(ctx, st, seed.Options{Goals: 60, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	goals, err := st.ListGoals(ctx, upstream.ListQuery{Limit: 3})
	if err != nil || len(goals.Items) == 0 {
		t.Fatalf("goals: %v", err)
	}
	if _, _, err := st.AddGoalTag(ctx, goals.Items[0].ID, "upgrade"); err != nil {
		t.Fatal(err)
	}
	// Restricted goals and key results (upstream.GoalRestricted): private,
	// not inheriting, denying goals:read; their key column is backfilled.
	yes := true
	if _, err := st.UpdateGoal(ctx, goals.Items[0].ID, upstream.GoalPatch{Private: &yes}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.SetItemAccess(ctx, "goal", goals.Items[1].ID, upstream.Access{Inherits: false, Permissions: []upstream.PermissionEntry{}}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.SetItemAccess(ctx, "goal", goals.Items[2].ID, upstream.Access{Inherits: true,
		Permissions: []upstream.PermissionEntry{{PrincipalID: c.UserID, Deny: map[string]int{"goals:read": 1}, Grant: map[string]int{}}}}); err != nil {
		t.Fatal(err)
	}
	ms, err := st.ListMetrics(ctx, upstream.ListQuery{Limit: 1})
	if err != nil || len(ms.Items) == 0 {
		t.Fatalf("key results: %v", err)
	}
	if _, err := st.UpdateMetric(ctx, ms.Items[0].ID, upstream.MetricPatch{Private: &yes}); err != nil {
		t.Fatal(err)
	}
	badge, err := st.CreateBadge(ctx, upstream.BadgeInput{Name: "Upgrade"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.AssignBadge(ctx, upstream.AssignBadgeInput{BadgeID: badge.ID, AssigneeIDs: []string{c.UserID}}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateKPIGroup(ctx, upstream.KPIGroupInput{Name: "Upgrade"}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.IssueToken(ctx, "", upstream.TokenInput{Name: "second"}); err != nil {
		t.Fatal(err)
	}
	return c.AccountID, b.Token
}

// copySQLite copies every row of the store's tables in the SQLite file src
// into db, a SQLite database of the same tables.
func copySQLite(ctx context.Context, db *sql.DB, src string) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "ATTACH DATABASE ? AS src", src); err != nil {
		return err
	}
	tables, err := tableNames(ctx, conn, false)
	if err != nil {
		return err
	}
	for _, table := range tables {
		// The columns main has: later migrations add some.
		var cols []string
		rows, err := conn.QueryContext(ctx, "SELECT name FROM pragma_table_info(?) ORDER BY cid", table)
		if err != nil {
			return err
		}
		for rows.Next() {
			var c string
			if err := rows.Scan(&c); err != nil {
				rows.Close()
				return err
			}
			cols = append(cols, c)
		}
		rows.Close()
		list := strings.Join(cols, ", ")
		if _, err := conn.ExecContext(ctx, fmt.Sprintf("INSERT INTO main.%s (%s) SELECT %s FROM src.%s", table, list, list, table)); err != nil {
			return fmt.Errorf("copy %s: %w", table, err)
		}
	}
	_, err = conn.ExecContext(ctx, "DETACH DATABASE src")
	return err
}

// tableNames lists the store's tables (not the migration tool's).
func tableNames(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, postgres bool) ([]string, error) {
	stmt := "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'goose_%' ORDER BY name"
	if postgres {
		stmt = "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename NOT LIKE 'goose_%' ORDER BY 1"
	}
	rows, err := q.QueryContext(ctx, stmt)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		out = append(out, name)
	}
	return out, rows.Err()
}

// dumpRows returns every row of every table of db as text, sorted, and the
// columns of each table; with only, the columns it names alone (a column a
// later migration adds is not compared).
func dumpRows(t *testing.T, db *sql.DB, postgres bool, only map[string][]string) (map[string][]string, map[string][]string) {
	t.Helper()
	ctx := context.Background()
	out, columns := map[string][]string{}, map[string][]string{}
	tables, err := tableNames(ctx, db, postgres)
	if err != nil {
		t.Fatal(err)
	}
	for _, table := range tables {
		rows, err := db.QueryContext(ctx, "SELECT * FROM "+table)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		columns[table] = cols
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			for i, v := range vals {
				if only != nil && !slices.Contains(only[table], cols[i]) {
					continue
				}
				if bs, ok := v.([]byte); ok {
					v = string(bs)
				}
				fmt.Fprintf(&b, "%s=%v;", cols[i], v)
			}
			out[table] = append(out[table], b.String())
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
		slices.Sort(out[table])
	}
	return out, columns
}

// checkRestricted checks the backfill of the key column restricted
// (migrations/sqlite/00017_restricted.sql, postgres/00010): every goal's and
// key result's is what upstream.GoalRestricted and MetricRestricted say of
// its document, and some are restricted.
func checkRestricted(t *testing.T, db *sql.DB) {
	t.Helper()
	ctx := context.Background()
	restricted := 0
	for _, table := range []string{"goals", "metrics"} {
		rows, err := db.QueryContext(ctx, "SELECT id, restricted, CAST(doc AS TEXT) FROM "+table)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var id, doc string
			var got int
			if err := rows.Scan(&id, &got, &doc); err != nil {
				t.Fatal(err)
			}
			var want bool
			if table == "goals" {
				var g upstream.Goal
				if err := json.Unmarshal([]byte(doc), &g); err != nil {
					t.Fatal(err)
				}
				want = upstream.GoalRestricted(g)
			} else {
				var m upstream.Metric
				if err := json.Unmarshal([]byte(doc), &m); err != nil {
					t.Fatal(err)
				}
				want = upstream.MetricRestricted(m)
			}
			if (got != 0) != want {
				t.Errorf("%s %s: restricted %d after the upgrade, its document says %v", table, id, got, want)
			}
			restricted += got
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
	}
	if restricted < 3 {
		t.Errorf("%d restricted goals and key results after the upgrade: the backfill goes untested", restricted)
	}
}
