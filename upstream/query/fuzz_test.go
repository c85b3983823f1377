package query

import (
	"strings"
	"testing"
)

// FuzzParseFilter checks that no input makes ParseFilter, SQL, Match or
// String panic, and that accepted filters have a stable canonical form.
func FuzzParseFilter(f *testing.F) {
	for _, s := range handFilters {
		f.Add(s)
	}
	for _, s := range []string{
		``, `{}`, `[]`, `null`, `{name:'a'}`, `{"$where":"1"}`, `{name:{$regex:"(?i)a+",$options:"i"}}`,
		`{createdAt:{$gte:"2026-01-02T03:04:05.999999999+14:00"}}`, `{dueDate:"0000-01-01"}`,
		`{createdAt:"9999-12-31T23:59:59Z"}`, `{createdAt:"0000-01-01T00:00:00+01:00"}`,
		`{name:"\ud800\udc00\ud800"}`, `{priority:-0}`, `{priority:1e308}`, `{attainment:-1.5e-300}`,
		`{$or:[{$nor:[{$and:[{name:{$not:{$not:{$in:[null]}}}}]}]}]}`, `{"closedStatus.status":{$nin:[]}}`,
		`{ownerIds:{$not:"^$"}, tags:{$exists:false}}`, `{id:{$in:["0123456789ABCDEF01234567"]}}`,
	} {
		f.Add(s)
	}
	docs := []map[string]any{sampleDoc(), {}, {"id": "x", "name": []any{"a", nil, 1.0}, "closedStatus": "s", "ownerIds": "0b"}}
	f.Fuzz(func(t *testing.T, src string) {
		e, err := ParseFilter(testReg, src)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error %v is %T, want *Error", err, err)
			}
			if e != nil {
				t.Fatal("non-nil Expr with an error")
			}
			return
		}
		for _, d := range []Dialect{SQLite, Postgres} {
			sql, args := e.SQL(d, testReg, "doc", 0)
			if sql == "" {
				t.Fatal("empty SQL")
			}
			if d == SQLite && strings.Count(sql, "?") != len(args) {
				t.Fatalf("SQL %s has %d placeholders for %d args", sql, strings.Count(sql, "?"), len(args))
			}
		}
		for _, d := range docs {
			e.Match(d)
		}
		canon := e.String()
		if len(canon) > MaxFilterLen {
			return // the canonical form may be longer than a compact source
		}
		e2, err := ParseFilter(testReg, canon)
		if err != nil {
			t.Fatalf("canonical form %s of %q does not parse: %v", canon, src, err)
		}
		if got := e2.String(); got != canon {
			t.Fatalf("canonical form not stable: %s → %s", canon, got)
		}
		for _, d := range docs {
			if e.Match(d) != e2.Match(d) {
				t.Fatalf("canonical form %s of %q matches %v differently", canon, src, d)
			}
		}
	})
}

// FuzzParseFields checks that no input makes ParseFields or Apply panic.
func FuzzParseFields(f *testing.F) {
	for _, s := range []string{"", "id,name", "metrics{id,name{x}}", "closedStatus.status,closedStatus", "metrics{goal{metrics{checkins{value}}}}", "{", "}", ",", "a{b{c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		p, err := ParseFields(testReg, src)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error %v is %T, want *Error", err, err)
			}
			return
		}
		p.Apply(sampleDoc())
		p.Has("metrics.name")
	})
}
