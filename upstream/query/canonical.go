package query

import (
	"bytes"
	"encoding/json"
	"strings"
)

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
