package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
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
