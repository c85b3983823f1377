package resolvers_test

import (
	"sort"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"

	"github.com/okrgate/okrgate/resolvers"
	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/seed"
)

// TestEveryFieldResolves builds, from the executable schema, one query per
// Query root field that needs no arguments, selecting every field of what it
// returns that needs no arguments, two object levels deep (so every edge of
// those types runs), and runs each as the admin and as a member on a dataset
// with every kind of item. No field may fail, whatever its type: a new field
// with a broken resolver or a JSON value that does not marshal fails here.
func TestEveryFieldResolves(t *testing.T) {
	o := everyKindFixture(t, "everyfield")
	nonEmpty := 0
	for _, q := range everyFieldQueries(t) {
		for who, token := range map[string]string{"admin": o.token, "member": o.memberToken} {
			r := o.doAs(t, token, q, nil)
			if len(r.Errors) > 0 {
				t.Errorf("as %s: %v\nquery: %s", who, r.Errors, q)
				continue
			}
			if strings.Contains(string(r.Data), `"nodes":[{`) {
				nonEmpty++
			}
		}
	}
	// The dataset must put items under most connections, or the fields
	// below them would not run.
	if nonEmpty < 30 {
		t.Errorf("only %d answers hold nodes; the dataset leaves too many connections empty", nonEmpty)
	}
	t.Logf("every field below the root fields selected; %d admin/member answers hold nodes", nonEmpty)
}

// everyKindFixture returns an org fixture with every kind of item.
func everyKindFixture(t *testing.T, name string) *orgFixture {
	t.Helper()
	o := newOrgFixture(t, name)
	fillOrgContent(t, o, 2)
	if _, err := seed.Synthetic(o.ctx, o.store, seed.Options{Goals: 8, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	if _, err := o.store.CreateList(o.ctx, upstream.ListInput{Title: "Mine", ListType: "goal"}); err != nil {
		t.Fatal(err)
	}
	// A dashboard with an insight, a section header, settings and a source,
	// so that their fields have values to resolve.
	if _, err := o.store.CreateDashboard(o.ctx, upstream.DashboardInput{
		Name: "Full board", Source: &upstream.DashboardSource{SourceApplication: "okr", SourceID: "s1"},
		Insights: []upstream.InsightItem{{InsightID: "0123456789abcdef01234567", InsightName: "Velocity", Type: "chart", SizeX: 2, SizeY: 1,
			InsightRequiredEntities: []upstream.InsightRequiredEntity{{EntityName: "goals", DataSourceIDs: []string{"d1"}}},
			InsightSource:           upstream.InsightSource{SourceApplication: "okr"},
			InsightState:            upstream.InsightState{Status: "ready"}}},
		SectionHeaders: []upstream.SectionHeaderItem{{SectionHeaderID: "89abcdef0123456789abcdef", Type: "header", SizeX: 4}},
	}); err != nil {
		t.Fatal(err)
	}
	return o
}

// everyFieldQueries returns one query per Query root field that needs no
// arguments, selecting every field of what it returns that needs no
// arguments, two object levels deep (so every edge of those types runs).
func everyFieldQueries(t *testing.T) []string {
	t.Helper()
	schema, err := resolvers.ServedSchema() // without the federation's fields, which serve needs --federation for
	if err != nil {
		t.Fatal(err)
	}
	var roots []*ast.FieldDefinition
	for _, f := range schema.Query.Fields {
		if !strings.HasPrefix(f.Name, "__") && noRequiredArgs(f) {
			roots = append(roots, f)
		}
	}
	sort.Slice(roots, func(i, j int) bool { return roots[i].Name < roots[j].Name })
	if len(roots) < 20 {
		t.Fatalf("only %d argument-free root fields", len(roots))
	}
	var out []string
	for _, f := range roots {
		args := ""
		if f.Arguments.ForName("first") != nil {
			args = "(first: 3)"
		}
		out = append(out, "{ "+f.Name+args+selection(schema, f.Type, 0)+" }")
	}
	return out
}

func noRequiredArgs(f *ast.FieldDefinition) bool {
	for _, a := range f.Arguments {
		if a.Type.NonNull && a.DefaultValue == nil {
			return false
		}
	}
	return true
}

// selection selects every argument-free field of t: leaves by name,
// objects two levels deep (then only __typename), unions and interfaces by
// __typename and the id of each member.
func selection(schema *ast.Schema, t *ast.Type, depth int) string {
	def := schema.Types[t.Name()]
	switch def.Kind {
	case ast.Scalar, ast.Enum:
		return ""
	case ast.Union, ast.Interface:
		var b strings.Builder
		b.WriteString(" { __typename")
		for _, m := range schema.GetPossibleTypes(def) {
			if m.Fields.ForName("id") != nil {
				b.WriteString(" ... on " + m.Name + " { id }")
			}
		}
		b.WriteString(" }")
		return b.String()
	}
	if depth >= 3 {
		return " { __typename }"
	}
	var parts []string
	for _, f := range def.Fields {
		if strings.HasPrefix(f.Name, "__") || !noRequiredArgs(f) {
			continue
		}
		sub := f.Name
		if f.Arguments.ForName("first") != nil {
			sub += "(first: 2)"
		}
		parts = append(parts, sub+selection(schema, f.Type, depth+1))
	}
	return " { " + strings.Join(parts, " ") + " }"
}
