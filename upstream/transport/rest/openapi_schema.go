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

// shape is how an answer writes a type: whole, or as a fields= projection
// (query.Projection.Apply) leaves it.
type shape int

const (
	whole shape = iota
	// projected: id and accountId (when the object has them) and the
	// fields named, at every depth: no other property is certain.
	projected
	// projectedItems: a page ({items, totalCount, ...}) whose items are
	// projected; the page's own properties are whole.
	projectedItems
)

// ref returns the schema of t written whole: a $ref for named structs
// (defined once in components), inline otherwise.
func (g *oaGen) ref(t reflect.Type) map[string]any { return g.schema(t, whole) }

// schema returns the schema of t in the shape sh. A projected named struct
// is its own component, named with the suffix "Projection".
func (g *oaGen) schema(t reflect.Type, sh shape) map[string]any {
	switch t.Kind() {
	case reflect.Pointer:
		inner := g.schema(t.Elem(), sh)
		return nullable(inner)
	case reflect.Struct:
		if t.Name() == "" {
			return g.object(t, sh)
		}
		name := schemaName(t)
		if sh != whole {
			name += "Projection"
		}
		if _, ok := g.schemas[name]; !ok {
			g.schemas[name] = map[string]any{} // placeholder against recursion
			g.schemas[name] = g.object(t, sh)
		}
		return map[string]any{"$ref": "#/components/schemas/" + name}
	case reflect.Slice, reflect.Array:
		return map[string]any{"type": []string{"array", "null"}, "items": g.schema(t.Elem(), sh)}
	case reflect.Map:
		return map[string]any{"type": []string{"object", "null"}, "additionalProperties": g.schema(t.Elem(), sh)}
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

// isPage reports whether t is a page: a struct with an items list.
func isPage(t reflect.Type) bool {
	if t.Kind() != reflect.Struct {
		return false
	}
	f, ok := t.FieldByName("Items")
	return ok && f.Tag.Get("json") == "items" && f.Type.Kind() == reflect.Slice
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

// object is the schema of a struct in the shape sh: its JSON fields
// (embedded structs flattened), each described by upstream.FieldDoc.
// Required are, on a type that travels in request bodies, the fields
// upstream.RequiredInputFields names; on a response type written whole,
// every field the JSON encoding always writes (no omitempty): what a full
// answer carries; on a projection, only id and accountId (when always
// written), which query.Projection.Apply keeps at every depth.
func (g *oaGen) object(t reflect.Type, sh shape) map[string]any {
	props := map[string]any{}
	var always []string
	g.fields(t, t, props, &always, sh)
	desc := typeDoc(t)
	req := always
	switch {
	case sh == projected:
		req = slices.DeleteFunc(always, func(name string) bool { return name != "id" && name != "accountId" })
		desc += " As a fields= projection answers it: id and accountId, and only the fields named (nested objects likewise)."
	case sh == projectedItems:
		desc += " Its items as a fields= projection answers them."
	case g.inputs[t]:
		req = upstream.RequiredInputFields(t.Name())
	}
	s := map[string]any{"type": "object", "properties": props, "description": desc}
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

// fields adds the JSON fields of t (of the schema owner, in the shape sh)
// to props and the names the encoding always writes to always.
func (g *oaGen) fields(owner, t reflect.Type, props map[string]any, always *[]string, sh shape) {
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
				g.fields(owner, ft, props, always, sh)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		inner := sh
		if sh == projectedItems {
			inner = whole
			if name == "items" {
				inner = projected
			}
		}
		p := g.schema(f.Type, inner)
		if g.inputs[owner] && sh == whole {
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
