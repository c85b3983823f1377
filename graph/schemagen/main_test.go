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
