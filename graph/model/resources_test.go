package model_test

import (
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/codegen/config"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/okrgate/okrgate/graph"
	"github.com/okrgate/okrgate/graph/model"
	"github.com/okrgate/okrgate/upstream"
)

// unlisted are the GraphQL object types bound to a registry's Go type that
// are deliberately not in model.Resources: no filtered listing and no
// registry texts in the schema. Each says why.
var unlisted = map[string]string{
	"Permission":        "a grant is read by id (permission) and written, never listed with a filter",
	"DashboardTagUsage": "per tag, the dashboards carrying it (dashboardTagUsages): a summary, not a filtered listing",
}

// TestResourcesCoverTheRegistries: every GraphQL object type that gqlgen.yml
// binds to the Go type a field registry lists is in model.Resources (as a
// resource or one of its forms) with that registry, or in unlisted with a
// reason; every type of model.Resources is an object type of the schema
// with a filter input and an orderBy enum, and maps to its registry. So a
// new resource's type cannot be left out of the filter inputs or the
// schema's descriptions.
func TestResourcesCoverTheRegistries(t *testing.T) {
	t.Chdir("../..") // gqlgen.yml names its files from the module root
	cfg, err := config.LoadConfig("gqlgen.yml")
	if err != nil {
		t.Fatal(err)
	}
	schema := graph.NewExecutableSchema(graph.Config{}).Schema()
	const pkg = "github.com/okrgate/okrgate/upstream."
	checked := 0
	for reg, goType := range upstream.RegistryTypes() {
		var bound []string
		for name, entry := range cfg.Models {
			if def := schema.Types[name]; def != nil && def.Kind == ast.Object && slices.Contains(entry.Model, pkg+goType) {
				bound = append(bound, name)
			}
		}
		sort.Strings(bound)
		for _, name := range bound {
			checked++
			if why, ok := unlisted[name]; ok {
				if model.Registry(name) != nil {
					t.Errorf("%s is both in model.Resources and unlisted (%s)", name, why)
				}
				continue
			}
			if got := model.Registry(name); got != reg {
				t.Errorf("GraphQL type %s is bound to upstream.%s, listed by registry %q, but model.Registry(%q) is %v: add it to model.Resources (or to unlisted, saying why)",
					name, goType, reg.Resource(), name, got)
			}
		}
	}
	if checked < len(model.Resources) {
		t.Fatalf("only %d GraphQL types bound to a registry's Go type found; gqlgen.yml not read?", checked)
	}
	for _, r := range model.Resources {
		for _, name := range append([]string{r.Type}, r.Forms...) {
			if def := schema.Types[name]; def == nil || def.Kind != ast.Object {
				t.Errorf("model.Resources names %s, which is no object type of the schema", name)
			}
			if model.Registry(name) != r.Reg {
				t.Errorf("model.Registry(%q) is not the registry of its entry (listed twice?)", name)
			}
		}
		for _, generated := range []string{r.Type + "Filter", r.Type + "SortField", r.Type + "Order"} {
			if schema.Types[generated] == nil {
				t.Errorf("the schema has no %s: run go run ./graph/schemagen && go run ./graph/fastgen", generated)
			}
		}
	}
	for name := range unlisted {
		if schema.Types[name] == nil || !strings.Contains(strings.Join(cfg.Models[name].Model, " "), pkg) {
			t.Errorf("unlisted names %s, which is no GraphQL type bound to a type of package upstream", name)
		}
	}
}
