package upstream_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"testing"

	"github.com/okrgate/okrgate/upstream"
)

// TestActionCatalogueComplete: every constant of type Action declared in
// actions.go is in the catalogue (actionInfo: KnownAction, Actions), so an
// action added for a new resource cannot be checked by the code yet missing
// from what roles, grants and GET /api/v1/permissions/actions offer.
func TestActionCatalogueComplete(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "actions.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			v := s.(*ast.ValueSpec)
			if id, ok := v.Type.(*ast.Ident); !ok || id.Name != "Action" {
				continue
			}
			for i, val := range v.Values {
				lit, ok := val.(*ast.BasicLit)
				if !ok || i >= len(v.Names) {
					continue
				}
				name, _ := strconv.Unquote(lit.Value)
				n++
				if !upstream.KnownAction(name) {
					t.Errorf("action %s (%s) is declared in actions.go but not in actionInfo: roles, grants and the permissions catalogue cannot name it", v.Names[i].Name, name)
				}
			}
		}
	}
	if n < 10 || n != len(upstream.Actions()) {
		t.Fatalf("actions.go declares %d actions, the catalogue lists %d", n, len(upstream.Actions()))
	}
}
