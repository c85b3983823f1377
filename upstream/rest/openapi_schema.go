package rest

import (
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/okrgate/okrgate/upstream"
)

// oaGen turns Go types into JSON Schemas (OpenAPI 3.1 dialect) under
// components/schemas.
type oaGen struct {
	schemas map[string]any
	// inputs are the struct types that travel in request bodies.
	inputs map[reflect.Type]bool
}

var pkgPathRE = regexp.MustCompile(`[A-Za-z0-9_./-]*\.`)

// schemaName is a type's component name: "Page[...upstream.Goal]" → "Page_Goal".
func schemaName(t reflect.Type) string {
	n := pkgPathRE.ReplaceAllString(t.Name(), "")
	n = strings.NewReplacer("[", "_", "]", "", ",", "_", " ", "").Replace(n)
	return strings.TrimSuffix(n, "_")
}

// ref returns the schema of t: a $ref for named structs (defined once in
// components), inline otherwise.
func (g *oaGen) ref(t reflect.Type) map[string]any {
	switch t.Kind() {
	case reflect.Pointer:
		inner := g.ref(t.Elem())
		return nullable(inner)
	case reflect.Struct:
		if t.Name() == "" {
			return g.object(t)
		}
		name := schemaName(t)
		if _, ok := g.schemas[name]; !ok {
			g.schemas[name] = map[string]any{} // placeholder against recursion
			g.schemas[name] = g.object(t)
		}
		return map[string]any{"$ref": "#/components/schemas/" + name}
	case reflect.Slice, reflect.Array:
		return map[string]any{"type": []string{"array", "null"}, "items": g.ref(t.Elem())}
	case reflect.Map:
		return map[string]any{"type": []string{"object", "null"}, "additionalProperties": g.ref(t.Elem())}
	case reflect.Interface:
		return map[string]any{}
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	}
	return map[string]any{}
}

// nullable allows null besides what s allows.
func nullable(s map[string]any) map[string]any {
	if _, isRef := s["$ref"]; isRef {
		return map[string]any{"anyOf": []any{s, map[string]any{"type": "null"}}}
	}
	switch t := s["type"].(type) {
	case string:
		s["type"] = []string{t, "null"}
	case []string:
		if !slices.Contains(t, "null") {
			s["type"] = append(t, "null")
		}
	}
	return s
}

// object is the schema of a struct: its JSON fields (embedded structs
// flattened), each described by upstream.FieldDoc. Required are, on a type
// that travels in request bodies, the fields upstream.RequiredInputFields
// names; on a response type, every field the JSON encoding always writes
// (no omitempty): what a full answer carries. A projection (fields=) answers
// id, accountId and the fields named, and says so in its parameter.
func (g *oaGen) object(t reflect.Type) map[string]any {
	props := map[string]any{}
	var always []string
	g.fields(t, t, props, &always)
	s := map[string]any{"type": "object", "properties": props, "description": typeDoc(t)}
	req := always
	if g.inputs[t] {
		req = upstream.RequiredInputFields(t.Name())
	}
	if len(req) > 0 {
		req = slices.Clone(req)
		slices.Sort(req)
		s["required"] = req
	}
	return s
}

// markInputs records t and every struct reachable from it as a request
// type.
func (g *oaGen) markInputs(t reflect.Type) {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		g.markInputs(t.Elem())
	case reflect.Struct:
		if g.inputs[t] {
			return
		}
		g.inputs[t] = true
		for i := 0; i < t.NumField(); i++ {
			g.markInputs(t.Field(i).Type)
		}
	}
}

// fields adds the JSON fields of t (of the schema owner) to props and the
// names the encoding always writes to always.
func (g *oaGen) fields(owner, t reflect.Type, props map[string]any, always *[]string) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				g.fields(owner, ft, props, always)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		p := g.ref(f.Type)
		if g.inputs[owner] {
			maxLength(p, f.Type, name)
		}
		p["description"] = upstream.FieldDoc(schemaName(owner), name)
		if ex := fieldExample(name, p); ex != nil {
			p["examples"] = []any{ex}
		}
		props[name] = p
		if !slices.Contains(strings.Split(opts, ","), "omitempty") && !slices.Contains(*always, name) {
			*always = append(*always, name)
		}
	}
}

// maxLength sets, on the schema p of a request field of type t named name,
// the field's length limit (upstream.TextLimit) if it is text or a list of
// text: what upstream.CheckTextLimits refuses beyond.
func maxLength(p map[string]any, t reflect.Type, name string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t.Kind() == reflect.String:
		p["maxLength"] = upstream.TextLimit(name)
	case (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) && t.Elem().Kind() == reflect.String:
		if items, ok := p["items"].(map[string]any); ok {
			items["maxLength"] = upstream.TextLimit(name)
		}
	}
}
