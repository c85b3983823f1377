package sqlstore

import (
	"strings"

	"github.com/okrgate/okrgate/upstream/query"
)

// postgresDialect is PostgreSQL: documents are JSONB read with #> and #>>,
// booleans inside them are JSON true and false, placeholders are $n, and
// an id list is a JSONB array unnested with jsonb_array_elements_text.
type postgresDialect struct{}

func (postgresDialect) name() string         { return "postgres" }
func (postgresDialect) query() query.Dialect { return query.Postgres }

// pgIDList replaces idList: the same one JSON array parameter.
const pgIDList = "(SELECT jsonb_array_elements_text(CAST(? AS jsonb)))"

// pgSpelling rewrites the phrases that PostgreSQL spells differently in
// statements written for SQLite: id lists, json_object (jsonb_build_object
// takes the same key, value list) and instr (strpos: same arguments).
var pgSpelling = strings.NewReplacer(idList, pgIDList, "json_object(", "jsonb_build_object(", "instr(", "strpos(")

// rebind uses the statement's PostgreSQL spelling from pgStatements when
// it has one, and otherwise reads id lists with jsonb_array_elements_text
// and numbers the placeholders.
func (postgresDialect) rebind(stmt string) string {
	if alt, ok := pgStatements[stmt]; ok {
		return alt
	}
	return numbered(pgSpelling.Replace(stmt))
}

// pgPath is the PostgreSQL text-array path literal of keys.
func pgPath(keys []string) string { return "'{" + strings.Join(keys, ",") + "}'" }

func (postgresDialect) text(doc string, keys ...string) string {
	return "(" + doc + " #>> " + pgPath(keys) + ")"
}

func (d postgresDialect) num(doc string, keys ...string) string {
	return "(" + doc + " #>> " + pgPath(keys) + ")::double precision"
}

// isTrue and isFalse test a JSON flag as SQLite's json_extract does: true
// and any non-zero number are set; false and 0 are not; a missing value or
// JSON null is neither (isTrue is false, isFalse is false). The REST shapes
// write some flags as numbers (an access entry's "deny": {"goals:read": 1}).
func (postgresDialect) isTrue(doc string, keys ...string) string {
	return pgTruthy(doc + " #> " + pgPath(keys))
}

func (postgresDialect) isFalse(doc string, keys ...string) string {
	return "COALESCE(" + doc + " #> " + pgPath(keys) + " IN ('false'::jsonb, '0'::jsonb), FALSE)"
}

// pgTruthy is the SQL condition "the JSONB value v is set": not missing,
// null, false or a zero number.
func pgTruthy(v string) string {
	return "COALESCE(" + v + " NOT IN ('false'::jsonb, '0'::jsonb, 'null'::jsonb), FALSE)"
}

// array is the JSON array at keys, NULL when the value is not an array (so
// that unnesting it yields no rows rather than an error).
func (postgresDialect) array(doc string, keys []string) string {
	v := doc + " #> " + pgPath(keys)
	return "CASE WHEN jsonb_typeof(" + v + ") = 'array' THEN " + v + " END"
}

func (d postgresDialect) each(doc, alias string, keys ...string) string {
	return "jsonb_array_elements_text(" + d.array(doc, keys) + ") AS " + alias + "(value)"
}

func (d postgresDialect) eachObject(doc, alias string, keys ...string) string {
	return "jsonb_array_elements(" + d.array(doc, keys) + ") AS " + alias + "(value)"
}

// narrow reads one column per member, the key column where one holds the
// key and doc->'key' otherwise, and the store writes the object: PostgreSQL
// reads JSONB members without parsing, but building and printing an object
// of them (jsonb_build_object) took more than twice the time of the
// columns, about as long as printing whole documents (BenchmarkLevelRead).
func (postgresDialect) narrow(keys []string, column func(string) string) (string, rowDoc) {
	var b strings.Builder
	rd := rowDoc{members: make([]member, len(keys))}
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		rd.members[i].key = k
		if c := column(k); c != "" {
			b.WriteString(c)
			rd.members[i].text = true
		} else {
			b.WriteString("doc->'" + k + "'")
		}
	}
	return b.String(), rd
}

func (postgresDialect) countIf(cond string) string { return "count(*) FILTER (WHERE " + cond + ")" }

func (postgresDialect) tableExists() string {
	return "SELECT count(*) FROM (SELECT to_regclass(?)) AS t(c) WHERE c IS NOT NULL"
}

func (postgresDialect) vis() *visibilitySQL { return &postgresVisibility }
