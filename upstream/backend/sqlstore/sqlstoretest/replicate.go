// Package sqlstoretest holds helpers for tests and benchmarks of code that
// runs on the SQL store: a store per test on SQLite and, when enabled, on
// PostgreSQL (open.go), and bulk copies for benchmarks (replicate.go).
package sqlstoretest

import (
	"database/sql"
	"regexp"
	"strings"

	_ "modernc.org/sqlite" // the driver the store uses

	"github.com/okrgate/okrgate/upstream"
)

var hexID = regexp.MustCompile(`[0-9a-f]{24}`)

// Replicate copies the goals, key results, check-ins and tasks of the
// SQLite database at path copies-1 more times, giving every copied row fresh
// ids (users, sessions and the account keep theirs, so the copies land in
// the same sessions with the same owners). It writes SQL directly, for
// benchmarks: seeding 10,000 objectives through the store takes far longer.
// The copies have no stored subtree summaries; the first write to a copied
// tree recomputes it in full, as after migration 00008.
func Replicate(path string, copies int) error {
	db, err := sql.Open("sqlite", path)
	if err != nil {
		return err
	}
	defer db.Close()
	tables := []string{"goals", "metrics", "checkins", "tasks"}
	rows := map[string][][]any{}
	cols := map[string][]string{}
	owned := map[string]bool{}
	for _, t := range tables {
		r, err := db.Query("SELECT * FROM " + t + " ORDER BY rowid")
		if err != nil {
			return err
		}
		cs, _ := r.Columns()
		cols[t] = cs
		for r.Next() {
			vals := make([]any, len(cs))
			ptrs := make([]any, len(cs))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := r.Scan(ptrs...); err != nil {
				r.Close()
				return err
			}
			for i, v := range vals {
				if b, ok := v.([]byte); ok {
					vals[i] = string(b)
				}
			}
			owned[vals[0].(string)] = true
			rows[t] = append(rows[t], vals)
		}
		r.Close()
	}
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	ids := upstream.NewIDSource()
	for c := 1; c < copies; c++ {
		remap := map[string]string{}
		for id := range owned {
			remap[id] = ids.New()
		}
		fix := func(v any) any {
			s, ok := v.(string)
			if !ok {
				return v
			}
			return hexID.ReplaceAllStringFunc(s, func(id string) string {
				if n, ok := remap[id]; ok {
					return n
				}
				return id
			})
		}
		for _, t := range tables {
			ph := strings.TrimSuffix(strings.Repeat("?,", len(cols[t])), ",")
			stmt, err := tx.Prepare("INSERT INTO " + t + " (" + strings.Join(cols[t], ",") + ") VALUES (" + ph + ")")
			if err != nil {
				return err
			}
			for _, r := range rows[t] {
				vals := make([]any, len(r))
				for i, v := range r {
					vals[i] = fix(v)
				}
				if _, err := stmt.Exec(vals...); err != nil {
					stmt.Close()
					return err
				}
			}
			stmt.Close()
		}
	}
	return tx.Commit()
}
