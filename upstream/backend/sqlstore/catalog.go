package sqlstore

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// column is a column of a table as the database declares it.
type column struct {
	name string
	kind string // "text", "json", "int", "real", "bool", "blob"
}

// dbTable is a table of the store's schema, with what moving an account's
// rows needs to know of it.
type dbTable struct {
	name string
	cols []column
	pk   []string // the primary key's columns, in key order
	refs []string // the tables its foreign keys reference
}

func (t dbTable) has(col string) bool {
	return slices.ContainsFunc(t.cols, func(c column) bool { return c.name == col })
}

func (t dbTable) col(name string) (column, bool) {
	i := slices.IndexFunc(t.cols, func(c column) bool { return c.name == name })
	if i < 0 {
		return column{}, false
	}
	return t.cols[i], true
}

// catalog reads the tables of the store's schema from the database itself
// (PostgreSQL's catalog, SQLite's pragmas), so that moving an account
// covers every table a migration adds without a list to keep up to date.
// The tables are in dependency order: a table comes after those its
// foreign keys reference.
func (s *Store) catalog(ctx context.Context, q querier) ([]dbTable, error) {
	var ts map[string]*dbTable
	var err error
	if s.pg != nil {
		ts, err = pgCatalog(ctx, q)
	} else {
		ts, err = sqliteCatalog(ctx, q)
	}
	if err != nil {
		return nil, fmt.Errorf("sqlstore: catalog: %w", err)
	}
	return dependencyOrder(ts)
}

// dependencyOrder sorts tables so that each follows the tables it
// references (by name where the order is free, for a stable file).
func dependencyOrder(ts map[string]*dbTable) ([]dbTable, error) {
	var out []dbTable
	done := map[string]bool{}
	names := slices.Sorted(maps.Keys(ts))
	for len(out) < len(ts) {
		progress := false
		for _, n := range names {
			if done[n] {
				continue
			}
			ready := true
			for _, r := range ts[n].refs {
				if r != n && !done[r] && ts[r] != nil {
					ready = false
				}
			}
			if ready {
				done[n], progress = true, true
				out = append(out, *ts[n])
			}
		}
		if !progress {
			return nil, fmt.Errorf("sqlstore: catalog: foreign keys form a cycle")
		}
	}
	return out, nil
}

const pgColumnsSQL = `SELECT table_name, column_name, data_type FROM information_schema.columns
	WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`

const pgKeysSQL = `SELECT c.conrelid::regclass::text, c.contype, COALESCE(c.confrelid::regclass::text, ''),
	ARRAY(SELECT a.attname FROM unnest(c.conkey) WITH ORDINALITY k(n, i) JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n ORDER BY k.i)::text
	FROM pg_constraint c WHERE c.connamespace = current_schema()::regnamespace AND c.contype IN ('p', 'f')`

func pgCatalog(ctx context.Context, q querier) (map[string]*dbTable, error) {
	ts := map[string]*dbTable{}
	rows, err := q.QueryContext(ctx, pgColumnsSQL)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var t, c, typ string
		if err := rows.Scan(&t, &c, &typ); err != nil {
			rows.Close()
			return nil, err
		}
		if ts[t] == nil {
			ts[t] = &dbTable{name: t}
		}
		ts[t].cols = append(ts[t].cols, column{name: c, kind: kindOf(typ)})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows, err = q.QueryContext(ctx, pgKeysSQL)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var t, typ, ref, cols string
		if err := rows.Scan(&t, &typ, &ref, &cols); err != nil {
			return nil, err
		}
		tb := ts[unquote(t)]
		if tb == nil {
			continue
		}
		if typ == "p" {
			tb.pk = strings.Split(strings.Trim(cols, "{}"), ",")
		} else {
			tb.refs = append(tb.refs, unquote(ref))
		}
	}
	return ts, rows.Err()
}

// unquote is a table name as regclass prints it, without quotes.
func unquote(s string) string { return strings.Trim(s, `"`) }

func sqliteCatalog(ctx context.Context, q querier) (map[string]*dbTable, error) {
	rows, err := q.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`)
	if err != nil {
		return nil, err
	}
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return nil, err
		}
		names = append(names, n)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	ts := map[string]*dbTable{}
	for _, n := range names {
		t := &dbTable{name: n}
		rows, err := q.QueryContext(ctx, `SELECT name, type, pk FROM pragma_table_info(?) ORDER BY cid`, n)
		if err != nil {
			return nil, err
		}
		type keyCol struct {
			name string
			pos  int
		}
		var keys []keyCol
		for rows.Next() {
			var c, typ string
			var pk int
			if err := rows.Scan(&c, &typ, &pk); err != nil {
				rows.Close()
				return nil, err
			}
			t.cols = append(t.cols, column{name: c, kind: kindOf(typ)})
			if pk > 0 {
				keys = append(keys, keyCol{c, pk})
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		slices.SortFunc(keys, func(a, b keyCol) int { return a.pos - b.pos })
		for _, k := range keys {
			t.pk = append(t.pk, k.name)
		}
		rows, err = q.QueryContext(ctx, `SELECT DISTINCT "table" FROM pragma_foreign_key_list(?)`, n)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var r string
			if err := rows.Scan(&r); err != nil {
				rows.Close()
				return nil, err
			}
			t.refs = append(t.refs, r)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		ts[n] = t
	}
	return ts, nil
}

// kindOf maps a declared column type, either database's, to a kind.
func kindOf(typ string) string {
	t := strings.ToLower(typ)
	switch {
	case strings.Contains(t, "json"):
		return "json"
	case strings.Contains(t, "bool"):
		return "bool"
	case strings.Contains(t, "int") || t == "serial" || t == "bigserial":
		return "int"
	case strings.Contains(t, "real") || strings.Contains(t, "double") || strings.Contains(t, "numeric") || strings.Contains(t, "float"):
		return "real"
	case strings.Contains(t, "blob") || strings.Contains(t, "bytea"):
		return "blob"
	default:
		return "text"
	}
}
