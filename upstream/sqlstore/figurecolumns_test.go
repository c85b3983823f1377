package sqlstore_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/accountfile"
	"github.com/okrgate/okrgate/upstream/sqlstore"
	"github.com/okrgate/okrgate/upstream/sqlstore/sqlstoretest"
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
	lines := strings.SplitAfter(strings.TrimSuffix(string(file), "\n"), "\n")
	var h accountfile.Header
	if err := json.Unmarshal([]byte(lines[0]), &h); err != nil {
		t.Fatal(err)
	}
	dropped := map[string][]int{} // table → indexes of the figure columns, descending
	for _, table := range []string{"goals", "metrics"} {
		cols := h.Tables[table]
		for i := len(cols) - 1; i >= 0; i-- {
			if cols[i] == "attainment_type" || strings.HasPrefix(cols[i], "figure_") {
				dropped[table] = append(dropped[table], i)
				cols = slices.Delete(cols, i, i+1)
			}
		}
		h.Tables[table] = cols
	}
	if len(dropped["goals"]) != 11 || len(dropped["metrics"]) != 1 {
		t.Fatalf("figure columns in the file: %v, want 11 of goals and 1 of key results", dropped)
	}
	head, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	out := []string{string(head) + "\n"}
	for _, l := range lines[1:] {
		var row struct {
			T string            `json:"t"`
			R []json.RawMessage `json:"r"`
		}
		if json.Unmarshal([]byte(l), &row) != nil || row.T == "" || dropped[row.T] == nil {
			out = append(out, l) // the trailer, and the other tables' rows
			continue
		}
		for _, i := range dropped[row.T] {
			row.R = slices.Delete(row.R, i, i+1)
		}
		b, err := json.Marshal(row)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b)+"\n")
	}

	dsn := sqlstoretest.DSN(t)
	dst, err := sqlstore.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	rep, err := importInto(dst, []byte(strings.Join(out, "")), sqlstore.ImportOptions{})
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
