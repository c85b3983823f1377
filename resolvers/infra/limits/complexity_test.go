package limits

import (
	"reflect"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"

	"github.com/okrgate/okrgate/graph"
)

// TestEveryListEdgeHasACost: every field that returns a list of objects
// has a cost function (a page size or a per-parent estimate), so no edge's
// fan-out is counted as 1.
func TestEveryListEdgeHasACost(t *testing.T) {
	var cfg graph.Config
	SetComplexity(&cfg)
	schema := graph.NewExecutableSchema(cfg).Schema()
	root := reflect.ValueOf(cfg.Complexity)
	for _, def := range schema.Types {
		if def.Kind != ast.Object || strings.HasPrefix(def.Name, "__") || def.Name == "Entity" {
			continue // Entity: the federation plugin's own plumbing, never served (schema.go)
		}
		for _, f := range def.Fields {
			if f.Type.Elem == nil || strings.HasPrefix(f.Name, "__") {
				continue
			}
			if def.Name == "Query" && f.Name == "_entities" {
				if graph.EntitiesComplexity(&cfg.Complexity) == nil {
					t.Errorf("Query._entities has no cost function in complexity.go")
				}
				continue
			}
			elem := f.Type.Elem
			for elem.Elem != nil {
				elem = elem.Elem
			}
			if k := schema.Types[elem.NamedType].Kind; k == ast.Scalar || k == ast.Enum {
				continue
			}
			if isPageOf(def.Name) && (f.Name == "nodes" || f.Name == "edges" || f.Name == "items") {
				continue // a connection's page: its field's cost multiplies by first
			}
			typ := root.FieldByName(def.Name)
			fn := typ.FieldByName(strings.ToUpper(f.Name[:1]) + f.Name[1:])
			if !typ.IsValid() || !fn.IsValid() || fn.IsNil() {
				t.Errorf("%s.%s returns %s and has no cost function in complexity.go", def.Name, f.Name, f.Type)
			}
		}
	}
}

// isPageOf reports whether a type is one page of a connection.
func isPageOf(name string) bool {
	return strings.HasSuffix(name, "Connection") || strings.HasSuffix(name, "Page") || strings.HasSuffix(name, "Result")
}
