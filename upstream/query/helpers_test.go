package query

import (
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"modernc.org/sqlite"
)

// TestMain registers the regexp SQL function that SQLite filters need, as a
// store does.
func TestMain(m *testing.M) {
	var re RegexpFunc
	sqlite.MustRegisterDeterministicScalarFunction("regexp", 2,
		func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) { return re.Call(args) })
	os.Exit(m.Run())
}

var (
	checkinsReg = NewRegistry("checkins",
		Field{Name: "id", Type: ID, Filterable: true, Sortable: true},
		Field{Name: "value", Type: Number, Filterable: true},
	)
	metricsReg = NewRegistry("metrics",
		Field{Name: "id", Type: ID, Filterable: true, Sortable: true},
		Field{Name: "accountId", Type: ID, Filterable: true},
		Field{Name: "name", Type: String, Filterable: true, Sortable: true},
		Field{Name: "target", Type: Number, Filterable: true},
		Field{Name: "checkins", Type: Object, Sub: checkinsReg},
		Field{Name: "goal", Type: Object}, // Sub wired by SetSub in init (cycle)
	)
	// testReg is a goal-like resource with a field of every type and every
	// storage.
	testReg = NewRegistry("goals",
		Field{Name: "id", Type: ID, Filterable: true, Sortable: true, Column: "id"},
		Field{Name: "accountId", Type: ID, Filterable: true, Sortable: true, Column: "account_id"},
		Field{Name: "parentId", Type: ID, Filterable: true, Sortable: true, Column: "parent_id"},
		Field{Name: "archived", Type: Bool, Filterable: true, Sortable: true, Column: "archived"},
		Field{Name: "sessionId", Type: ID, Filterable: true, Sortable: true},
		Field{Name: "name", Type: String, Filterable: true, Sortable: true},
		Field{Name: "description", Type: String},
		Field{Name: "attainment", Type: Number, Filterable: true, Sortable: true},
		Field{Name: "priority", Type: Integer, Filterable: true, Sortable: true},
		Field{Name: "isActive", Type: Bool, Filterable: true, Sortable: true},
		Field{Name: "createdAt", Type: DateTime, Filterable: true, Sortable: true},
		Field{Name: "dueDate", Type: Date, Filterable: true, Sortable: true},
		Field{Name: "ownerIds", Type: StringList, Filterable: true},
		Field{Name: "tags", Type: StringList, Filterable: true},
		Field{Name: "closedStatus.status", Type: String, Filterable: true, Sortable: true},
		Field{Name: "metrics", Type: Object, Sub: metricsReg},
	)
)

func init() { metricsReg.SetSub("goal", testReg) }

// Value pools shared by the document and the filter generators, so that
// random filters hit documents.
var (
	poolAccounts = []string{"a00000000000000000000001", "a00000000000000000000002", "a00000000000000000000003"}
	poolSessions = []string{"5e0000000000000000000001", "5e0000000000000000000002", "5e0000000000000000000003", "5e0000000000000000000004"}
	poolUsers    = []string{"0b0000000000000000000001", "0b0000000000000000000002", "0b0000000000000000000003", "0b0000000000000000000004", "0b0000000000000000000005", "0b0000000000000000000006"}
	poolNames    = []string{"Alpha", "alpha", "Beta", "beta release", "Gamma", "ünïcode", "", "Zeta", "a.b*c", "Ärger", "growth plan"}
	poolNumbers  = []float64{0, 0.5, 1, 1.25, -0.1, 3, 100, 2}
	poolTags     = []string{"growth", "Growth", "q1", "q2", "infra"}
	poolStatus   = []string{"active", "achieved", "abandoned"}
	poolDates    = []string{"2025-12-31", "2026-01-01", "2026-02-28", "2026-06-15", "2027-01-01"}
	poolTimes    []string
	poolRegexes  = []string{"^a", "a", "^$", "ph", `\.`, "^(Alpha|Beta)$", "e$", "^[a-z]+$", "ü", "^0b.*3$", "^gr", "ACT", "0{20}"}
)

func init() {
	base := time.Date(2025, 12, 31, 22, 0, 0, 0, time.UTC)
	for i := range 12 {
		t := base.Add(time.Duration(i*i) * 97 * time.Minute).Add(time.Duration(i*37) * time.Millisecond)
		poolTimes = append(poolTimes, t.Format(DateTimeLayout))
	}
}

func pick[T any](r *rand.Rand, s []T) T { return s[r.IntN(len(s))] }

// genDocs returns n deterministic documents with fields of every type,
// including missing keys, nulls and arrays.
func genDocs(r *rand.Rand, n int) []map[string]any {
	var ids []string
	for range n {
		ids = append(ids, fmt.Sprintf("%016x%08x", r.Uint64(), r.Uint32()))
	}
	// maybe sets key k: missing (10%), null (10%) or value().
	maybe := func(d map[string]any, k string, value func() any) {
		switch x := r.IntN(10); {
		case x == 0:
		case x == 1:
			d[k] = nil
		default:
			d[k] = value()
		}
	}
	strList := func(pool []string) func() any {
		return func() any {
			l := []any{}
			for range r.IntN(4) {
				l = append(l, pick(r, pool))
			}
			return l
		}
	}
	var docs []map[string]any
	for i := range n {
		d := map[string]any{"id": ids[i], "accountId": pick(r, poolAccounts)}
		switch r.IntN(3) { // column fields are always present
		case 0:
			d["parentId"] = ids[r.IntN(20)]
		case 1:
			d["parentId"] = ""
		default:
			d["parentId"] = nil
		}
		d["archived"] = pick(r, []any{true, false, nil})
		maybe(d, "sessionId", func() any { return pick(r, poolSessions) })
		maybe(d, "name", func() any { return pick(r, poolNames) })
		maybe(d, "description", func() any { return "desc " + pick(r, poolNames) })
		maybe(d, "attainment", func() any {
			if r.IntN(2) == 0 {
				return pick(r, poolNumbers)
			}
			return float64(r.IntN(2000)-500) / 1000
		})
		maybe(d, "priority", func() any { return float64(r.IntN(4)) })
		maybe(d, "isActive", func() any { return r.IntN(2) == 0 })
		maybe(d, "createdAt", func() any { return pick(r, poolTimes) })
		maybe(d, "dueDate", func() any { return pick(r, poolDates) })
		maybe(d, "ownerIds", strList(poolUsers))
		maybe(d, "tags", strList(poolTags))
		maybe(d, "closedStatus", func() any {
			switch r.IntN(4) {
			case 0:
				return map[string]any{}
			case 1:
				return map[string]any{"status": nil}
			}
			return map[string]any{"status": pick(r, poolStatus)}
		})
		maybe(d, "metrics", func() any {
			var ms []any
			for j := range r.IntN(3) {
				ms = append(ms, map[string]any{
					"id": fmt.Sprintf("%024x", i*10+j), "accountId": d["accountId"],
					"name": pick(r, poolNames), "target": pick(r, poolNumbers),
					"checkins": []any{map[string]any{"id": fmt.Sprintf("c%023x", i*10+j), "value": 1.0}},
				})
			}
			return ms
		})
		docs = append(docs, d)
	}
	return docs
}

// openDB creates a SQLite database file under t.TempDir() holding docs in
// items(id, account_id, parent_id, archived, doc).
func openDB(t testing.TB, docs []map[string]any) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "items.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec(`CREATE TABLE items(id TEXT PRIMARY KEY, account_id TEXT, parent_id TEXT, archived INTEGER, doc TEXT)`); err != nil {
		t.Fatal(err)
	}
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		data, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		var archived any
		if b, ok := d["archived"].(bool); ok {
			archived = int64(boolInt(b))
		}
		if _, err := tx.Exec(`INSERT INTO items VALUES (?, ?, ?, ?, ?)`, d["id"], d["accountId"], d["parentId"], archived, string(data)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return db
}

// queryIDs runs SELECT id FROM items WHERE where ORDER BY orderBy.
func queryIDs(t testing.TB, db *sql.DB, where, orderBy string, args []any) []string {
	t.Helper()
	q := "SELECT id FROM items WHERE " + where
	if orderBy != "" {
		q += " ORDER BY " + orderBy
	} else {
		q += " ORDER BY id"
	}
	rows, err := db.Query(q, args...)
	if err != nil {
		t.Fatalf("query %s %v: %v", q, args, err)
	}
	defer rows.Close()
	ids := []string{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return ids
}

// roundTrip re-decodes docs through encoding/json, as a store would read
// them, so that Match sees exactly what SQLite sees.
func roundTrip(t testing.TB, docs []map[string]any) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, d := range docs {
		data, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}
