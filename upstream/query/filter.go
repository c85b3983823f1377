package query

import (
	"bytes"
	"encoding/json"
	"math"
	"regexp"
	"strings"
	"time"
)

// op is the operator of an Expr node.
type op int

const (
	opAnd op = iota // kids all match
	opOr            // some kid matches
	opNor           // no kid matches
	opNot           // kids[0] does not match (field-level $not)
	opEq
	opNe
	opGt
	opGte
	opLt
	opLte
	opIn
	opNin
	opRegex
	opExists
)

var opNames = [...]string{
	opAnd: "$and", opOr: "$or", opNor: "$nor", opNot: "$not",
	opEq: "$eq", opNe: "$ne", opGt: "$gt", opGte: "$gte", opLt: "$lt", opLte: "$lte",
	opIn: "$in", opNin: "$nin", opRegex: "$regex", opExists: "$exists",
}

// Expr is a parsed, validated filter expression: an immutable tree. A nil
// *Expr matches everything.
//
// Semantics follow MongoDB where they are defined:
//   - {f: null} and {f: {$eq: null}} match documents where f is missing or
//     null; {f: {$ne: null}} matches documents where f is present and not null.
//   - $gt, $gte, $lt, $lte, $regex never match a missing or null field;
//     $ne, $nin, $not and $nor do match it.
//   - On StringList fields a condition matches if any element matches; $ne
//     and $nin match if no element matches.
//   - $exists tests whether the key is present in the document, even with a
//     null value. For fields stored in their own SQL column, which cannot
//     tell a missing value from null, $exists tests for a non-null value.
//   - Values are compared only with values of the same JSON type; DateTime
//     values are compared at millisecond precision (filter values are
//     truncated to milliseconds).
type Expr struct {
	op     op
	field  string // canonical field name for leaves and opNot
	f      Field  // the registry field, if typed
	typed  bool   // f is set (the expression came from ParseFilter)
	val    any    // opEq..opLte: string, float64, bool or nil; opExists: bool
	vals   []any  // opIn, opNin
	re     *regexp.Regexp
	source string // opRegex: the pattern as written
	fold   bool   // opRegex: $options "i"
	kids   []*Expr
}

// ParseFilter parses src, a JSON (or relaxed JSON) filter object, and
// validates it against reg. An empty src or "{}" yields a nil *Expr and no
// error. Every client mistake is reported as an *Error with Param "filter".
//
// Relaxed JSON allows unquoted keys ({ownerId:"x", $or:[...]}) and
// single-quoted strings. Duplicate keys in one object are rejected rather
// than silently resolved (a second $or would otherwise drop the first).
// Logical operators ($and, $or, $nor) need non-empty arrays of non-empty
// filter objects.
func ParseFilter(reg *Registry, src string) (*Expr, error) {
	if len(src) > MaxFilterLen {
		return nil, errorf("filter", "", "filter is longer than %d bytes", MaxFilterLen)
	}
	if strings.TrimSpace(src) == "" {
		return nil, nil
	}
	if reg == nil {
		return nil, errorf("filter", "", "this resource cannot be filtered")
	}
	v, err := parseRelaxedJSON(src)
	if err != nil {
		return nil, err
	}
	if v.kind != jObject {
		return nil, errorf("filter", "", "filter must be a JSON object, got %s", v.kind)
	}
	p := &filterParser{reg: reg}
	return p.doc(v, false)
}

// filterParser turns relaxed-JSON values into Expr trees.
type filterParser struct {
	reg   *Registry
	nodes int
}

func (p *filterParser) node(e *Expr) (*Expr, error) {
	p.nodes++
	if p.nodes > MaxFilterNodes {
		return nil, errorf("filter", "", "filter has more than %d conditions", MaxFilterNodes)
	}
	return e, nil
}

// doc parses a filter object: an implicit AND of its members. An empty object
// yields nil unless nonEmpty is set.
func (p *filterParser) doc(v *jvalue, nonEmpty bool) (*Expr, error) {
	var conds []*Expr
	for _, m := range v.obj {
		var (
			e   *Expr
			err error
		)
		if strings.HasPrefix(m.key, "$") {
			e, err = p.logical(m.key, m.val)
		} else {
			e, err = p.fieldCond(m.key, m.val)
		}
		if err != nil {
			return nil, err
		}
		conds = append(conds, e)
	}
	conds = flattenAnd(conds)
	switch len(conds) {
	case 0:
		if nonEmpty {
			return nil, errorf("filter", "", "empty filter object inside a logical operator")
		}
		return nil, nil
	case 1:
		return conds[0], nil
	}
	return p.node(&Expr{op: opAnd, kids: conds})
}

// logical parses a top-level operator member such as "$or": [...].
func (p *filterParser) logical(key string, v *jvalue) (*Expr, error) {
	var o op
	switch key {
	case "$and":
		o = opAnd
	case "$or":
		o = opOr
	case "$nor":
		o = opNor
	default:
		return nil, unsupported("", key)
	}
	if v.kind != jArray || len(v.arr) == 0 {
		return nil, errorf("filter", "", "%s needs a non-empty array of filter objects", key)
	}
	e := &Expr{op: o}
	for _, el := range v.arr {
		if el.kind != jObject {
			return nil, errorf("filter", "", "%s needs a non-empty array of filter objects, got an element of type %s", key, el.kind)
		}
		k, err := p.doc(el, true)
		if err != nil {
			return nil, err
		}
		e.kids = append(e.kids, k)
	}
	if o == opAnd {
		e.kids = flattenAnd(e.kids)
	}
	return p.node(e)
}

// flattenAnd splices the operands of conjunctions in exprs into the list.
func flattenAnd(exprs []*Expr) []*Expr {
	flat := exprs[:0:0]
	for _, e := range exprs {
		if e.op == opAnd {
			flat = append(flat, flattenAnd(e.kids)...)
		} else {
			flat = append(flat, e)
		}
	}
	return flat
}

func unsupported(field, op string) *Error {
	return errorf("filter", field, "operator %s is not supported", op)
}

// fieldCond parses `name: condition`.
func (p *filterParser) fieldCond(name string, v *jvalue) (*Expr, error) {
	f, ok := p.reg.Field(name)
	if !ok {
		return nil, errorf("filter", name, "unknown field %q", name)
	}
	if !f.Filterable {
		return nil, errorf("filter", f.Name, "field %q is not filterable", f.Name)
	}
	if isOperatorObject(v) {
		return p.ops(f, v)
	}
	return p.leaf(f, opEq, v)
}

// isOperatorObject reports whether v is an object with a key starting with
// "$" (an operator object rather than a literal).
func isOperatorObject(v *jvalue) bool {
	if v.kind != jObject {
		return false
	}
	for _, m := range v.obj {
		if strings.HasPrefix(m.key, "$") {
			return true
		}
	}
	return false
}

// ops parses an operator object {$op: value, ...} on field f; several
// operators are ANDed.
func (p *filterParser) ops(f Field, v *jvalue) (*Expr, error) {
	var (
		conds   []*Expr
		options *jvalue
		hasRe   bool
	)
	for _, m := range v.obj {
		if m.key == "$options" {
			options = m.val
		}
		if m.key == "$regex" {
			hasRe = true
		}
	}
	if options != nil && !hasRe {
		return nil, errorf("filter", f.Name, "field %q: $options needs a sibling $regex", f.Name)
	}
	for _, m := range v.obj {
		var (
			e   *Expr
			err error
		)
		switch m.key {
		case "$eq":
			e, err = p.leaf(f, opEq, m.val)
		case "$ne":
			e, err = p.leaf(f, opNe, m.val)
		case "$gt":
			e, err = p.leaf(f, opGt, m.val)
		case "$gte":
			e, err = p.leaf(f, opGte, m.val)
		case "$lt":
			e, err = p.leaf(f, opLt, m.val)
		case "$lte":
			e, err = p.leaf(f, opLte, m.val)
		case "$in":
			e, err = p.in(f, opIn, m.val)
		case "$nin":
			e, err = p.in(f, opNin, m.val)
		case "$regex":
			e, err = p.regex(f, m.val, options)
		case "$options":
			continue
		case "$exists":
			if m.val.kind != jBool {
				return nil, errorf("filter", f.Name, "field %q: $exists expects a boolean, got %s", f.Name, m.val.kind)
			}
			e, err = p.node(&Expr{op: opExists, field: f.Name, f: f, typed: true, val: m.val.b})
		case "$not":
			e, err = p.not(f, m.val)
		default:
			if !strings.HasPrefix(m.key, "$") {
				return nil, errorf("filter", f.Name, "field %q: cannot mix operators and field names in one condition (%q)", f.Name, m.key)
			}
			return nil, unsupported(f.Name, m.key)
		}
		if err != nil {
			return nil, err
		}
		conds = append(conds, e)
	}
	if len(conds) == 1 {
		return conds[0], nil
	}
	return p.node(&Expr{op: opAnd, kids: conds})
}

// not parses {$not: {...}} or {$not: "regex"}.
func (p *filterParser) not(f Field, v *jvalue) (*Expr, error) {
	var (
		inner *Expr
		err   error
	)
	switch {
	case v.kind == jString:
		inner, err = p.regex(f, v, nil)
	case isOperatorObject(v):
		inner, err = p.ops(f, v)
	default:
		return nil, errorf("filter", f.Name, "field %q: $not expects an operator object or a regular expression", f.Name)
	}
	if err != nil {
		return nil, err
	}
	return p.node(&Expr{op: opNot, field: f.Name, f: f, typed: true, kids: []*Expr{inner}})
}

// leaf parses a comparison of field f with a single value.
func (p *filterParser) leaf(f Field, o op, v *jvalue) (*Expr, error) {
	if v.kind == jNull && o != opEq && o != opNe {
		return nil, errorf("filter", f.Name, "field %q: %s does not accept null", f.Name, opNames[o])
	}
	val, err := fieldValue(f, opNames[o], v)
	if err != nil {
		return nil, err
	}
	return p.node(&Expr{op: o, field: f.Name, f: f, typed: true, val: val})
}

// in parses $in / $nin.
func (p *filterParser) in(f Field, o op, v *jvalue) (*Expr, error) {
	if v.kind != jArray {
		return nil, errorf("filter", f.Name, "field %q: %s expects an array, got %s", f.Name, opNames[o], v.kind)
	}
	if len(v.arr) > MaxInValues {
		return nil, errorf("filter", f.Name, "field %q: %s has more than %d values", f.Name, opNames[o], MaxInValues)
	}
	vals := make([]any, 0, len(v.arr))
	for _, el := range v.arr {
		val, err := fieldValue(f, opNames[o], el)
		if err != nil {
			return nil, err
		}
		vals = append(vals, val)
	}
	return p.node(&Expr{op: o, field: f.Name, f: f, typed: true, vals: vals})
}

// regex parses $regex (with its optional $options).
func (p *filterParser) regex(f Field, v, options *jvalue) (*Expr, error) {
	if !f.Type.textual() {
		return nil, errorf("filter", f.Name, "field %q: $regex needs a string field, %q is of type %s", f.Name, f.Name, f.Type)
	}
	if v.kind != jString {
		return nil, errorf("filter", f.Name, "field %q: $regex expects a string, got %s", f.Name, v.kind)
	}
	if len(v.s) > MaxRegexLen {
		return nil, errorf("filter", f.Name, "field %q: regular expression is longer than %d bytes", f.Name, MaxRegexLen)
	}
	fold := false
	if options != nil {
		if options.kind != jString || (options.s != "" && options.s != "i") {
			return nil, errorf("filter", f.Name, "field %q: $options supports only \"i\"", f.Name)
		}
		fold = options.s == "i"
	}
	re, err := compileRegex(v.s, fold)
	if err != nil {
		return nil, errorf("filter", f.Name, "field %q: invalid regular expression: %v", f.Name, err)
	}
	return p.node(&Expr{op: opRegex, field: f.Name, f: f, typed: true, re: re, source: v.s, fold: fold})
}

// compileRegex compiles a Go (RE2) pattern, case-insensitive if fold.
func compileRegex(pattern string, fold bool) (*regexp.Regexp, error) {
	if fold {
		pattern = "(?i)" + pattern
	}
	return regexp.Compile(pattern)
}

// fieldValue checks v against the type of f and returns it normalised:
// string, float64, bool or nil.
func fieldValue(f Field, opName string, v *jvalue) (any, error) {
	if v.kind == jNull {
		return nil, nil
	}
	want := func(what string) error {
		return errorf("filter", f.Name, "field %q: %s expects %s, got %s", f.Name, opName, what, v.kind)
	}
	switch f.Type {
	case String, StringList:
		if v.kind != jString {
			return nil, want("a string")
		}
		return v.s, nil
	case Number:
		if v.kind != jNumber {
			return nil, want("a number")
		}
		return v.n, nil
	case Integer:
		if v.kind != jNumber {
			return nil, want("an integer")
		}
		if v.n != math.Trunc(v.n) {
			return nil, errorf("filter", f.Name, "field %q: %s expects an integer, got %v", f.Name, opName, v.n)
		}
		return v.n, nil
	case Bool:
		if v.kind != jBool {
			return nil, want("a boolean")
		}
		return v.b, nil
	case DateTime:
		if v.kind != jString {
			return nil, want("an RFC 3339 date-time string")
		}
		s, ok := normDateTime(v.s)
		if !ok {
			return nil, errorf("filter", f.Name, "field %q: invalid date-time %q (want RFC 3339, e.g. 2026-11-22T10:04:05Z, or yyyy-mm-dd)", f.Name, v.s)
		}
		return s, nil
	case Date:
		if v.kind != jString {
			return nil, want("a yyyy-mm-dd date string")
		}
		if !validDate(v.s) {
			return nil, errorf("filter", f.Name, "field %q: invalid date %q (want yyyy-mm-dd)", f.Name, v.s)
		}
		return v.s, nil
	case ID:
		if v.kind != jString {
			return nil, want("an id string")
		}
		s, ok := normID(v.s)
		if !ok {
			return nil, errorf("filter", f.Name, "field %q: invalid id %q (want 24 hexadecimal characters)", f.Name, v.s)
		}
		return s, nil
	}
	return nil, errorf("filter", f.Name, "field %q of type %s cannot be filtered", f.Name, f.Type)
}

// DateTimeLayout is the storage form of DateTime values.
const DateTimeLayout = "2006-01-02T15:04:05.000Z"

// normDateTime parses an RFC 3339 date-time (any offset, optional fraction)
// or a yyyy-mm-dd date (midnight UTC) and returns it in DateTimeLayout,
// truncated to milliseconds.
func normDateTime(s string) (string, bool) {
	var t time.Time
	var err error
	if len(s) == len("2006-01-02") {
		t, err = time.Parse("2006-01-02", s)
	} else {
		t, err = time.Parse(time.RFC3339Nano, s)
	}
	if err != nil {
		return "", false
	}
	t = t.UTC()
	if t.Year() < 0 || t.Year() > 9999 {
		return "", false
	}
	return t.Format(DateTimeLayout), true
}

// validDate reports whether s is a valid calendar date in yyyy-mm-dd form.
func validDate(s string) bool {
	if len(s) != len("2006-01-02") {
		return false
	}
	t, err := time.Parse("2006-01-02", s)
	return err == nil && t.Format("2006-01-02") == s
}

// normID returns s lower-cased if it is 24 hexadecimal characters.
func normID(s string) (string, bool) {
	if len(s) != 24 {
		return "", false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return "", false
		}
	}
	return strings.ToLower(s), true
}

// Eq returns the condition field == value, for code that builds filters
// (dataloaders). field must be a registry field name ("_id" means "id");
// a nil value matches a missing or null field. Integer and float values are
// converted to float64 and time.Time values to DateTimeLayout strings.
func Eq(field string, value any) *Expr {
	return &Expr{op: opEq, field: canonicalName(field), val: normValue(value)}
}

// In returns the condition that field equals one of values, for code that
// builds filters (dataloaders). With no values it matches nothing. See Eq
// for the conversion of values.
func In(field string, values ...any) *Expr {
	vals := make([]any, len(values))
	for i, v := range values {
		vals[i] = normValue(v)
	}
	return &Expr{op: opIn, field: canonicalName(field), vals: vals}
}

// Gt returns the condition field > value, for code that builds filters
// (keyset paging by id). See Eq for the conversion of values.
func Gt(field string, value any) *Expr {
	return &Expr{op: opGt, field: canonicalName(field), val: normValue(value)}
}

// And returns the conjunction of exprs. Nil operands (which match
// everything) are dropped; And of no non-nil operands is nil.
func And(exprs ...*Expr) *Expr {
	var kids []*Expr
	for _, e := range exprs {
		if e != nil {
			kids = append(kids, e)
		}
	}
	switch len(kids) {
	case 0:
		return nil
	case 1:
		return kids[0]
	}
	return &Expr{op: opAnd, kids: flattenAnd(kids)}
}

// normValue converts Go values used by code-built filters to the JSON value
// types the package works with.
func normValue(v any) any {
	switch x := v.(type) {
	case int:
		return float64(x)
	case int8:
		return float64(x)
	case int16:
		return float64(x)
	case int32:
		return float64(x)
	case int64:
		return float64(x)
	case uint:
		return float64(x)
	case uint8:
		return float64(x)
	case uint16:
		return float64(x)
	case uint32:
		return float64(x)
	case uint64:
		return float64(x)
	case float32:
		return float64(x)
	case time.Time:
		return x.UTC().Format(DateTimeLayout)
	}
	return v
}

// String returns the canonical JSON form of e: conditions on one field are
// gathered in one operator object ({"a":{"$gt":1,"$lt":5}}), a lone
// equality is written as a literal ({"a":1}), a conjunction is an implicit
// one where keys allow and {"$and":[...]} otherwise. Parsing the canonical
// form yields an equivalent expression with the same canonical form. A nil e
// is "{}".
func (e *Expr) String() string {
	if e == nil {
		return "{}"
	}
	var b strings.Builder
	e.writeDoc(&b)
	return b.String()
}

// writeDoc writes e as a filter object.
func (e *Expr) writeDoc(b *strings.Builder) {
	switch e.op {
	case opAnd:
		if groups, ok := e.groups(); ok {
			b.WriteByte('{')
			for i, g := range groups {
				if i > 0 {
					b.WriteByte(',')
				}
				g[0].writeMember(b, g)
			}
			b.WriteByte('}')
			return
		}
		fallthrough
	case opOr, opNor:
		b.WriteString(`{"`)
		b.WriteString(opNames[e.op])
		b.WriteString(`":[`)
		for i, k := range e.kids {
			if i > 0 {
				b.WriteByte(',')
			}
			k.writeDoc(b)
		}
		b.WriteString("]}")
	default:
		b.WriteByte('{')
		e.writeMember(b, []*Expr{e})
		b.WriteByte('}')
	}
}

// groups gathers the operands of a conjunction by object key: field
// conditions by field, logical operators by operator. ok is false if two
// operands would need the same key in one object.
func (e *Expr) groups() (groups [][]*Expr, ok bool) {
	index := map[string]int{}
	ops := map[string]bool{}
	for _, k := range e.kids {
		key := k.field
		switch k.op {
		case opAnd:
			return nil, false // not produced by the parser or And
		case opOr, opNor:
			key = opNames[k.op]
		default:
			opKey := key + "\x00" + opNames[k.op]
			if ops[opKey] {
				return nil, false
			}
			ops[opKey] = true
		}
		i, seen := index[key]
		switch {
		case !seen:
			index[key] = len(groups)
			groups = append(groups, []*Expr{k})
		case k.op == opOr || k.op == opNor:
			return nil, false
		default:
			groups[i] = append(groups[i], k)
		}
	}
	return groups, true
}

// writeMember writes the object member for a group of operands that share
// one key: a logical operator, or conditions on one field.
func (e *Expr) writeMember(b *strings.Builder, group []*Expr) {
	if e.op == opOr || e.op == opNor {
		var inner strings.Builder
		e.writeDoc(&inner)
		s := inner.String()
		b.WriteString(s[1 : len(s)-1]) // strip the braces
		return
	}
	writeJSON(b, e.field)
	b.WriteByte(':')
	if len(group) == 1 && e.op == opEq {
		writeJSON(b, e.val)
		return
	}
	b.WriteByte('{')
	for i, k := range group {
		if i > 0 {
			b.WriteByte(',')
		}
		k.writeOps(b)
	}
	b.WriteByte('}')
}

// writeOps writes the members of the operator object of a field condition.
// A conjunction inside $not (from {$not: {$gt: 1, $lt: 5}}) is written as
// the members of its operands.
func (e *Expr) writeOps(b *strings.Builder) {
	switch e.op {
	case opAnd:
		for i, k := range e.kids {
			if i > 0 {
				b.WriteByte(',')
			}
			k.writeOps(b)
		}
	case opNot:
		b.WriteString(`"$not":{`)
		e.kids[0].writeOps(b)
		b.WriteByte('}')
	case opRegex:
		b.WriteString(`"$regex":`)
		writeJSON(b, e.source)
		if e.fold {
			b.WriteString(`,"$options":"i"`)
		}
	case opIn, opNin:
		b.WriteByte('"')
		b.WriteString(opNames[e.op])
		b.WriteString(`":[`)
		for i, v := range e.vals {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSON(b, v)
		}
		b.WriteByte(']')
	default:
		b.WriteByte('"')
		b.WriteString(opNames[e.op])
		b.WriteString(`":`)
		writeJSON(b, e.val)
	}
}

// writeJSON writes v as JSON (without HTML escaping); values that cannot be
// encoded become null.
func writeJSON(b *strings.Builder, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		b.WriteString("null")
		return
	}
	b.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}
