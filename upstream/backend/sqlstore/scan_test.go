package sqlstore

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/okrgate/okrgate/upstream"
)

// TestScanDocsEveryWay: scanDocsN decodes the same items whether the rows
// are narrowed documents (read into one buffer, then decoded), whole
// documents (decoded into chunks) or narrowed ones followed by larger ones
// (switching from the buffer to chunks part way), with and without an
// estimate, from a real SQLite file; picking members decodes those
// members alone, each way.
func TestScanDocsEveryWay(t *testing.T) {
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "scan.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("CREATE TABLE docs (set_name TEXT, n INTEGER, doc TEXT)"); err != nil {
		t.Fatal(err)
	}
	narrow := func(i int) string { return fmt.Sprintf(`{"id":"m%d","goalId":"g%d","name":"n\"%d"}`, i, i/3, i) }
	whole := func(i int) string {
		return fmt.Sprintf(`{"id":"m%d","goalId":"g%d","name":"%s","description":"%s","ownerIds":["u1","u%d"],"attainment":0.%d}`,
			i, i/3, strings.Repeat("x", 300), strings.Repeat("é", 200), i, i%10)
	}
	sets := map[string]func(i int) string{
		"narrow": narrow,
		"whole":  whole,
		"narrow, then whole": func(i int) string {
			if i < 100 {
				return narrow(i)
			}
			return whole(i)
		},
	}
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for name, doc := range sets {
		for i := range 1000 {
			if _, err := tx.Exec("INSERT INTO docs VALUES (?, ?, ?)", name, i, doc(i)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	for name, doc := range sets {
		want := make([]upstream.Metric, 1000)
		for i := range want {
			if err := json.Unmarshal([]byte(doc(i)), &want[i]); err != nil {
				t.Fatal(err)
			}
		}
		for _, n := range []int{0, 10, 1000} {
			rows, err := db.Query("SELECT doc FROM docs WHERE set_name = ? ORDER BY n", name)
			if err != nil {
				t.Fatal(err)
			}
			got, err := scanDocsN[upstream.Metric](rows, n, rowDoc{})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s, estimate %d: %d items decoded, not the documents' (first: %+v)", name, n, len(got), got[0])
			}
			// Picking two members decodes those alone.
			rows, err = db.Query("SELECT doc FROM docs WHERE set_name = ? ORDER BY n", name)
			if err != nil {
				t.Fatal(err)
			}
			got, err = scanDocsN[upstream.Metric](rows, n, rowDoc{pick: []string{"goalId", "id"}})
			if err != nil {
				t.Fatal(err)
			}
			for i := range want {
				if w := (upstream.Metric{ID: want[i].ID, GoalID: want[i].GoalID}); !reflect.DeepEqual(got[i], w) {
					t.Fatalf("%s, estimate %d, picking id and goalId: item %d is %+v, want %+v", name, n, i, got[i], w)
				}
			}
		}
	}
	rows, err := db.Query("SELECT doc FROM docs WHERE set_name = 'none'")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := scanDocsN[upstream.Metric](rows, 0, rowDoc{}); err != nil || got == nil || len(got) != 0 {
		t.Errorf("no rows: %v, %v; want an empty slice", got, err)
	}
}

// TestRowBufferKeepsRows: rows added to a rowBuffer come back whole and in
// order, across blocks and with rows larger than a block.
func TestRowBufferKeepsRows(t *testing.T) {
	var b rowBuffer
	var want []string
	for i := range 3000 {
		row := strings.Repeat(string(rune('a'+i%26)), 1+i%97)
		if i%1000 == 999 {
			row = strings.Repeat("x", maxRowBlock+i) // a row of its own block
		}
		want = append(want, row)
		b.add([]byte(row))
	}
	if len(b.blocks) < 3 {
		t.Fatalf("%d blocks; the rows should fill several", len(b.blocks))
	}
	size := 0
	for _, r := range want {
		size += len(r)
	}
	if b.size != size {
		t.Errorf("size %d, want %d", b.size, size)
	}
	blocks := b.blocks
	var got []string
	if err := b.drain(func(i int, row []byte) error {
		if i != len(got) {
			t.Fatalf("row %d given as %d", len(got), i)
		}
		got = append(got, string(row))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%d rows back, not the %d added", len(got), len(want))
	}
	// drain let go of every block but the last as it went, and of the
	// buffer's own references at the end.
	for k, blk := range blocks[:len(blocks)-1] {
		if blk != nil {
			t.Errorf("block %d of %d still held after draining", k, len(blocks))
		}
	}
	if b.blocks != nil || b.ends != nil || b.size != 0 {
		t.Errorf("buffer not empty after draining: %d blocks, %d rows, %d bytes", len(b.blocks), len(b.ends), b.size)
	}
}

// TestAppendMembers: a row's columns make the object of its members, text
// columns quoted (quotes, backslashes and control characters escaped),
// JSON values as they are, NULL and empty columns left out.
func TestAppendMembers(t *testing.T) {
	members := []member{{key: "id", text: true}, {key: "name"}, {key: "gone", text: true}, {key: "none"}, {key: "tags"}}
	text := "a\"b\\c\x01\n\té€"
	cols := []any{&sql.RawBytes{}, &sql.RawBytes{}, &sql.RawBytes{}, new(sql.RawBytes), &sql.RawBytes{}}
	*cols[0].(*sql.RawBytes) = sql.RawBytes(text)
	*cols[1].(*sql.RawBytes) = sql.RawBytes(`"N"`)
	*cols[4].(*sql.RawBytes) = sql.RawBytes(`["x", {"y": null}]`)
	got := appendMembers([]byte("old"), members, cols)
	if !strings.HasPrefix(string(got), "old{") {
		t.Fatalf("appendMembers = %s: not appended", got)
	}
	var m map[string]any
	if err := json.Unmarshal(got[3:], &m); err != nil {
		t.Fatalf("appendMembers = %s: %v", got, err)
	}
	want := map[string]any{"id": text, "name": "N", "tags": []any{"x", map[string]any{"y": nil}}}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("appendMembers = %s, decoded %v; want %v", got, m, want)
	}
}

// TestColumnOfKey: a document key maps to the key column that holds it.
func TestColumnOfKey(t *testing.T) {
	for k, want := range map[string]string{"id": "id", "accountId": "account_id", "goalId": "goal_id", "sessionId": "session_id",
		"ownerId": "owner_id", "ownerIds": "", "name": "", "goal_id": ""} {
		if got := metrics.column(k); got != want {
			t.Errorf("metrics.column(%q) = %q, want %q", k, got, want)
		}
	}
	if got := checkins.column("metricId"); got != "metric_id" {
		t.Errorf("checkins.column(metricId) = %q", got)
	}
}
