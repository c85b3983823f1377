package sqlstore

import (
	"strings"

	"github.com/okrgate/okrgate/upstream/query"
)

// sqliteDialect is SQLite: documents are JSON text read with json_extract
// and json_each, booleans inside them read as 1 and 0, placeholders are "?".
type sqliteDialect struct{}

func (sqliteDialect) name() string              { return "sqlite" }
func (sqliteDialect) query() query.Dialect      { return query.SQLite }
func (sqliteDialect) rebind(stmt string) string { return stmt }

// sqlitePath is the SQLite JSON path literal of keys; a key that is not a
// plain name is quoted ($.deny."goals:read").
func sqlitePath(keys []string) string {
	var b strings.Builder
	b.WriteString("'$")
	for _, k := range keys {
		b.WriteByte('.')
		if strings.ContainsAny(k, ":*.\" ") {
			b.WriteString(`"` + k + `"`)
		} else {
			b.WriteString(k)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

func (sqliteDialect) text(doc string, keys ...string) string {
	return "json_extract(" + doc + ", " + sqlitePath(keys) + ")"
}

func (d sqliteDialect) num(doc string, keys ...string) string { return d.text(doc, keys...) }

func (d sqliteDialect) isTrue(doc string, keys ...string) string {
	return "COALESCE(" + d.text(doc, keys...) + ", 0) <> 0"
}

func (d sqliteDialect) isFalse(doc string, keys ...string) string {
	return d.text(doc, keys...) + " = 0"
}

func (sqliteDialect) each(doc, alias string, keys ...string) string {
	return "json_each(" + doc + ", " + sqlitePath(keys) + ") " + alias
}

func (d sqliteDialect) eachObject(doc, alias string, keys ...string) string {
	return d.each(doc, alias, keys...)
}

func (sqliteDialect) countIf(cond string) string { return "sum(" + cond + ")" }

func (sqliteDialect) tableExists() string {
	return "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?"
}

// narrow reads whole documents and picks the members in Go: SQLite's
// json_object over doc->'key' parses each document into its binary form
// first, and a level took 2.7× the time of reading the text whole and
// picking the members (BenchmarkLevelRead).
func (sqliteDialect) narrow(keys []string, _ func(string) string) (string, rowDoc) {
	return "doc", rowDoc{pick: keys}
}

func (sqliteDialect) vis() *visibilitySQL { return &sqliteVisibility }
