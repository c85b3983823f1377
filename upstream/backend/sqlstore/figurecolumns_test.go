package sqlstore_test

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore/sqlstoretest"
)

// TestImportWithoutFigureColumns imports an account file written before
// the figure columns (goals' attainment_type and figure_*, key results'
// figure_attainment: the file's header and rows without them) and checks
// that the import takes them from the documents: it succeeds, every
// column equals its document and every figure a computation from scratch,
// and a check-in afterwards keeps them so.
func TestImportWithoutFigureColumns(t *testing.T) {
	ctx := context.Background()
	src, b := movedAccount(t)
	file := exportOf(t, src, b.AccountID, sqlstore.ExportOptions{Tokens: true})
	old, dropped := withoutColumns(t, file, func(table, col string) bool {
		return (table == "goals" || table == "metrics") && (col == "attainment_type" || strings.HasPrefix(col, "figure_"))
	})
	if len(dropped["goals"]) != 11 || len(dropped["metrics"]) != 1 {
		t.Fatalf("figure columns in the file: %v, want 11 of goals and 1 of key results", dropped)
	}

	dsn := sqlstoretest.DSN(t)
	dst, err := sqlstore.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	rep, err := importInto(dst, old, sqlstore.ImportOptions{})
	if err != nil {
		t.Fatalf("import of a file without the figure columns: %v", err)
	}
	if rep.Recomputed < 120 {
		t.Fatalf("report %+v: want ≥120 objectives recomputed", rep)
	}
	raw := sqlstoretest.OpenRaw(t, dsn)
	if err := sqlstoretest.CheckFigures(ctx, raw, b.AccountID); err != nil {
		t.Fatalf("after the import: %v", err)
	}
	c, err := dst.Authenticate(ctx, b.Token)
	if err != nil {
		t.Fatal(err)
	}
	actx := upstream.NewContext(ctx, c)
	rows, err := raw.QueryContext(ctx, raw.Q(`SELECT m.id FROM metrics m JOIN goals g ON g.id = m.goal_id AND g.account_id = m.account_id
		WHERE m.account_id = ? AND g.parent_id <> '' ORDER BY m.id LIMIT 20`), b.AccountID)
	if err != nil {
		t.Fatal(err)
	}
	krs, err := scanIDs(rows)
	if err != nil {
		t.Fatal(err)
	}
	kr := ""
	for _, id := range krs { // the first whose session takes check-ins
		actual := 42.0
		if _, err := dst.CheckIn(actx, id, upstream.CheckInInput{Actual: &actual}); err == nil {
			kr = id
			break
		}
	}
	if kr == "" {
		t.Fatalf("no check-in on any of %d key results of goals with a parent", len(krs))
	}
	if err := sqlstoretest.CheckFigures(ctx, raw, b.AccountID); err != nil {
		t.Fatalf("after a check-in on %s: %v", kr, err)
	}
}

// scanIDs reads the one text column of rows and closes them.
func scanIDs(rows *sql.Rows) ([]string, error) {
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}
