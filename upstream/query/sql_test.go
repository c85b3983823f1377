package query

import (
	"fmt"
	"strings"
	"testing"
)

func TestSQLSQLite(t *testing.T) {
	tests := []struct {
		src, sql, args string
	}{
		{`{}`, `1=1`, `[]`},
		{`{name:"a"}`, `(json_extract(d, '$.name') = ?)`, `[a]`},
		{`{name:null}`, `(json_extract(d, '$.name') IS NULL)`, `[]`},
		{`{name:{$ne:"a"}}`, `NOT COALESCE((json_extract(d, '$.name') = ?), FALSE)`, `[a]`},
		{`{name:{$ne:null}}`, `NOT COALESCE((json_extract(d, '$.name') IS NULL), FALSE)`, `[]`},
		{`{attainment:{$gt:1,$lte:2}}`, `((json_extract(d, '$.attainment') > ?) AND (json_extract(d, '$.attainment') <= ?))`, `[1 2]`},
		{`{name:{$in:["a",null]}}`, `((json_extract(d, '$.name') IS NULL) OR (json_extract(d, '$.name') IN (?)))`, `[a]`},
		{`{name:{$nin:["a","b"]}}`, `NOT COALESCE((json_extract(d, '$.name') IN (?, ?)), FALSE)`, `[a b]`},
		{`{name:{$regex:"^a",$options:"i"}}`, `(regexp(?, json_extract(d, '$.name')))`, `[(?i)^a]`},
		{`{name:{$exists:true}}`, `(json_type(d, '$.name') IS NOT NULL)`, `[]`},
		{`{name:{$exists:false}}`, `(json_type(d, '$.name') IS NULL)`, `[]`},
		{`{isActive:false}`, `(json_extract(d, '$.isActive') = ?)`, `[0]`},
		{`{archived:true}`, `(archived = ?)`, `[1]`},
		{`{parentId:{$exists:true}}`, `(parent_id IS NOT NULL)`, `[]`},
		{`{_id:"0123456789ABCDEF01234567"}`, `(id = ?)`, `[0123456789abcdef01234567]`},
		{`{"closedStatus.status":"active"}`, `(json_extract(d, '$.closedStatus.status') = ?)`, `[active]`},
		{`{ownerIds:"0b0000000000000000000001"}`, `EXISTS (SELECT 1 FROM json_each(d, '$.ownerIds') WHERE (value = ?))`, `[0b0000000000000000000001]`},
		{`{ownerIds:{$nin:["0b0000000000000000000001"]}}`, `NOT COALESCE(EXISTS (SELECT 1 FROM json_each(d, '$.ownerIds') WHERE (value IN (?))), FALSE)`, `[0b0000000000000000000001]`},
		{`{ownerIds:null}`, `(json_extract(d, '$.ownerIds') IS NULL)`, `[]`},
		{`{tags:{$regex:"x"}}`, `EXISTS (SELECT 1 FROM json_each(d, '$.tags') WHERE (regexp(?, value)))`, `[x]`},
		{`{name:{$not:{$gt:"a"}}}`, `NOT COALESCE((json_extract(d, '$.name') > ?), FALSE)`, `[a]`},
		{`{$or:[{name:"a"},{priority:1}]}`, `((json_extract(d, '$.name') = ?) OR (json_extract(d, '$.priority') = ?))`, `[a 1]`},
		{`{$nor:[{name:"a"},{priority:1}]}`, `NOT COALESCE(((json_extract(d, '$.name') = ?) OR (json_extract(d, '$.priority') = ?)), FALSE)`, `[a 1]`},
		{`{name:"x'); DROP TABLE items; --"}`, `(json_extract(d, '$.name') = ?)`, `[x'); DROP TABLE items; --]`},
	}
	for _, tt := range tests {
		e, err := ParseFilter(testReg, tt.src)
		if err != nil {
			t.Fatalf("ParseFilter(%s): %v", tt.src, err)
		}
		sql, args := e.SQL(SQLite, testReg, "d", 7) // argStart is ignored by SQLite
		if sql != tt.sql {
			t.Errorf("%s:\n got SQL %s\nwant SQL %s", tt.src, sql, tt.sql)
		}
		if got := fmt.Sprint(append([]any{}, args...)); got != tt.args {
			t.Errorf("%s: args %s, want %s", tt.src, got, tt.args)
		}
	}
}

// TestSQLPostgres checks the Postgres SQL at the string level. Executing it
// against a real PostgreSQL belongs to the sqlstore Postgres tests, which
// have a driver.
func TestSQLPostgres(t *testing.T) {
	tests := []struct {
		src, sql, args string
	}{
		{`{}`, `1=1`, `[]`},
		{`{name:"a"}`, `((g.doc #>> '{name}') = $3)`, `[a]`},
		{`{name:{$gt:"a"}}`, `((g.doc #>> '{name}') COLLATE "C" > $3)`, `[a]`},
		{`{name:null}`, `((g.doc #>> '{name}') IS NULL)`, `[]`},
		{`{name:{$ne:"a"}}`, `NOT COALESCE(((g.doc #>> '{name}') = $3), FALSE)`, `[a]`},
		{`{attainment:{$gte:0.5}}`, `(((g.doc #>> '{attainment}')::double precision) >= $3)`, `[0.5]`},
		{`{priority:{$in:[1,2]}}`, `(((g.doc #>> '{priority}')::double precision) IN ($3, $4))`, `[1 2]`},
		{`{isActive:true}`, `(((g.doc #>> '{isActive}')::boolean) = $3)`, `[true]`},
		{`{archived:false}`, `(archived = $3)`, `[false]`},
		{`{accountId:{$lt:"a00000000000000000000002"}}`, `(account_id < $3)`, `[a00000000000000000000002]`},
		{`{"closedStatus.status":"active"}`, `((g.doc #>> '{closedStatus,status}') = $3)`, `[active]`},
		{`{name:{$exists:true}}`, `((g.doc #> '{name}') IS NOT NULL)`, `[]`},
		{`{name:{$regex:"^a"}}`, `((g.doc #>> '{name}') ~ $3)`, `[^a]`},
		{`{name:{$regex:"^a",$options:"i"}}`, `((g.doc #>> '{name}') ~* $3)`, `[^a]`},
		{`{ownerIds:"0b0000000000000000000001"}`,
			`EXISTS (SELECT 1 FROM jsonb_array_elements_text(CASE WHEN jsonb_typeof((g.doc #> '{ownerIds}')) = 'array' THEN (g.doc #> '{ownerIds}') END) AS e(v) WHERE (e.v = $3))`,
			`[0b0000000000000000000001]`},
		{`{tags:{$gt:"a"}}`,
			`EXISTS (SELECT 1 FROM jsonb_array_elements_text(CASE WHEN jsonb_typeof((g.doc #> '{tags}')) = 'array' THEN (g.doc #> '{tags}') END) AS e(v) WHERE (e.v COLLATE "C" > $3))`,
			`[a]`},
		{`{$or:[{name:"a"},{priority:1}], isActive:false}`,
			`((((g.doc #>> '{name}') = $3) OR (((g.doc #>> '{priority}')::double precision) = $4)) AND (((g.doc #>> '{isActive}')::boolean) = $5))`,
			`[a 1 false]`},
	}
	for _, tt := range tests {
		e, err := ParseFilter(testReg, tt.src)
		if err != nil {
			t.Fatalf("ParseFilter(%s): %v", tt.src, err)
		}
		sql, args := e.SQL(Postgres, testReg, "g.doc", 2)
		if sql != tt.sql {
			t.Errorf("%s:\n got SQL %s\nwant SQL %s", tt.src, sql, tt.sql)
		}
		if got := fmt.Sprint(append([]any{}, args...)); got != tt.args {
			t.Errorf("%s: args %s, want %s", tt.src, got, tt.args)
		}
	}
}

func TestOrderBy(t *testing.T) {
	tests := []struct {
		sort     string
		d        Dialect
		want     string
		wantLess []string // expected order of lessDocs ids
	}{
		{"", SQLite, `id ASC`, []string{"1", "2", "3", "4"}},
		{"-_id", SQLite, `id DESC`, []string{"4", "3", "2", "1"}},
		{"name", SQLite, `json_type(doc, '$.name') IS NOT NULL ASC, json_extract(doc, '$.name') ASC, id ASC`, []string{"3", "4", "2", "1"}},
		{"-name", SQLite, `json_type(doc, '$.name') IS NOT NULL DESC, json_extract(doc, '$.name') DESC, id ASC`, []string{"1", "2", "4", "3"}},
		{"accountId,-id", SQLite, `account_id ASC, id DESC`, []string{"4", "3", "2", "1"}},
		{"-attainment", Postgres, `(doc #> '{attainment}') IS NOT NULL DESC, ((doc #>> '{attainment}')::double precision) DESC NULLS LAST, id ASC`, nil},
		{"name,isActive", Postgres, `(doc #> '{name}') IS NOT NULL ASC, (doc #>> '{name}') COLLATE "C" ASC NULLS FIRST, (doc #> '{isActive}') IS NOT NULL ASC, ((doc #>> '{isActive}')::boolean) ASC NULLS FIRST, id ASC`, nil},
		{"createdAt", Postgres, `(doc #> '{createdAt}') IS NOT NULL ASC, (doc #>> '{createdAt}') ASC NULLS FIRST, id ASC`, nil},
		{"parentId", Postgres, `parent_id ASC NULLS FIRST, id ASC`, nil},
	}
	lessDocs := []map[string]any{
		{"id": "4", "accountId": "a", "name": nil},
		{"id": "2", "accountId": "a", "name": "b"},
		{"id": "1", "accountId": "a", "name": "c"},
		{"id": "3", "accountId": "a"},
	}
	for _, tt := range tests {
		keys, err := ParseSort(testReg, tt.sort)
		if err != nil {
			t.Fatalf("ParseSort(%q): %v", tt.sort, err)
		}
		if got := OrderBy(tt.d, testReg, "doc", keys); got != tt.want {
			t.Errorf("OrderBy(%q):\n got %s\nwant %s", tt.sort, got, tt.want)
		}
		if tt.wantLess == nil {
			continue
		}
		docs := append([]map[string]any(nil), lessDocs...)
		less := Less(keys)
		for i := 1; i < len(docs); i++ { // insertion sort: independent of package sort
			for j := i; j > 0 && less(docs[j], docs[j-1]); j-- {
				docs[j], docs[j-1] = docs[j-1], docs[j]
			}
		}
		var ids []string
		for _, d := range docs {
			ids = append(ids, d["id"].(string))
		}
		if strings.Join(ids, ",") != strings.Join(tt.wantLess, ",") {
			t.Errorf("Less(%q) order %v, want %v", tt.sort, ids, tt.wantLess)
		}
	}
	// A registry without an id field still gets the "id ASC" tie-breaker.
	noID := NewRegistry("x", Field{Name: "n", Type: Number, Sortable: true})
	if got := OrderBy(SQLite, noID, "doc", []SortKey{{Field: "n"}, {Field: "unknown"}}); got != `json_type(doc, '$.n') IS NOT NULL ASC, json_extract(doc, '$.n') ASC, id ASC` {
		t.Errorf("OrderBy without id field = %s", got)
	}
}

func TestParseSort(t *testing.T) {
	tests := []struct {
		src  string
		want string // fmt of keys, or "error: <substring>"
	}{
		{"", "[]"},
		{"-attainment,name", "[{attainment true} {name false}]"},
		{" +name , -_id ", "[{name false} {id true}]"},
		{"closedStatus.status", "[{closedStatus.status false}]"},
		{"nmae", `error: unknown field "nmae"`},
		{"ownerIds", `error: field "ownerIds" is not sortable`},
		{"description", `error: field "description" is not sortable`},
		{"metrics", `error: not sortable`},
		{"name,-name", `error: appears more than once`},
		{"id,_id", `error: appears more than once`},
		{"name,", `error: empty field name`},
		{"-", `error: empty field name`},
		{"a,b,c,d,e,f,g,h,i,j,k", `error: more than 10 keys`},
	}
	for _, tt := range tests {
		keys, err := ParseSort(testReg, tt.src)
		if msg, ok := strings.CutPrefix(tt.want, "error: "); ok {
			qe, isQE := err.(*Error)
			if !isQE || qe.Param != "sort" || !strings.Contains(qe.Message, msg) {
				t.Errorf("ParseSort(%q) error = %v, want *Error{Param: sort} containing %q", tt.src, err, msg)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseSort(%q): %v", tt.src, err)
			continue
		}
		if got := fmt.Sprint(append([]SortKey{}, keys...)); got != tt.want {
			t.Errorf("ParseSort(%q) = %s, want %s", tt.src, got, tt.want)
		}
	}
}
