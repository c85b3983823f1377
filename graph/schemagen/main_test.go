package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/okrgate/okrgate/upstream"
)

// TestCommittedSchemaIsFresh fails when graph/schema/zz_filters.graphqls does
// not match the field registries: run `go run ./graph/schemagen` and then
// `go run github.com/99designs/gqlgen generate`.
func TestCommittedSchemaIsFresh(t *testing.T) {
	want, err := Render()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join("..", "..", Output))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is stale: run `go run ./graph/schemagen && go run ./graph/fastgen`", Output)
	}
}

// TestCommittedFieldsAreFresh fails when graph/schema/zz_fields.graphqls
// does not match the Go types: a scalar field added to upstream.Goal (or
// another derived type, fields.go) without running the generators.
func TestCommittedFieldsAreFresh(t *testing.T) {
	root := filepath.Join("..", "..")
	want, err := RenderFields(root)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(root, FieldsOutput))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is stale: run `go run ./graph/schemagen && go run github.com/99designs/gqlgen generate && go run ./graph/fastgen`", FieldsOutput)
	}
}

// TestDerivedTypesCoverTheGoTypes: every JSON field of a derived type's Go
// type is in its GraphQL type, hand-written or derived, or in its Omit
// with why. A field the generator cannot derive (a struct, a list of
// structs) must be written in the schema by hand; this names it.
func TestDerivedTypesCoverTheGoTypes(t *testing.T) {
	missing, err := Unexposed(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for typ, names := range missing {
		for _, n := range names {
			t.Errorf("%s.%s: a field of its Go type that is not scalar and not in the schema; declare it by hand in graph/schema or add it to Omit with why (graph/schemagen/fields.go)", typ, n)
		}
	}
}

// TestNoHandWrittenDerivedFields: no resource's GraphQL type declares by
// hand a field exactly as the generator derives it from the resource's Go
// type (a second copy to keep in step); the field is left to
// zz_fields.graphqls, and a hand-written declaration is kept only where it
// adds something (a description, ID!, a non-null input, arguments).
func TestNoHandWrittenDerivedFields(t *testing.T) {
	got, err := Redundant(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for typ, names := range got {
		for _, n := range names {
			t.Errorf("%s.%s is written by hand in graph/schema exactly as it is derived from its Go type: delete it and run go run ./graph/schemagen", typ, n)
		}
	}
}

// TestRedundantFindsPlanted: a planted hand-written copy of a derived field
// (Goal.externalSystem, as the generator writes it) is found.
func TestRedundantFindsPlanted(t *testing.T) {
	root := filepath.Join("..", "..")
	tmp := t.TempDir()
	if err := os.MkdirAll(filepath.Join(tmp, "graph", "schema"), 0o755); err != nil {
		t.Fatal(err)
	}
	paths, err := filepath.Glob(filepath.Join(root, "graph", "schema", "*.graphqls"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range append(paths, filepath.Join(root, "gqlgen.yml")) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, p)
		if err := os.WriteFile(filepath.Join(tmp, rel), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	planted := "extend type Goal {\n  externalSystem: String!\n}\n"
	if err := os.WriteFile(filepath.Join(tmp, "graph", "schema", "planted.graphqls"), []byte(planted), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Redundant(tmp)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(got["Goal"], "externalSystem") {
		t.Fatalf("Redundant = %v, want Goal.externalSystem found", got)
	}
}

// TestEveryResourceDerived: the GraphQL type of every resource
// (upstream.Resources) has its fields derived, or is in notDerived with
// why; and notDerived names only resource types.
func TestEveryResourceDerived(t *testing.T) {
	bound, err := bindings(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	derived, err := DerivedTypes(bound)
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, d := range derived {
		have[d.Type] = true
	}
	resourceTypes := map[string]bool{}
	for _, r := range upstream.Resources {
		if r.GraphQL == "" {
			continue
		}
		for _, typ := range append([]string{r.GraphQL}, r.Forms...) {
			resourceTypes[typ] = true
			if _, no := notDerived[typ]; !have[typ] && !no {
				t.Errorf("%s: a resource's GraphQL type whose fields are not derived; bind it to the resource's Item or list it in notDerived with why", typ)
			}
		}
	}
	for typ := range notDerived {
		if !resourceTypes[typ] {
			t.Errorf("notDerived names %s, which is no resource's GraphQL type", typ)
		}
	}
}
