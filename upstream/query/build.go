package query

import "time"

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
