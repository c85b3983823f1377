package query

import (
	"context"
	"strings"
)

// MatchContext is Match for code that filters many documents in memory: it
// returns ctx's error, and no match, once ctx is done, so that a deadline
// stops the scan between documents as it interrupts a SQL statement between
// rows. The work of one document is bounded by the filter's limits
// (MaxRegexProgramTotal and the lengths of text fields).
func (e *Expr) MatchContext(ctx context.Context, doc map[string]any) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	return e.Match(doc), nil
}

// Match reports whether doc, a JSON object decoded with encoding/json (numbers
// as float64), satisfies e. A nil e matches every document. Match agrees with
// the SQL that SQL produces; see Expr for the semantics.
func (e *Expr) Match(doc map[string]any) bool {
	if e == nil {
		return true
	}
	switch e.op {
	case opAnd:
		for _, k := range e.kids {
			if !k.Match(doc) {
				return false
			}
		}
		return true
	case opOr:
		for _, k := range e.kids {
			if k.Match(doc) {
				return true
			}
		}
		return false
	case opNor:
		for _, k := range e.kids {
			if k.Match(doc) {
				return false
			}
		}
		return true
	case opNot:
		return !e.kids[0].Match(doc)
	}
	v, present := lookup(doc, e.field)
	switch e.op {
	case opExists:
		if e.typed && e.f.Column != "" {
			present = v != nil // a column cannot tell missing from null
		}
		return present == e.val
	case opEq:
		if e.val == nil {
			return v == nil
		}
		return anyElem(v, func(x any) bool { c, ok := compare(x, e.val); return ok && c == 0 })
	case opNe:
		return !(&Expr{op: opEq, field: e.field, f: e.f, typed: e.typed, val: e.val}).Match(doc)
	case opGt, opGte, opLt, opLte:
		return anyElem(v, func(x any) bool {
			c, ok := compare(x, e.val)
			if !ok {
				return false
			}
			switch e.op {
			case opGt:
				return c > 0
			case opGte:
				return c >= 0
			case opLt:
				return c < 0
			}
			return c <= 0
		})
	case opIn:
		for _, want := range e.vals {
			if want == nil {
				if v == nil {
					return true
				}
				continue
			}
			if anyElem(v, func(x any) bool { c, ok := compare(x, want); return ok && c == 0 }) {
				return true
			}
		}
		return false
	case opNin:
		return !(&Expr{op: opIn, field: e.field, f: e.f, typed: e.typed, vals: e.vals}).Match(doc)
	case opRegex:
		return anyElem(v, func(x any) bool {
			s, ok := x.(string)
			return ok && e.re.MatchString(s)
		})
	}
	return false
}

// anyElem applies pred to v, or to each element of v if v is an array
// (MongoDB array semantics).
func anyElem(v any, pred func(any) bool) bool {
	if arr, ok := v.([]any); ok {
		for _, x := range arr {
			if pred(x) {
				return true
			}
		}
		return false
	}
	return pred(v)
}

// lookup returns the value at the dotted path name in doc and whether the
// key is present.
func lookup(doc map[string]any, name string) (any, bool) {
	var cur any = doc
	for {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		seg, rest, more := strings.Cut(name, ".")
		v, ok := m[seg]
		if !ok {
			return nil, false
		}
		if !more {
			return v, true
		}
		cur, name = v, rest
	}
}

// toFloat returns v as a float64 if it is a number of a Go numeric type.
func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case int32:
		return float64(x), true
	case float32:
		return float64(x), true
	}
	return 0, false
}

// compare compares two non-null JSON values of the same type. ok is false
// when they are not comparable (different types, nulls, arrays, objects).
func compare(a, b any) (c int, ok bool) {
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		if !ok {
			return 0, false
		}
		return strings.Compare(x, y), true
	case bool:
		y, ok := b.(bool)
		if !ok {
			return 0, false
		}
		return boolInt(x) - boolInt(y), true
	}
	x, ok1 := toFloat(a)
	y, ok2 := toFloat(b)
	if !ok1 || !ok2 {
		return 0, false
	}
	switch {
	case x < y:
		return -1, true
	case x > y:
		return 1, true
	}
	return 0, true
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Less returns a comparison function that orders documents as OrderBy does:
// by each key in turn, missing values before null values before all others
// (ascending; a descending key reverses this), numbers and booleans (as 0
// and 1) before strings, strings bytewise; then by "id" ascending unless id
// is a key. Use it with sort.SliceStable or slices.SortStableFunc.
func Less(keys []SortKey) func(a, b map[string]any) bool {
	keys = append([]SortKey(nil), keys...)
	hasID := false
	for i := range keys {
		keys[i].Field = canonicalName(keys[i].Field)
		if keys[i].Field == "id" {
			hasID = true
		}
	}
	if !hasID {
		keys = append(keys, SortKey{Field: "id"})
	}
	return func(a, b map[string]any) bool {
		for _, k := range keys {
			va, pa := lookup(a, k.Field)
			vb, pb := lookup(b, k.Field)
			c := sortCompare(va, pa, vb, pb)
			if c == 0 {
				continue
			}
			if k.Desc {
				return c > 0
			}
			return c < 0
		}
		return false
	}
}

// sortRank orders values of different kinds: missing, null, numbers and
// booleans, strings, others.
func sortRank(v any, present bool) int {
	if !present {
		return 0
	}
	switch v.(type) {
	case nil:
		return 1
	case string:
		return 3
	case bool:
		return 2
	}
	if _, ok := toFloat(v); ok {
		return 2
	}
	return 4
}

func sortCompare(a any, pa bool, b any, pb bool) int {
	ra, rb := sortRank(a, pa), sortRank(b, pb)
	if ra != rb {
		return ra - rb
	}
	switch ra {
	case 2:
		x, y := sortNumber(a), sortNumber(b)
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
	case 3:
		return strings.Compare(a.(string), b.(string))
	}
	return 0
}

func sortNumber(v any) float64 {
	if b, ok := v.(bool); ok {
		return float64(boolInt(b))
	}
	f, _ := toFloat(v)
	return f
}
