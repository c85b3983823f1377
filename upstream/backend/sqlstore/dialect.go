package sqlstore

import (
	"strconv"
	"strings"

	"github.com/okrgate/okrgate/upstream/query"
)

// dialect is the seam between the store and its database: the few pieces of
// SQL that SQLite and PostgreSQL spell differently. Everything else — the
// statements, their order, the transactions, the figures — is shared.
// Statements are written with "?" placeholders; rebind turns them into the
// database's own. An id list is bound as one JSON array parameter and read
// with the phrase idList, so one statement serves any number of ids (and a
// batch never meets SQLite's variable limit).
//
// JSON paths are given as keys (text(doc, "access", "inherits")), never as
// a dialect's path syntax, and doc names a column or expression holding a
// JSON document (TEXT in SQLite, JSONB in PostgreSQL). The visibility
// conditions, security-critical, are spelt out whole per dialect
// (visibility_sqlite.go, visibility_postgres.go) rather than assembled.
type dialect interface {
	// name is "sqlite" or "postgres".
	name() string
	// query is the filter-language dialect of package query.
	query() query.Dialect
	// rebind turns a statement written with "?" placeholders into the
	// database's own spelling.
	rebind(stmt string) string
	// text is the JSON value at keys as text, NULL when absent or null.
	text(doc string, keys ...string) string
	// num is the JSON number at keys as a float, NULL when absent.
	num(doc string, keys ...string) string
	// isTrue is the condition "the JSON value at keys is true"; isFalse
	// "is false". Both are false when the key is absent.
	isTrue(doc string, keys ...string) string
	isFalse(doc string, keys ...string) string
	// each is a FROM item over the elements of the JSON array of strings
	// at keys, as alias.value (text); no rows when it is not an array.
	each(doc, alias string, keys ...string) string
	// eachObject is each for an array of objects: alias.value is a JSON
	// document for text and num.
	eachObject(doc, alias string, keys ...string) string
	// countIf is an aggregate counting the rows of a group where cond holds.
	countIf(cond string) string
	// tableExists is a query answering one row with a count (0 or 1) of
	// tables named by its one parameter.
	tableExists() string
	// narrow is how a list reads the members under keys (plain names:
	// plainKey) of each row's document: its select list, and how scanDocsN
	// makes of a row the document it decodes (docs/decisions/tree-read-path.md, "Where a
	// level's members are picked"). column is the key column that holds a
	// key's value, "" when none does.
	narrow(keys []string, column func(key string) string) (string, rowDoc)
	// vis holds the visibility SQL of the dialect.
	vis() *visibilitySQL
}

// idList is how a statement reads an id list bound as one JSON array
// parameter (idsParam): "col IN " + idList.
const idList = "(SELECT value FROM json_each(?))"

// dialectOf returns the dialect a querier runs on.
func dialectOf(q querier) dialect {
	switch c := q.(type) {
	case counted:
		return c.d
	case preparedTx:
		return c.count.d
	}
	return sqliteDialect{}
}

// trueSQL is a condition that always holds, in both dialects (PostgreSQL
// does not take an integer for a condition).
const trueSQL = "TRUE"

// numbered rewrites "?" placeholders outside string literals and quoted
// identifiers as $1, $2, ... in order.
func numbered(stmt string) string {
	if !strings.Contains(stmt, "?") {
		return stmt
	}
	var b strings.Builder
	b.Grow(len(stmt) + 16)
	n := 0
	var quote byte
	for i := 0; i < len(stmt); i++ {
		c := stmt[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '?':
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// unnumbered turns the $n placeholders of a fragment compiled by package
// query for PostgreSQL back into "?", so it can be spliced into a statement
// that rebind numbers as a whole. The fragment binds each argument once, in
// order, and has no "$" inside its literals.
func unnumbered(frag string) string {
	if !strings.Contains(frag, "$") {
		return frag
	}
	var b strings.Builder
	b.Grow(len(frag))
	for i := 0; i < len(frag); i++ {
		if frag[i] == '$' && i+1 < len(frag) && frag[i+1] >= '0' && frag[i+1] <= '9' {
			for i+1 < len(frag) && frag[i+1] >= '0' && frag[i+1] <= '9' {
				i++
			}
			b.WriteByte('?')
			continue
		}
		b.WriteByte(frag[i])
	}
	return b.String()
}

// filterSQL compiles a list filter for the dialect of q, with "?"
// placeholders.
func filterSQL(q querier, e *query.Expr, reg *query.Registry, docCol string) (string, []any) {
	d := dialectOf(q)
	where, args := e.SQL(d.query(), reg, docCol, 0)
	return unnumbered(where), args
}

// visibilitySQL is a dialect's SQL of what a caller may read (scope.go
// binds it). Conditions name the row's columns with the prefix "P.", which
// at replaces with the row's own (e.g. "g." or none).
type visibilitySQL struct {
	// goal is "the goal row is visible", as it is decided for a restricted
	// goal (the key column restricted; scope.visibleGoalIDs decides the
	// others by their session); parameters: the sessions whose goals the caller may read,
	// the caller's principals (for denials), its owner principals, the
	// sessions it manages (all id lists).
	goal string
	// metricOwn is the key result's own part of "the key result row is
	// visible" (its goal's is goal) for a restricted key result;
	// parameters: owner principals twice, managed sessions.
	metricOwn string
	// stubDoc is the document of an obfuscated goal: its place in the tree
	// and nothing else.
	stubDoc string
	// noParentName is a task document with parentName emptied.
	noParentName string
	// unindexed prefixes a column that an IN (subquery) condition tests so
	// that the planner does not drive the statement by the subquery's ids
	// (SQLite's unary +): a page in id order then walks its index and stops
	// after a page instead of sorting every visible row's document.
	unindexed string
}

// at returns cond for the row whose columns are prefixed by p.
func (*visibilitySQL) at(cond, p string) string { return strings.ReplaceAll(cond, "P.", p) }
