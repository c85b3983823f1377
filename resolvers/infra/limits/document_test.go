package limits_test

import (
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"

	"github.com/okrgate/okrgate/resolvers/infra/limits"
)

func parse(t *testing.T, q string) *ast.QueryDocument {
	t.Helper()
	doc, err := parser.ParseQuery(&ast.Source{Input: q})
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestDocumentLimitsExpandFragments: counts are of the document with every
// fragment spread expanded, so a fragment spread 8 times at each of 6
// levels counts 8⁶ fields; each limit answers its own code with the count
// and the limit, and a document within every limit passes.
func TestDocumentLimitsExpandFragments(t *testing.T) {
	var b strings.Builder
	b.WriteString("query { ...F0 }\n")
	for i := range 6 {
		b.WriteString("fragment F" + string(rune('0'+i)) + " on Query { ")
		for range 8 {
			b.WriteString("...F" + string(rune('0'+i+1)) + " ")
		}
		b.WriteString("}\n")
	}
	b.WriteString("fragment F6 on Query { __typename }\n")
	doc := parse(t, b.String())
	err := limits.DocumentLimits{Fields: 1000}.Check(doc)
	if err == nil || err.Extensions["code"] != limits.CodeFieldsLimit || err.Extensions["count"] != 262144 {
		t.Fatalf("8⁶ expanded fields: %v %v", err, err.Extensions)
	}
	if err := (limits.DocumentLimits{Fields: 262144}).Check(doc); err != nil {
		t.Fatalf("at the limit: %v", err)
	}
	for _, c := range []struct {
		q    string
		lim  limits.DocumentLimits
		code string
	}{
		{`{ a: __typename b: __typename c: __typename }`, limits.DocumentLimits{Aliases: 2}, limits.CodeAliasesLimit},
		{`{ __typename @skip(if: false) @include(if: true) }`, limits.DocumentLimits{Directives: 1}, limits.CodeDirectivesLimit},
		{`query A { __typename } query B { __typename }`, limits.DocumentLimits{Operations: 1}, limits.CodeOperationsLimit},
		{`{ ...A } fragment A on Query { ...B } fragment B on Query { __typename }`, limits.DocumentLimits{Fragments: 1}, limits.CodeFragmentsLimit},
		{`{ goals { nodes { children { id } } } }`, limits.DocumentLimits{Depth: 3}, limits.CodeDepthLimit},
	} {
		err := c.lim.Check(parse(t, c.q))
		if err == nil || err.Extensions["code"] != c.code {
			t.Errorf("%s: %v, want %s", c.q, err, c.code)
		}
	}
	// Introspection's own nesting does not count towards the depth.
	if err := (limits.DocumentLimits{Depth: 1}).Check(parse(t, `{ __schema { types { fields { type { name } } } } }`)); err != nil {
		t.Errorf("introspection: %v", err)
	}
}

// TestDocumentLimitsRefuseCycles: a fragment that spreads itself is refused
// while counting, before the validator would walk it.
func TestDocumentLimitsRefuseCycles(t *testing.T) {
	err := limits.DocumentLimits{Fields: 10}.Check(parse(t, `{ ...A } fragment A on Query { ...B } fragment B on Query { ...A }`))
	if err == nil || !strings.Contains(err.Message, "within itself") {
		t.Fatalf("a cycle: %v", err)
	}
}
