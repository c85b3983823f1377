package fastpath

import (
	"sort"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"

	"github.com/okrgate/okrgate/graph"
)

// TestFastTablesCoverTheSchema requires a table entry (tables_gen.go) for
// every field of every object type below the roots: a field without one
// sends every selection that names it, and everything under it, to
// gqlgen's slower executor. Regenerate with `go run ./graph/fastgen`.
func TestFastTablesCoverTheSchema(t *testing.T) {
	schema := graph.NewExecutableSchema(graph.Config{}).Schema()
	var missing []string
	objects := 0
	for name, def := range schema.Types {
		if def.Kind != ast.Object || strings.HasPrefix(name, "__") ||
			def == schema.Query || def == schema.Mutation || def == schema.Subscription {
			continue
		}
		if name == "Entity" {
			continue // the federation plugin's own plumbing, never served
		}
		objects++
		if graph.Implementors(name) == nil {
			missing = append(missing, name)
			continue
		}
		for _, f := range def.Fields {
			if strings.HasPrefix(f.Name, "__") {
				continue
			}
			if fastKindOf(name, f.Name) == fastUnsupported {
				missing = append(missing, name+"."+f.Name)
			}
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("no fast path for %d of the schema's object types and fields: %s", len(missing), strings.Join(missing, ", "))
	}
	if objects < 50 {
		t.Fatalf("only %d object types found", objects)
	}
}
