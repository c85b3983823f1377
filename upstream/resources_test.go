package upstream_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/okrgate/okrgate/upstream"
)

// TestResourcesDescribed: every entry of upstream.Resources is whole — a Go
// type, a registry of its own, actions of the catalogue, a table for a
// kind of versions, an item kind for its events — and no two entries
// claim the same registry, GraphQL type, kind or event type, so that what
// is derived from the description (docs/howto/add-resource.md) is derived
// once per resource.
func TestResourcesDescribed(t *testing.T) {
	regs, types, kinds, events := map[any]string{}, map[string]string{}, map[string]string{}, map[upstream.EventType]string{}
	claim := func(m map[string]string, key, name, what string) {
		if key == "" {
			return
		}
		if other, ok := m[key]; ok {
			t.Errorf("%s and %s both have the %s %q", other, name, what, key)
		}
		m[key] = name
	}
	for i, r := range upstream.Resources {
		if r.Item == nil || r.Fields == nil {
			t.Errorf("upstream.Resources[%d]: no Item or no Fields", i)
			continue
		}
		name := r.Item.Name()
		if other, ok := regs[r.Fields]; ok {
			t.Errorf("%s and %s share the registry %q", other, name, r.Fields.Resource())
		}
		regs[r.Fields] = name
		claim(types, r.GraphQL, name, "GraphQL type")
		for _, f := range r.Forms {
			claim(types, f, name, "GraphQL type")
		}
		claim(kinds, r.Kind, name, "kind")
		if r.Kind != "" && len(r.Tables) == 0 {
			t.Errorf("%s has versions of kind %q but no table to read them from", name, r.Kind)
		}
		if len(r.Actions) == 0 {
			t.Errorf("%s: no action protects it", name)
		}
		for _, a := range r.Actions {
			if !upstream.KnownAction(string(a)) {
				t.Errorf("%s: action %s is not in the catalogue (actions.go)", name, a)
			}
		}
		for _, e := range append(slices.Clone(r.Events), r.Deleted) {
			if e == "" {
				continue
			}
			if other, ok := events[e]; ok {
				t.Errorf("%s and %s both have the event type %s", other, name, e)
			}
			events[e] = name
		}
		if len(r.Events) > 0 && r.EventItem == upstream.EventItemNone {
			t.Errorf("%s has events but no EventItem: the feed and the live fan-out would hide them from every caller", name)
		}
		if r.Deleted != "" && !strings.HasSuffix(string(r.Deleted), ".deleted") {
			t.Errorf("%s: Deleted is %s, not a deletion", name, r.Deleted)
		}
		for _, tb := range r.Tables {
			if tb.Name == "" {
				t.Errorf("%s: a table without a name", name)
			}
		}
	}
	for _, k := range []string{upstream.KindGoal, upstream.KindMetric, upstream.KindTask, upstream.KindSession} {
		if _, ok := upstream.ResourceOfKind(k); !ok {
			t.Errorf("no resource has versions of kind %q", k)
		}
	}
}

// entity is what gqlgen's federation runtime holds the items of _entities
// as (fedruntime.Entity).
type entity interface{ IsEntity() }

// TestResourcesAreEntities: the Go type of every resource with a GraphQL
// type is a federation entity (entity.go), as the schema's @key on those
// types says.
func TestResourcesAreEntities(t *testing.T) {
	want := reflect.TypeFor[entity]()
	for _, r := range upstream.Resources {
		if r.GraphQL != "" && !r.Item.Implements(want) {
			t.Errorf("upstream.%s (GraphQL %s) has no IsEntity method (upstream/entity.go)", r.Item.Name(), r.GraphQL)
		}
	}
}

// TestEveryRegistryIsAResource: every field registry this package declares
// (query.NewRegistry in a file of upstream) is the Fields of a resource, so
// a new listable resource cannot have a registry and no description — the
// lists derived from Resources would all miss it.
func TestEveryRegistryIsAResource(t *testing.T) {
	described := map[string]bool{}
	for _, r := range upstream.Resources {
		described[r.Fields.Resource()] = true
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "NewRegistry" || len(call.Args) == 0 {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); !ok || x.Name != "query" {
				return true
			}
			lit, ok := call.Args[0].(*ast.BasicLit)
			if !ok {
				t.Errorf("%s: query.NewRegistry with a name that is not a literal", file)
				return true
			}
			name, _ := strconv.Unquote(lit.Value)
			found++
			if !described[name] {
				t.Errorf("%s declares the field registry %q, which is the Fields of no resource in upstream.Resources (resources.go)", file, name)
			}
			return true
		})
	}
	if found < len(upstream.Resources) {
		t.Fatalf("found %d registries in the files of upstream, fewer than the %d resources", found, len(upstream.Resources))
	}
}
