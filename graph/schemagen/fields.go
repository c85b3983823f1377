package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/goccy/go-yaml"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"

	"github.com/okrgate/okrgate/upstream"
)

// FieldsOutput is the generated file of derived fields, relative to the
// module root.
const FieldsOutput = "graph/schema/zz_fields.graphqls"

// Derived is a GraphQL object or input type whose scalar fields are
// derived from the Go type gqlgen.yml binds it to: every exported field
// with a JSON name and a scalar type (string, bool, int, float64, a
// pointer to one, []string, time.Time) that the hand-written schema does
// not declare on the type is added to it by `extend type` or `extend
// input` in FieldsOutput. A hand-written declaration wins: it carries a
// description, a non-null input or another GraphQL type (ID!). So adding
// a scalar field to upstream.Goal, GoalInput and GoalPatch adds it to
// GraphQL's Goal, CreateGoalInput and UpdateGoalInput.
type Derived struct {
	Type  string       // the GraphQL type
	Go    reflect.Type // the Go type gqlgen.yml binds it to
	Input bool         // an input type: every derived field is optional
	// Omit are JSON names of scalar fields deliberately not in the
	// GraphQL type, each with why.
	Omit map[string]string
}

// omits are, per GraphQL type, the JSON names of scalar or structured
// fields of its Go type deliberately not in it, each with why.
var omits = map[string]map[string]string{
	"CreateMetricInput": restOnly("settings"),
	"UpdateMetricInput": restOnly("settings"),
	"CreateSessionInput": {
		"demo":   "demo sessions hold the sample data an account starts with; REST's import creates them, GraphQL clients do not",
		"access": restOnlyWhy, "cadence": restOnlyWhy, "cadenceStart": restOnlyWhy, "workflow": restOnlyWhy,
	},
	"UpdateSessionInput": restOnly("access", "cadence", "cadenceStart", "workflow"),
	"Role": {
		"teamId":    "set only on the answers of the role mappings (GET /api/v1/roles/account/mapping/), which GraphQL does not serve",
		"mappingId": "set only on the answers of the role mappings (GET /api/v1/roles/account/mapping/), which GraphQL does not serve",
	},
	"Team": {
		"managerInfo":         "the REST view's embedded manager; GraphQL resolves manager as a User",
		"membersInfo":         "the REST view's embedded members; GraphQL resolves members as Users",
		"ExternalTeamMapping": restViewWhy, "mentions": restViewWhy, "tags": restViewWhy,
	},
	"User": {
		"identities": restViewWhy, "notificationSettings": restViewWhy, "pictureInfo": restViewWhy,
		"userSettings": "free-form JSON the web app keeps per user; GraphQL has no JSON scalar",
	},
	"CreateAnnouncementInput": {
		"authorID": "GraphQL writes an announcement as the caller; only the contract's REST body names another author (spelled authorID)",
	},
}

// notDerived are the GraphQL types of upstream.Resources whose fields are
// not derived from the resource's Go types, each with why:
// TestEveryResourceDerived fails on a resource type in neither.
var notDerived = map[string]string{
	"Tag": "the tag as embedded in items (upstream.Tag); the listing's TagDetail, a form of the resource, is derived",
}

// DerivedTypes returns the types whose scalar fields are derived, from the
// one description of the resources (upstream.Resources): each resource's
// GraphQL object type and forms bound in gqlgen.yml (bound: GraphQL type to
// Go type path) to its Item, and the inputs Create<GraphQL>Input and
// Update<GraphQL>Input of its Input and Patch. A resource type bound to
// another Go type is derived from none and listed in notDerived.
func DerivedTypes(bound map[string]string) ([]Derived, error) {
	var out []Derived
	add := func(typ string, t reflect.Type, input bool) error {
		want := t.PkgPath() + "." + t.Name()
		if got := bound[typ]; got != want {
			return fmt.Errorf("%s: gqlgen.yml binds %q, upstream.Resources says %q", typ, got, want)
		}
		out = append(out, Derived{Type: typ, Go: t, Input: input, Omit: omits[typ]})
		return nil
	}
	for _, r := range upstream.Resources {
		if r.GraphQL == "" {
			continue
		}
		for _, typ := range append([]string{r.GraphQL}, r.Forms...) {
			if _, no := notDerived[typ]; no {
				continue
			}
			if err := add(typ, r.Item, false); err != nil {
				return nil, err
			}
		}
		if r.Input != nil {
			if err := add("Create"+r.GraphQL+"Input", r.Input, true); err != nil {
				return nil, err
			}
		}
		if r.Patch != nil {
			if err := add("Update"+r.GraphQL+"Input", r.Patch, true); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// restOnlyWhy is why a structured input field is left out of GraphQL: it
// has no GraphQL input type yet, so only REST writes it.
const restOnlyWhy = "structured; no GraphQL input type yet, so only REST writes it"

// restViewWhy is why a structured field of an item is left out of its
// GraphQL type: only REST serves it.
const restViewWhy = "structured; no GraphQL type for it yet, so only REST serves it"

// restOnly returns an Omit of the structured fields names, each with
// restOnlyWhy.
func restOnly(names ...string) map[string]string {
	m := make(map[string]string, len(names))
	for _, n := range names {
		m[n] = restOnlyWhy
	}
	return m
}

// scalarType returns the GraphQL type of a Go field type, for an object
// (output) or an input, and false for a type that is not a scalar the
// generator derives.
func scalarType(t reflect.Type, input bool) (string, bool) {
	nonNull := "!"
	if input {
		nonNull = ""
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
		nonNull = ""
		if t.Kind() == reflect.Slice && input {
			// A patch's *[]string: the list, when sent, replaces the stored one.
			if t.Elem().Kind() == reflect.String {
				return "[String!]", true
			}
			return "", false
		}
	}
	if t == reflect.TypeFor[time.Time]() {
		return "DateTime" + nonNull, true
	}
	switch t.Kind() {
	case reflect.String:
		return "String" + nonNull, true
	case reflect.Bool:
		return "Boolean" + nonNull, true
	case reflect.Int, reflect.Int32, reflect.Int64:
		return "Int" + nonNull, true
	case reflect.Float32, reflect.Float64:
		return "Float" + nonNull, true
	case reflect.Slice:
		if t.Elem().Kind() == reflect.String {
			return "[String!]" + nonNull, true
		}
	}
	return "", false
}

// jsonName returns the JSON name of a struct field, "" for one JSON leaves
// out or an unexported one.
func jsonName(f reflect.StructField) string {
	if !f.IsExported() || f.Anonymous {
		return ""
	}
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	switch name {
	case "-":
		return ""
	case "":
		return f.Name
	}
	return name
}

// handWritten loads the hand-written schema files (graph/schema/*.graphqls
// but the generated zz_ files) under root, the module root.
func handWritten(root string) (*ast.SchemaDocument, error) {
	paths, err := filepath.Glob(filepath.Join(root, "graph", "schema", "*.graphqls"))
	if err != nil {
		return nil, err
	}
	var src []*ast.Source
	for _, p := range paths {
		if strings.HasPrefix(filepath.Base(p), "zz_") {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		src = append(src, &ast.Source{Name: p, Input: string(b)})
	}
	var all ast.SchemaDocument
	for _, s := range src {
		d, err := parser.ParseSchema(s)
		if err != nil {
			return nil, err
		}
		all.Merge(d)
	}
	return &all, nil
}

// declared returns the field names the hand-written document declares on
// typ, in definitions and extensions.
func declared(doc *ast.SchemaDocument, typ string) (map[string]bool, bool) {
	names := map[string]bool{}
	found := false
	for _, list := range []ast.DefinitionList{doc.Definitions, doc.Extensions} {
		for _, d := range list {
			if d.Name != typ {
				continue
			}
			found = true
			for _, f := range d.Fields {
				names[f.Name] = true
			}
		}
	}
	return names, found
}

// bindings returns gqlgen.yml's model bindings under root: GraphQL type to
// Go type path.
func bindings(root string) (map[string]string, error) {
	b, err := os.ReadFile(filepath.Join(root, "gqlgen.yml"))
	if err != nil {
		return nil, err
	}
	var cfg struct {
		Models map[string]struct {
			Model yaml.RawMessage `yaml:"model"`
		} `yaml:"models"`
	}
	if err := yaml.Unmarshal(b, &cfg); err != nil {
		return nil, fmt.Errorf("gqlgen.yml: %w", err)
	}
	out := map[string]string{}
	for name, m := range cfg.Models {
		var one string
		if err := yaml.Unmarshal(m.Model, &one); err == nil {
			out[name] = one
			continue
		}
		var many []string
		if err := yaml.Unmarshal(m.Model, &many); err == nil && len(many) > 0 {
			out[name] = many[0]
		}
	}
	return out, nil
}

// schemaAndDerived reads the hand-written schema below root and the types
// derived from the Go types gqlgen.yml binds: what RenderFields,
// Unexposed and Redundant each compare.
func schemaAndDerived(root string) (*ast.SchemaDocument, []Derived, error) {
	doc, err := handWritten(root)
	if err != nil {
		return nil, nil, err
	}
	bound, err := bindings(root)
	if err != nil {
		return nil, nil, err
	}
	derived, err := DerivedTypes(bound)
	if err != nil {
		return nil, nil, err
	}
	return doc, derived, nil
}

// RenderFields returns the generated file of derived fields, from the Go
// types and the hand-written schema under root.
func RenderFields(root string) ([]byte, error) {
	doc, derived, err := schemaAndDerived(root)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString("# Code generated by go run ./graph/schemagen from the Go types of upstream (graph/schemagen/fields.go). DO NOT EDIT.\n")
	b.WriteString("# The scalar fields of these types that the hand-written schema does not declare.\n")
	for _, d := range derived {
		have, ok := declared(doc, d.Type)
		if !ok {
			return nil, fmt.Errorf("%s: not declared in the hand-written schema", d.Type)
		}
		var lines []string
		for f := range d.Go.Fields() {
			name := jsonName(f)
			if name == "" || have[name] {
				continue
			}
			if _, omit := d.Omit[name]; omit {
				continue
			}
			gql, ok := scalarType(f.Type, d.Input)
			if !ok {
				continue
			}
			if strings.ContainsAny(name, "-. ") {
				return nil, fmt.Errorf("%s.%s: not a GraphQL name", d.Type, name)
			}
			lines = append(lines, fmt.Sprintf("  %s: %s\n", name, gql))
		}
		if len(lines) == 0 {
			continue
		}
		kind := "type"
		if d.Input {
			kind = "input"
		}
		fmt.Fprintf(&b, "\nextend %s %s {\n%s}\n", kind, d.Type, strings.Join(lines, ""))
	}
	return b.Bytes(), nil
}

// Unexposed returns, per derived type, the JSON names of the Go type's
// fields that are in neither the hand-written nor the derived schema nor
// Omit (the fields of a type the generator cannot derive, which must be
// written by hand): the guard of TestDerivedTypesCoverTheGoTypes.
func Unexposed(root string) (map[string][]string, error) {
	doc, derived, err := schemaAndDerived(root)
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for _, d := range derived {
		have, _ := declared(doc, d.Type)
		for f := range d.Go.Fields() {
			name := jsonName(f)
			if name == "" || have[name] {
				continue
			}
			if _, omit := d.Omit[name]; omit {
				continue
			}
			if _, ok := scalarType(f.Type, d.Input); ok {
				continue
			}
			out[d.Type] = append(out[d.Type], name)
		}
		slices.Sort(out[d.Type])
	}
	return out, nil
}

// Redundant returns, per derived type, the fields the hand-written schema
// declares exactly as the generator would derive them: a JSON field of the
// Go type declared with the derived GraphQL type and nothing more (no
// description, arguments or directives). Such a declaration is a second
// copy of the Go type to keep in step, so TestNoHandWrittenDerivedFields
// fails on one: delete it and let the generator write it.
func Redundant(root string) (map[string][]string, error) {
	doc, derived, err := schemaAndDerived(root)
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for _, d := range derived {
		goTypes := map[string]reflect.Type{}
		for f := range d.Go.Fields() {
			if name := jsonName(f); name != "" {
				goTypes[name] = f.Type
			}
		}
		for _, list := range []ast.DefinitionList{doc.Definitions, doc.Extensions} {
			for _, def := range list {
				if def.Name != d.Type {
					continue
				}
				for _, f := range def.Fields {
					t, ok := goTypes[f.Name]
					if !ok || f.Description != "" || len(f.Arguments) > 0 || len(f.Directives) > 0 || f.DefaultValue != nil {
						continue
					}
					if _, omit := d.Omit[f.Name]; omit {
						continue
					}
					if gql, ok := scalarType(t, d.Input); ok && gql == f.Type.String() {
						out[d.Type] = append(out[d.Type], f.Name)
					}
				}
			}
		}
		slices.Sort(out[d.Type])
	}
	return out, nil
}
