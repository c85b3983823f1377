package query

import (
	"strconv"
	"strings"
)

// Limits of the fields parameter.
const (
	MaxFieldsLen   = 4 << 10 // bytes of a fields value
	MaxFieldsDepth = 10      // levels of nested braces
)

// Projection is a parsed fields value: field name → sub-projection, where a
// nil sub-projection means the whole field. A nil Projection means all
// fields. Dotted registry names are stored as nested projections:
// "closedStatus.status" becomes {"closedStatus": {"status": nil}}.
type Projection map[string]Projection

// ParseFields parses a fields value such as "id,name,metrics{id,name},closedStatus":
// a comma-separated list of field names, each optionally followed by a
// braced sub-list when the field embeds another resource (Field.Sub), nested
// to any depth up to MaxFieldsDepth. "_id" means "id". Names are validated
// against reg (the object prefix of dotted names, like "closedStatus", is
// accepted too); errors are *Error with Param "fields". An empty src yields
// nil (all fields).
func ParseFields(reg *Registry, src string) (Projection, error) {
	if strings.TrimSpace(src) == "" {
		return nil, nil
	}
	if len(src) > MaxFieldsLen {
		return nil, errorf("fields", "", "fields is longer than %d bytes", MaxFieldsLen)
	}
	p := &fieldsParser{src: src}
	proj, err := p.list(reg, 0)
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos < len(p.src) {
		return nil, p.errorf("unexpected %q", p.src[p.pos])
	}
	return proj, nil
}

type fieldsParser struct {
	src string
	pos int
}

func (p *fieldsParser) errorf(format string, args ...any) *Error {
	e := errorf("fields", "", format, args...)
	e.Message += " at offset " + strconv.Itoa(p.pos)
	return e
}

func (p *fieldsParser) skipSpace() {
	for p.pos < len(p.src) && (p.src[p.pos] == ' ' || p.src[p.pos] == '\t') {
		p.pos++
	}
}

// list parses name[{...}] (, name[{...}])* against reg. It stops before a
// '}' or at the end of input.
func (p *fieldsParser) list(reg *Registry, depth int) (Projection, error) {
	proj := Projection{}
	for {
		p.skipSpace()
		start := p.pos
		for p.pos < len(p.src) && (isIdentByte(p.src[p.pos]) || p.src[p.pos] == '.') {
			p.pos++
		}
		name := canonicalName(p.src[start:p.pos])
		if name == "" {
			if p.pos < len(p.src) {
				return nil, p.errorf("unexpected %q, want a field name", p.src[p.pos])
			}
			return nil, p.errorf("unexpected end of input, want a field name")
		}
		f, isField := reg.Field(name)
		if !isField && !(reg != nil && reg.parents[name]) {
			return nil, errorf("fields", name, "unknown field %q", name)
		}
		p.skipSpace()
		var sub Projection
		if p.pos < len(p.src) && p.src[p.pos] == '{' {
			if !isField || f.Sub == nil {
				return nil, errorf("fields", name, "field %q has no sub-fields to select", name)
			}
			if depth+1 > MaxFieldsDepth {
				return nil, p.errorf("fields are nested deeper than %d levels", MaxFieldsDepth)
			}
			p.pos++
			var err error
			if sub, err = p.list(f.Sub, depth+1); err != nil {
				return nil, err
			}
			if p.pos >= len(p.src) || p.src[p.pos] != '}' {
				return nil, p.errorf("missing '}' after the sub-fields of %q", name)
			}
			p.pos++
			p.skipSpace()
		}
		proj.add(name, sub)
		if p.pos >= len(p.src) || p.src[p.pos] == '}' {
			return proj, nil
		}
		if p.src[p.pos] != ',' {
			return nil, p.errorf("unexpected %q, want ','", p.src[p.pos])
		}
		p.pos++
	}
}

// add merges the projection of the dotted path name with sub-projection sub
// into p. A whole field wins over partial selections of it.
func (p Projection) add(name string, sub Projection) {
	head, rest, dotted := strings.Cut(name, ".")
	cur, exists := p[head]
	if exists && cur == nil {
		return // already whole
	}
	if !dotted && sub == nil {
		p[head] = nil
		return
	}
	if !exists {
		cur = Projection{}
		p[head] = cur
	}
	if dotted {
		cur.add(rest, sub)
		return
	}
	for k, v := range sub {
		cur.add(k, v)
	}
}

// Has reports whether field (a registry name, possibly dotted) is selected,
// in whole or in part. A nil p selects every field; "id" and "accountId" are
// always selected.
func (p Projection) Has(field string) bool {
	field = canonicalName(field)
	if p == nil || field == "id" || field == "accountId" {
		return true
	}
	for {
		head, rest, dotted := strings.Cut(field, ".")
		sub, ok := p[head]
		if !ok {
			return false
		}
		if sub == nil || !dotted {
			return true
		}
		p, field = sub, rest
	}
}

// Apply returns a copy of doc that keeps only the selected keys, plus "id"
// and "accountId" when present. Sub-projections apply to nested objects and
// to the objects in arrays (and keep their "id" and "accountId" too). A nil
// p returns doc itself. Apply does not modify doc.
func (p Projection) Apply(doc map[string]any) map[string]any {
	if p == nil || doc == nil {
		return doc
	}
	out := make(map[string]any, len(p)+2)
	for _, k := range [...]string{"id", "accountId"} {
		if v, ok := doc[k]; ok {
			out[k] = v
		}
	}
	for k, sub := range p {
		if v, ok := doc[k]; ok {
			out[k] = sub.applyValue(v)
		}
	}
	return out
}

// applyValue applies p to an object, or to each object of an array.
func (p Projection) applyValue(v any) any {
	if p == nil {
		return v
	}
	switch x := v.(type) {
	case map[string]any:
		return p.Apply(x)
	case []any:
		out := make([]any, len(x))
		for i, el := range x {
			out[i] = p.applyValue(el)
		}
		return out
	}
	return v
}
