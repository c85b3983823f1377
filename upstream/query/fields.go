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
	return parseFields(&fieldsParser{src: src}, reg)
}

// ParseFieldsIgnoring parses src as ParseFields does, except that a name
// reg does not have (with its braced sub-list, if any) is left out of the
// projection instead of refused, and its dotted path ("displayName",
// "metrics.nosuch") is returned in ignored, in the order given. It is the
// platform's reading of a projection: a name its objects lack selects
// nothing. Syntax errors, and sub-fields of a field that has none, are still
// errors.
func ParseFieldsIgnoring(reg *Registry, src string) (p Projection, ignored []string, err error) {
	fp := &fieldsParser{src: src, ignored: &ignored}
	p, err = parseFields(fp, reg)
	if err != nil {
		return nil, nil, err
	}
	return p, ignored, nil
}

func parseFields(p *fieldsParser, reg *Registry) (Projection, error) {
	if strings.TrimSpace(p.src) == "" {
		return nil, nil
	}
	if len(p.src) > MaxFieldsLen {
		return nil, errorf("fields", "", "fields is longer than %d bytes", MaxFieldsLen)
	}
	proj, err := p.list(reg, "", 0)
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
	// ignored, when not nil, collects the paths of unknown names, which
	// are then left out rather than refused (ParseFieldsIgnoring).
	ignored *[]string
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

// list parses name[{...}] (, name[{...}])* against reg, at the dotted path
// prefix (the names enclosing it, for the ignored paths). It stops before a
// '}' or at the end of input. A nil reg, inside an ignored name, knows no
// name: its list is parsed for syntax only.
func (p *fieldsParser) list(reg *Registry, prefix string, depth int) (Projection, error) {
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
		known := isField || reg != nil && reg.parents[name]
		if !known && p.ignored == nil {
			return nil, errorf("fields", name, "unknown field %q", name)
		}
		if !known && reg != nil {
			*p.ignored = append(*p.ignored, prefix+name)
		}
		p.skipSpace()
		var sub Projection
		if p.pos < len(p.src) && p.src[p.pos] == '{' {
			if known && (!isField || f.Sub == nil) {
				return nil, errorf("fields", name, "field %q has no sub-fields to select", name)
			}
			if depth+1 > MaxFieldsDepth {
				return nil, p.errorf("fields are nested deeper than %d levels", MaxFieldsDepth)
			}
			p.pos++
			var err error
			if sub, err = p.list(f.Sub, prefix+name+".", depth+1); err != nil {
				return nil, err
			}
			if p.pos >= len(p.src) || p.src[p.pos] != '}' {
				return nil, p.errorf("missing '}' after the sub-fields of %q", name)
			}
			p.pos++
			p.skipSpace()
		}
		if known {
			proj.add(name, sub)
		}
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
