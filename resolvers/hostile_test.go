package resolvers_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/okrgate/okrgate/resolvers"
	"github.com/okrgate/okrgate/resolvers/infra/limits"
	"github.com/okrgate/okrgate/resolvers/transport/graphqlhttp"
	"github.com/okrgate/okrgate/upstream/infra/instrument"
)

// hostile is a document built to exhaust the server, and the code of its
// refusal.
type hostile struct {
	name, query string
	vars        map[string]any
	code        string
}

// fanOut nests levels of `employee { user { ... } }` under viewer, each
// level aliased ways times through a fragment: ways^levels paths from a
// document of a few hundred bytes.
func fanOut(ways, levels int) string {
	var b strings.Builder
	b.WriteString("{ viewer { ...L0 } }\n")
	for l := range levels {
		fmt.Fprintf(&b, "fragment L%d on User { id ", l)
		for w := range ways {
			if l == levels-1 {
				fmt.Fprintf(&b, "a%d: employee { id } ", w)
			} else {
				fmt.Fprintf(&b, "a%d: employee { user { ...L%d } } ", w, l+1)
			}
		}
		b.WriteString("}\n")
	}
	return b.String()
}

// hostileQueries are the shapes of docs/graphql.md's "Limits": each is
// refused before validation or execution.
func hostileQueries() []hostile {
	var aliases strings.Builder
	aliases.WriteString("{ ")
	for i := range 180 {
		fmt.Fprintf(&aliases, "a%d: goals(first: 100) { nodes { metrics { checkins { actual } } } } ", i)
	}
	aliases.WriteString("}")

	// Fragments that each spread the previous one ten times: 10⁸ fields.
	var explode strings.Builder
	explode.WriteString("{ ...F8 }\nfragment F0 on Query { __typename }\n")
	for l := 1; l <= 8; l++ {
		fmt.Fprintf(&explode, "fragment F%d on Query { %s}\n", l, strings.Repeat(fmt.Sprintf("...F%d ", l-1), 10))
	}
	// One wide fragment spread 20 times: 2,000 fields.
	wide := "{ " + strings.Repeat("...W ", 20) + "}\nfragment W on Query { " + strings.Repeat("__typename ", 100) + "}"
	ids := make([]any, 20_000)
	for i := range ids {
		ids[i] = fmt.Sprint(i)
	}
	var ops strings.Builder
	for i := range 50 {
		fmt.Fprintf(&ops, "query Q%d { __typename }\n", i)
	}
	return []hostile{
		{name: "180 aliases of a goal tree", query: aliases.String(), code: limits.CodeAliasesLimit},
		{name: "8-way aliased fan-out 6 levels deep over User.employee.user", query: fanOut(8, 6), code: limits.CodeAliasesLimit},
		{name: "9,000 __typename", query: "{ " + strings.Repeat("__typename ", 9000) + "}", code: limits.CodeFieldsLimit},
		{name: "wide fragment spread 20 times", query: wide, code: limits.CodeFieldsLimit},
		{name: "fragment spreads exploding to 10^8 fields", query: explode.String(), code: limits.CodeFieldsLimit},
		{name: "fragment cycle", query: "{ ...A }\nfragment A on Query { ...B }\nfragment B on Query { ...A }", code: resolvers.CodeValidationFailed},
		{name: "deep introspection", query: "{ __schema { types { " + strings.Repeat("fields { type { ", 8) + "name" + strings.Repeat(" } }", 8) + " } } }", code: resolvers.CodeValidationFailed},
		{name: "introspection nesting __Type lists", query: "{ __schema { types { fields { type { fields { type { fields { type { fields { name } } } } } } } } } }", code: resolvers.CodeValidationFailed},
		{name: "depth", query: "{ goals { nodes { " + strings.Repeat("children { ", 14) + "id" + strings.Repeat(" }", 14) + " } } }", code: limits.CodeDepthLimit},
		{name: "fan-out over lists", query: `{ goals(first: 100) { nodes { children { children { children { metrics { checkins { id actual } tasks { id } } } } } } } }`, code: resolvers.CodeComplexityLimit},
		{name: "60 directives", query: "{ __typename " + strings.Repeat("@skip(if: false) ", 60) + "}", code: limits.CodeDirectivesLimit},
		{name: "50 operations", query: ops.String(), code: limits.CodeOperationsLimit},
		{name: "20,000 variable values", query: `query($ids: [ID!]) { __typename }`, vars: map[string]any{"ids": ids}, code: limits.CodeVariablesLimit},
		{name: "20,000 tokens", query: "{ viewer { " + strings.Repeat("id ", 20000) + "} }", code: resolvers.CodeParseFailed},
	}
}

// TestHostileQueriesAreRefused: every hostile document is refused with its
// code, HTTP 200 under application/json (a GraphQL request error), no data,
// and no upstream call besides authentication.
func TestHostileQueriesAreRefused(t *testing.T) {
	f := newFixture(t, "hostile", graphqlhttp.Config{}, nil)
	defer f.srv.Close()
	for _, h := range hostileQueries() {
		t.Run(h.name, func(t *testing.T) {
			before := f.calls.Snapshot()
			r := f.do(t, h.query, h.vars)
			calls := instrument.Diff(before, f.calls.Snapshot())
			if r.code() != h.code || r.status != http.StatusOK || r.Data != nil {
				t.Fatalf("HTTP %d %+v (data %s), want 200 %s without data", r.status, r.Errors, r.Data, h.code)
			}
			if calls["Authenticate"] != 1 || len(calls) != 1 {
				t.Fatalf("upstream calls besides one authentication: %v", calls)
			}
			t.Logf("%s: %s", h.code, r.Errors[0].Message)
		})
	}
}

// TestWorstAcceptedShapesRun: documents just inside each limit run.
func TestWorstAcceptedShapesRun(t *testing.T) {
	f := newFixture(t, "accepted", graphqlhttp.Config{}, nil)
	defer f.srv.Close()
	var aliases strings.Builder
	aliases.WriteString("{ ")
	for i := range 100 {
		fmt.Fprintf(&aliases, "a%d: goals(first: 10) { nodes { id } } ", i)
	}
	aliases.WriteString("}")
	for name, q := range map[string]string{
		"GraphiQL's introspection query": introspectionQuery,
		"100 aliases":                    aliases.String(),
		"1,000 __typename":               "{ " + strings.Repeat("__typename ", 1000) + "}",
		"fan-out 4 ways deep 3":          fanOut(4, 3),
	} {
		if r := f.do(t, q, nil); len(r.Errors) > 0 {
			t.Errorf("%s: refused: %+v", name, r.Errors)
		}
	}
}

// BenchmarkHostileRefusal measures the time from request to refusal of each
// hostile document over HTTP on 127.0.0.1, the request body encoded once
// beforehand (docs/benchmarks/hostile-queries.md).
func BenchmarkHostileRefusal(b *testing.B) {
	f := newFixture(b, "hostile-bench", graphqlhttp.Config{}, nil)
	defer f.srv.Close()
	// The baseline: an accepted query of one field, over the same HTTP path.
	all := append([]hostile{{name: "baseline { __typename }", query: "{ __typename }"}}, hostileQueries()...)
	for _, h := range all {
		body, _ := json.Marshal(map[string]any{"query": h.query, "variables": h.vars})
		b.Run(strings.ReplaceAll(h.name, " ", "_"), func(b *testing.B) {
			for b.Loop() {
				req, _ := http.NewRequest(http.MethodPost, f.srv.URL, bytes.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+f.token)
				req.Header.Set("Content-Type", "application/json")
				if r := send(b, req); r.code() != h.code {
					b.Fatalf("%+v", r.Errors)
				}
			}
		})
	}
}

// introspectionQuery is graphql-js 16's getIntrospectionQuery with every
// option on, as GraphiQL sends it.
const introspectionQuery = `query IntrospectionQuery {
  __schema {
    description
    queryType { name kind }
    mutationType { name kind }
    subscriptionType { name kind }
    types { ...FullType }
    directives { name description isRepeatable locations args(includeDeprecated: true) { ...InputValue } }
  }
}
fragment FullType on __Type {
  kind name description specifiedByURL isOneOf
  fields(includeDeprecated: true) {
    name description
    args(includeDeprecated: true) { ...InputValue }
    type { ...TypeRef }
    isDeprecated deprecationReason
  }
  inputFields(includeDeprecated: true) { ...InputValue }
  interfaces { ...TypeRef }
  enumValues(includeDeprecated: true) { name description isDeprecated deprecationReason }
  possibleTypes { ...TypeRef }
}
fragment InputValue on __InputValue {
  name description type { ...TypeRef } defaultValue isDeprecated deprecationReason
}
fragment TypeRef on __Type {
  kind name
  ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name
    ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } } } }
}`
