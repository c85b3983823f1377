package resolvers

import (
	"slices"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"

	"github.com/okrgate/okrgate/upstream"
)

// TestDecodeKeys: a selection's stored fields give their JSON keys, its
// edges the keys they read, fragments on another object type nothing; a
// field that is neither, a resolver field that needs the whole document, or
// a type without a table gives nil (whole documents).
func TestDecodeKeys(t *testing.T) {
	f := func(name string) *ast.Field { return &ast.Field{Name: name} }
	other := &ast.InlineFragment{TypeCondition: "Team", ObjectDefinition: &ast.Definition{Kind: ast.Object, Name: "Team"},
		SelectionSet: ast.SelectionSet{f("nonsense")}}
	iface := &ast.InlineFragment{TypeCondition: "Node", ObjectDefinition: &ast.Definition{Kind: ast.Interface, Name: "Node"},
		SelectionSet: ast.SelectionSet{f("dateFrom")}}
	got := decodeKeys[upstream.Goal](ast.SelectionSet{f("__typename"), f("name"), f("ownerIds"), f("children"), f("owners"), f("parent"), other, iface})
	want := []string{"id", "name", "ownerIds", "id", "ownerIds", "parentId", "parentType", "dateFrom"}
	if !slices.Equal(got, want) {
		t.Errorf("goal keys %v, want %v", got, want)
	}
	for name, keys := range map[string][]string{
		"unknown field":       decodeKeys[upstream.Goal](ast.SelectionSet{f("name"), f("nonsense")}),
		"whole-document edge": decodeKeys[upstream.User](ast.SelectionSet{f("name"), f("roles")}),
		"type without table":  decodeKeys[upstream.Team](ast.SelectionSet{f("name")}),
		"no selection":        decodeKeys[upstream.Goal](nil),
	} {
		if keys != nil {
			t.Errorf("%s: keys %v, want nil (whole documents)", name, keys)
		}
	}
}
