package query

import (
	"regexp"
	"strings"
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
	// regexes and program count the $regex conditions of the filter and
	// the instructions of their compiled programs (MaxRegexConditions,
	// MaxRegexProgramTotal).
	regexes, program int
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
	p.regexes++
	if p.regexes > MaxRegexConditions {
		return nil, errorf("filter", f.Name, "filter has more than %d $regex conditions; the limit is %d per filter", MaxRegexConditions, MaxRegexConditions)
	}
	re, err := compileRegex(v.s, fold)
	if err != nil {
		return nil, errorf("filter", f.Name, "field %q: invalid regular expression: %v", f.Name, err)
	}
	n, err := regexProgram(re.String())
	if err != nil {
		return nil, errorf("filter", f.Name, "field %q: invalid regular expression: %v", f.Name, err)
	}
	if n > MaxRegexProgram {
		return nil, errorf("filter", f.Name, "field %q: regular expression is too complex: it compiles to %d instructions; the limit is %d per regular expression (use fewer or smaller repetitions)", f.Name, n, MaxRegexProgram)
	}
	p.program += n
	if p.program > MaxRegexProgramTotal {
		return nil, errorf("filter", f.Name, "the filter's regular expressions compile to %d instructions together; the limit is %d per filter", p.program, MaxRegexProgramTotal)
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
