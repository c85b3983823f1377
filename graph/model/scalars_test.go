package model_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"

	"github.com/okrgate/okrgate/graph"
)

// TestCustomScalarsSpecified: every custom scalar of the schema says what it
// serializes to (a description and @specifiedBy with a URL), and the code
// generator's mapping in docs/graphql.md and in CI's TypeScript client names
// each one.
func TestCustomScalarsSpecified(t *testing.T) {
	schema := graph.NewExecutableSchema(graph.Config{}).Schema()
	docs, err := os.ReadFile("../../docs/graphql.md")
	if err != nil {
		t.Fatal(err)
	}
	codegen, err := os.ReadFile("../../.ci/clients/ts/codegen.yml")
	if err != nil {
		t.Fatal(err)
	}
	var custom int
	for name, def := range schema.Types {
		if def.Kind != ast.Scalar || def.BuiltIn || strings.HasPrefix(name, "_") {
			continue
		}
		custom++
		if def.Description == "" {
			t.Errorf("scalar %s has no description", name)
		}
		spec := def.Directives.ForName("specifiedBy")
		if spec == nil || spec.Arguments.ForName("url") == nil || !strings.HasPrefix(spec.Arguments.ForName("url").Value.Raw, "https://") {
			t.Errorf("scalar %s has no @specifiedBy(url: \"https://...\")", name)
		}
		mapping := regexp.MustCompile(`(?m)^\s+` + name + `: (string|unknown|number|boolean)\s*$`)
		if !mapping.Match(docs) {
			t.Errorf("docs/graphql.md, \"Custom scalars\": the codegen block does not map %s", name)
		}
		if !mapping.Match(codegen) {
			t.Errorf(".ci/clients/ts/codegen.yml does not map %s", name)
		}
	}
	if custom < 3 {
		t.Errorf("found %d custom scalars, want Date, DateTime and JSON at least", custom)
	}
}
