package sqlstoretest

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// CopyToPostgres copies every row of the store's tables from the SQLite
// database at path into the PostgreSQL database pgURL, which a store has
// migrated and which holds no rows yet: for benchmarks that compare the
// two stores on the same data (seeding 10,000 objectives through the store
// takes far longer), or migrated to an older version (upgrade tests; the
// tables it does not have yet are left out). SQLite's 0/1 booleans become
// PostgreSQL's.
func CopyToPostgres(ctx context.Context, path, pgURL string) error {
	src, err := sql.Open("sqlite", path)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := pgx.Connect(ctx, pgURL)
	if err != nil {
		return err
	}
	defer dst.Close(ctx)
	tx, err := dst.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	for _, t := range copyOrder {
		var exists bool
		if err := tx.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", t).Scan(&exists); err != nil {
			return err
		}
		if !exists {
			continue // a table of a later schema version than pgURL's
		}
		if err := copyTable(ctx, src, tx, t); err != nil {
			return fmt.Errorf("copy %s: %w", t, err)
		}
	}
	return tx.Commit(ctx)
}

// copyOrder lists the store's tables, each after the tables it references.
var copyOrder = []string{"accounts", "users", "tokens", "token_accounts", "teams", "sessions", "goals", "metrics", "checkins", "tasks",
	"tags", "item_tags", "roles", "role_mappings", "permissions", "dashboards", "dashboard_parameters", "badges",
	"badge_assignments", "kpi_groups", "kpi_favorites", "kpis", "lists", "announcements", "idempotency_keys", "goal_subtrees", "events", "webhooks", "webhook_deliveries", "identities", "avatars"}

// copyTable copies the rows of table from src into tx's database: the
// columns the destination has (one migrated to an older version lacks the
// columns later migrations add).
func copyTable(ctx context.Context, src *sql.DB, tx pgx.Tx, table string) error {
	var have []string
	cr, err := tx.Query(ctx, "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position", table)
	if err != nil {
		return err
	}
	for cr.Next() {
		var c string
		if err := cr.Scan(&c); err != nil {
			cr.Close()
			return err
		}
		have = append(have, c)
	}
	cr.Close()
	if err := cr.Err(); err != nil {
		return err
	}
	rows, err := src.QueryContext(ctx, "SELECT "+strings.Join(have, ", ")+" FROM "+table)
	if err != nil {
		return err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	var all [][]any
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		for i, c := range cols {
			if c == "is_report" {
				vals[i] = vals[i] != nil && vals[i] != int64(0)
			}
			if b, ok := vals[i].([]byte); ok {
				vals[i] = string(b)
			}
		}
		all = append(all, vals)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(all) == 0 {
		return nil
	}
	quoted := make([]string, len(cols))
	for i, c := range cols {
		quoted[i] = strings.ToLower(c)
	}
	_, err = tx.CopyFrom(ctx, pgx.Identifier{table}, quoted, pgx.CopyFromRows(all))
	return err
}
