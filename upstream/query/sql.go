package query

import (
	"encoding/json"
	"strconv"
	"strings"
)

// Dialect picks the SQL flavour that SQL and OrderBy produce.
type Dialect int

const (
	// SQLite reads the document column as JSON text with json_extract,
	// json_type and json_each, binds "?" placeholders, and expects the store
	// to register the SQL function regexp(pattern, value) (see
	// RegexpFunc).
	SQLite Dialect = iota
	// Postgres reads the document column as JSONB with #> and #>>, binds
	// "$n" placeholders and uses the ~ and ~* operators for $regex (whose
	// syntax is close to, but not the same as, RE2).
	Postgres
)

// SQL compiles e into a WHERE fragment (without the WHERE keyword) for
// dialect d, together with its arguments. docCol names the JSON document
// column (it may be qualified, e.g. "g.doc"); fields with a Column in reg are
// read from that column instead. Postgres placeholders are numbered from
// argStart+1. A nil e compiles to "1=1".
//
// Field names in the SQL come only from reg; values are always bound
// arguments. A condition on a field reg does not know (only possible for
// expressions built with Eq or In) compiles to "1=0".
//
// The fragment matches exactly the rows whose document Match accepts,
// provided the documents hold values of the registered types (or null, or
// nothing) and Column fields hold the same values as the document.
func (e *Expr) SQL(d Dialect, reg *Registry, docCol string, argStart int) (string, []any) {
	if e == nil {
		return "1=1", nil
	}
	c := &compiler{d: d, reg: reg, doc: docCol, argStart: argStart}
	var b strings.Builder
	c.expr(&b, e)
	return b.String(), c.args
}

type compiler struct {
	d        Dialect
	reg      *Registry
	doc      string
	argStart int
	args     []any
}

// bind appends an argument and returns its placeholder.
func (c *compiler) bind(v any) string {
	c.args = append(c.args, v)
	if c.d == Postgres {
		return "$" + strconv.Itoa(c.argStart+len(c.args))
	}
	return "?"
}

// bindValue binds a filter value converted for field f: booleans are 1/0
// integers in SQLite.
func (c *compiler) bindValue(f Field, v any) string {
	if b, ok := v.(bool); ok && c.d == SQLite {
		if b {
			return c.bind(int64(1))
		}
		return c.bind(int64(0))
	}
	return c.bind(v)
}

// field resolves the field of a condition.
func (c *compiler) field(e *Expr) (Field, bool) {
	if f, ok := c.reg.Field(e.field); ok {
		return f, true
	}
	return e.f, e.typed
}

// not writes a negation that is true when the operand is false or NULL, so
// that SQL three-valued logic agrees with Match (where a comparison with a
// missing field is simply false).
func (c *compiler) not(b *strings.Builder, write func()) {
	b.WriteString("NOT COALESCE(")
	write()
	b.WriteString(", FALSE)")
}

func (c *compiler) expr(b *strings.Builder, e *Expr) {
	switch e.op {
	case opAnd, opOr:
		sep := " AND "
		if e.op == opOr {
			sep = " OR "
		}
		b.WriteByte('(')
		for i, k := range e.kids {
			if i > 0 {
				b.WriteString(sep)
			}
			c.expr(b, k)
		}
		b.WriteByte(')')
		return
	case opNor:
		c.not(b, func() { c.expr(b, &Expr{op: opOr, kids: e.kids}) })
		return
	}
	f, ok := c.field(e)
	if !ok {
		b.WriteString("1=0")
		return
	}
	switch e.op {
	case opNot:
		c.not(b, func() { c.expr(b, e.kids[0]) })
	case opNe:
		c.not(b, func() { c.cond(b, f, &Expr{op: opEq, field: e.field, val: e.val}) })
	case opNin:
		c.not(b, func() { c.cond(b, f, &Expr{op: opIn, field: e.field, vals: e.vals}) })
	default:
		c.cond(b, f, e)
	}
}

// cond writes a positive condition ($eq, comparisons, $in, $regex,
// $exists) on field f. The result may be NULL for missing values, which
// WHERE treats as false.
func (c *compiler) cond(b *strings.Builder, f Field, e *Expr) {
	switch e.op {
	case opExists:
		b.WriteByte('(')
		b.WriteString(c.presence(f))
		if e.val == true {
			b.WriteString(" IS NOT NULL)")
		} else {
			b.WriteString(" IS NULL)")
		}
		return
	case opEq:
		if e.val == nil {
			b.WriteByte('(')
			b.WriteString(c.nullable(f))
			b.WriteString(" IS NULL)")
			return
		}
	case opIn:
		var vals []any
		hasNull := false
		for _, v := range e.vals {
			if v == nil {
				hasNull = true
			} else {
				vals = append(vals, v)
			}
		}
		switch {
		case len(vals) == 0 && !hasNull:
			b.WriteString("1=0")
			return
		case len(vals) == 0:
			c.cond(b, f, &Expr{op: opEq, field: e.field})
			return
		case hasNull:
			b.WriteByte('(')
			c.cond(b, f, &Expr{op: opEq, field: e.field})
			b.WriteString(" OR ")
			c.cond(b, f, &Expr{op: opIn, field: e.field, vals: vals})
			b.WriteByte(')')
			return
		}
	}
	if f.Type == StringList {
		c.elements(b, f, e)
		return
	}
	c.scalar(b, f, e, c.value(f, e.op))
}

var cmpSQL = [...]string{opEq: " = ", opGt: " > ", opGte: " >= ", opLt: " < ", opLte: " <= "}

// scalar writes the positive condition e on the SQL expression x.
func (c *compiler) scalar(b *strings.Builder, f Field, e *Expr, x string) {
	b.WriteByte('(')
	switch e.op {
	case opEq, opGt, opGte, opLt, opLte:
		b.WriteString(x)
		b.WriteString(cmpSQL[e.op])
		b.WriteString(c.bindValue(f, e.val))
	case opIn:
		b.WriteString(x)
		if list, ok := stringList(e.vals); ok {
			// One JSON array parameter however many values: one
			// statement for a level of any size, and one plan.
			if c.d == Postgres {
				b.WriteString(" IN (SELECT jsonb_array_elements_text(CAST(" + c.bind(list) + " AS jsonb)))")
			} else {
				b.WriteString(" IN (SELECT value FROM json_each(" + c.bind(list) + "))")
			}
			break
		}
		b.WriteString(" IN (")
		for i, v := range e.vals {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(c.bindValue(f, v))
		}
		b.WriteByte(')')
	case opRegex:
		if c.d == Postgres {
			b.WriteString(x)
			if e.fold {
				b.WriteString(" ~* ")
			} else {
				b.WriteString(" ~ ")
			}
			b.WriteString(c.bind(e.source))
		} else {
			pattern := e.source
			if e.fold {
				pattern = "(?i)" + pattern
			}
			b.WriteString("regexp(")
			b.WriteString(c.bind(pattern))
			b.WriteString(", ")
			b.WriteString(x)
			b.WriteByte(')')
		}
	default:
		b.WriteString("1=0")
	}
	b.WriteByte(')')
}

// elements writes "some element of the list field f satisfies e".
func (c *compiler) elements(b *strings.Builder, f Field, e *Expr) {
	var src string
	if c.d == Postgres {
		arr := c.jsonb(f)
		src = "jsonb_array_elements_text(CASE WHEN jsonb_typeof(" + arr + ") = 'array' THEN " + arr + " END) AS e(v)"
	} else if f.Column != "" {
		src = "json_each(" + f.Column + ")"
	} else {
		src = "json_each(" + c.doc + ", '" + jsonPath(f.Name) + "')"
	}
	x := "value"
	if c.d == Postgres {
		x = "e.v"
		if e.op >= opGt && e.op <= opLte && f.Type == StringList {
			x += ` COLLATE "C"`
		}
	}
	b.WriteString("EXISTS (SELECT 1 FROM ")
	b.WriteString(src)
	b.WriteString(" WHERE ")
	c.scalar(b, f, e, x)
	b.WriteByte(')')
}

// jsonPath returns the SQLite JSON path of a registry name.
func jsonPath(name string) string { return "$." + name }

// pgPath returns the Postgres text-array path literal of a registry name.
func pgPath(name string) string { return "'{" + strings.ReplaceAll(name, ".", ",") + "}'" }

// jsonb returns the Postgres JSONB value of f (for lists).
func (c *compiler) jsonb(f Field) string {
	if f.Column != "" {
		return f.Column
	}
	return "(" + c.doc + " #> " + pgPath(f.Name) + ")"
}

// presence returns an expression that is NULL exactly when the key of f is
// absent (for Column fields: when the column is NULL).
func (c *compiler) presence(f Field) string {
	switch {
	case f.Column != "":
		return f.Column
	case c.d == Postgres:
		return "(" + c.doc + " #> " + pgPath(f.Name) + ")"
	default:
		return "json_type(" + c.doc + ", '" + jsonPath(f.Name) + "')"
	}
}

// nullable returns an expression that is NULL exactly when f is missing or
// null.
func (c *compiler) nullable(f Field) string {
	switch {
	case f.Column != "":
		return f.Column
	case c.d == Postgres:
		return "(" + c.doc + " #>> " + pgPath(f.Name) + ")"
	default:
		return "json_extract(" + c.doc + ", '" + jsonPath(f.Name) + "')"
	}
}

// value returns the typed scalar SQL expression of f, for use with
// operator o (Postgres comparisons of String fields use the "C" collation so
// that they order bytewise, like Go and SQLite).
func (c *compiler) value(f Field, o op) string {
	x := c.nullable(f)
	if c.d != Postgres {
		return x
	}
	switch f.Type {
	case Number, Integer:
		if f.Column == "" {
			x = "(" + x + "::double precision)"
		}
	case Bool:
		if f.Column == "" {
			x = "(" + x + "::boolean)"
		}
	case String:
		// Free text: order bytewise whatever the database collation. ID,
		// Date and DateTime values are fixed-format ASCII that every
		// collation orders bytewise, so their indexes stay usable.
		if o >= opGt && o <= opLte {
			x += ` COLLATE "C"`
		}
	}
	return x
}

// OrderBy renders an ORDER BY list (without the keywords) for keys, ending
// with the id tie-breaker "id ASC" unless id is already a key, so that
// paging is stable. Missing values sort before null values, which sort
// before all others (ascending; descending reverses this), exactly as Less
// orders documents. A Column field cannot tell missing from null, so for the
// two to agree the store keeps Column fields present in its documents.
// Fields reg does not know are skipped.
func OrderBy(d Dialect, reg *Registry, docCol string, keys []SortKey) string {
	c := &compiler{d: d, reg: reg, doc: docCol}
	var parts []string
	hasID := false
	for _, k := range keys {
		name := canonicalName(k.Field)
		f, ok := reg.Field(name)
		if !ok {
			continue
		}
		dir := " ASC"
		if k.Desc {
			dir = " DESC"
		}
		if name == "id" {
			hasID = true
			parts = append(parts, c.sortValue(f)+dir)
			continue
		}
		if f.Column == "" {
			// Present (possibly null) keys after missing ones.
			parts = append(parts, c.presence(f)+" IS NOT NULL"+dir)
		}
		x := c.sortValue(f)
		if d == Postgres {
			if k.Desc {
				dir += " NULLS LAST"
			} else {
				dir += " NULLS FIRST"
			}
		}
		parts = append(parts, x+dir)
	}
	if !hasID {
		if f, ok := reg.Field("id"); ok {
			parts = append(parts, c.sortValue(f)+" ASC")
		} else {
			parts = append(parts, "id ASC")
		}
	}
	return strings.Join(parts, ", ")
}

// sortValue returns the SQL expression f is sorted by.
func (c *compiler) sortValue(f Field) string {
	if c.d != Postgres {
		return c.nullable(f)
	}
	return c.value(f, opLt)
}

// InlineIn is the most values an $in list binds one by one; a longer list
// of strings (a loader's level of ids) binds as one JSON array parameter,
// so that neither SQLite's nor PostgreSQL's bound on parameters limits
// it.
const InlineIn = 32

// stringList returns vals as one JSON array when there are more than
// InlineIn of them and all are strings.
func stringList(vals []any) (string, bool) {
	if len(vals) <= InlineIn {
		return "", false
	}
	ss := make([]string, len(vals))
	for i, v := range vals {
		s, ok := v.(string)
		if !ok {
			return "", false
		}
		ss[i] = s
	}
	b, err := json.Marshal(ss)
	return string(b), err == nil
}
