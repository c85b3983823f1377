package resolvers_test

import (
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"

	"github.com/okrgate/okrgate/resolvers"
)

// TestServedSchemaDescribed: every type, field, argument and enum value of
// the served schema has a description (the graphql-schema-linter step of
// .ci/run checks the same and the naming rules; this test needs no npm).
func TestServedSchemaDescribed(t *testing.T) {
	s, err := resolvers.ServedSchema()
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
	for _, def := range s.Types {
		if def.BuiltIn {
			continue
		}
		if def.Description == "" {
			missing = append(missing, def.Name)
		}
		for _, f := range def.Fields {
			if strings.HasPrefix(f.Name, "__") {
				continue // introspection, described by the spec
			}
			if f.Description == "" {
				missing = append(missing, def.Name+"."+f.Name)
			}
			for _, a := range f.Arguments {
				if a.Description == "" {
					missing = append(missing, def.Name+"."+f.Name+"("+a.Name+")")
				}
			}
		}
		for _, v := range def.EnumValues {
			if v.Description == "" {
				missing = append(missing, def.Name+"."+v.Name)
			}
		}
		if def.Kind == ast.Enum {
			for _, v := range def.EnumValues {
				if v.Directives.ForName("deprecated") == nil && v.Name != strings.ToUpper(v.Name) {
					missing = append(missing, def.Name+"."+v.Name+" (not ALL_CAPS)")
				}
			}
		}
	}
	if len(missing) > 0 {
		t.Fatalf("%d schema elements without a description: %v", len(missing), missing)
	}
}

// TestDeferAdvertised: @defer is in the schema (TestDeferIncremental shows
// how it is delivered); @stream is not served, so not advertised.
func TestDeferAdvertised(t *testing.T) {
	f := seeded(t, 10, 1)
	var d struct {
		Schema struct {
			Directives []struct{ Name string } `json:"directives"`
		} `json:"__schema"`
	}
	f.do(t, `{ __schema { directives { name } } }`, nil).mustData(t, &d)
	found := false
	for _, dir := range d.Schema.Directives {
		found = found || dir.Name == "defer"
		if dir.Name == "stream" {
			t.Fatal("@stream is advertised")
		}
	}
	if !found {
		t.Fatal("@defer is not advertised")
	}
	var v struct{ Viewer struct{ ID, Name string } }
	f.do(t, `{ viewer { id ... @defer { name } } }`, nil).mustData(t, &v)
	if v.Viewer.ID == "" || v.Viewer.Name == "" {
		t.Fatalf("a deferred fragment over application/json: %+v", v)
	}
}

// TestSortAndFilterSpellings: the ALL_CAPS sort values and camelCase filter
// fields, and their deprecated earlier spellings, mean the same.
func TestSortAndFilterSpellings(t *testing.T) {
	f := seeded(t, 10, 1)
	q := `query($o: [GoalOrder!]) { goals(first: 100, orderBy: $o, filter: {%s: {eq: "active"}}) { totalCount nodes { id } } }`
	var got []string
	for _, c := range []struct{ field, filter string }{{"CLOSED_STATUS_STATUS", "closedStatusStatus"}, {"closedStatus_status", "closedStatus_status"}} {
		var d struct {
			Goals struct {
				TotalCount int
				Nodes      []struct{ ID string }
			}
		}
		f.do(t, strings.Replace(q, "%s", c.filter, 1), map[string]any{"o": []map[string]any{{"field": c.field, "direction": "DESC"}, {"field": "NAME"}}}).mustData(t, &d)
		if d.Goals.TotalCount == 0 {
			t.Fatalf("%s: no goals", c.filter)
		}
		var ids []string
		for _, n := range d.Goals.Nodes {
			ids = append(ids, n.ID)
		}
		got = append(got, strings.Join(ids, ","))
	}
	if got[0] != got[1] {
		t.Fatalf("the spellings differ:\n%s\n%s", got[0], got[1])
	}
}
