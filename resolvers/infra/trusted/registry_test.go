package trusted_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"

	"github.com/okrgate/okrgate/resolvers"
	"github.com/okrgate/okrgate/resolvers/infra/trusted"
)

func write(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// TestLoadManifests: graphql-codegen's persisted-documents.json (id →
// text) and an Apollo persisted query manifest load; each document is
// found by its id, by the SHA-256 of its text (with or without the
// "sha256:" prefix), and by its canonical form.
func TestLoadManifests(t *testing.T) {
	schema, err := resolvers.ServedSchema()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	a := "query A { sessions(first: 1) { totalCount } }"
	b := "query B($id: ID!) { session(id: $id) { id title } }"
	codegen := write(t, dir, "persisted-documents.json", `{"`+hash(a)+`": "`+a+`"}`)
	apollo := write(t, dir, "apollo.json", `{"format": "apollo-persisted-query-manifest", "version": 1,
		"operations": [{"id": "op-b", "name": "B", "type": "query", "body": "`+strings.ReplaceAll(b, `"`, `\"`)+`"}]}`)
	reg, err := trusted.Load(schema, codegen, apollo)
	if err != nil {
		t.Fatal(err)
	}
	if len(reg.Documents()) != 2 {
		t.Fatalf("%d documents, want 2", len(reg.Documents()))
	}
	for _, c := range []struct{ id, body string }{{hash(a), a}, {"sha256:" + hash(a), a}, {"op-b", b}, {hash(b), b}} {
		if d, ok := reg.Lookup(c.id); !ok || d.Body != c.body {
			t.Errorf("Lookup(%s) = %+v, %v", c.id, d, ok)
		}
	}
	if _, ok := reg.Lookup(hash("query C { __typename }")); ok {
		t.Error("an unregistered hash was found")
	}
	for text, want := range map[string]bool{
		"query B ($id: ID!) {\n  session(id: $id) {\n    id\n    title # printed by a client\n  }\n}": true,
		"query B($id: ID!) { session(id: $id) { __typename id title } __typename }":                   true,
		"query B($id: ID!) { session(id: $id) { title id } }":                                         true,
		"query B($id: ID!) { session(id: $id) { id title status } }":                                  false,
		"query C($id: ID!) { session(id: $id) { id title } }":                                         false,
		"query B($id: ID!) { session(id: $id) { id name: title } }":                                   false,
	} {
		doc, perr := parser.ParseQuery(&ast.Source{Input: text})
		if perr != nil {
			t.Fatal(perr)
		}
		if _, ok := reg.Match(doc); ok != want {
			t.Errorf("Match(%q) = %v, want %v", text, ok, want)
		}
	}
}

// TestLoadRefuses: an id naming two different documents, a document not
// valid against the schema, and an empty registry are errors.
func TestLoadRefuses(t *testing.T) {
	schema, err := resolvers.ServedSchema()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, c := range map[string]struct{ files [][2]string }{
		"two documents, one id": {[][2]string{{"a.json", `{"x": "query A { sessions { totalCount } }"}`}, {"b.json", `{"x": "query B { sessions { totalCount } }"}`}}},
		"not valid":             {[][2]string{{"c.graphql", "query C { nope }"}}},
		"empty":                 {[][2]string{{"d.json", `{}`}}},
	} {
		sub := filepath.Join(dir, strings.ReplaceAll(name, " ", "-"))
		if err := os.Mkdir(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range c.files {
			write(t, sub, f[0], f[1])
		}
		if _, err := trusted.Load(schema, sub); err == nil {
			t.Errorf("%s: loaded", name)
		}
	}
}

// TestCanonicalOrder: a document as graphql-codegen's client preset
// registers it (persisted-documents.json: selections, variables and
// directive arguments sorted, spacing collapsed) and the same document as
// the client sends it (source order) have one canonical form; a
// mutation's root fields, which run in order, keep theirs.
func TestCanonicalOrder(t *testing.T) {
	canonical := func(text string) string {
		t.Helper()
		doc, perr := parser.ParseQuery(&ast.Source{Input: text})
		if perr != nil {
			t.Fatal(perr)
		}
		return trusted.Canonical(doc)
	}
	for _, c := range []struct {
		sent, registered string
		same             bool
	}{
		{`query Tree($s: ID!, $a: Int) { session(id: $s) { title id goals(first: $a) @include(if: true) { name ... on Goal { id owners { ... on User { name } ... on Team { id } } } } } }`,
			`query Tree($a: Int, $s: ID!) { session(id: $s) { goals(first: $a) @include(if: true) { name ... on Goal { id owners { ... on Team { id } ... on User { name } } } } id title } }`, true},
		{`subscription Live($g: ID) { checkInCreated(goalId: $g, after: 0) { id actual checkInDate } }`,
			`subscription Live($g: ID) { checkInCreated(after: 0, goalId: $g) { actual checkInDate id } }`, true},
		{`query Frags { ...B ...A } fragment B on Query { sessions { totalCount } } fragment A on Query { viewer { email } }`,
			`fragment A on Query { viewer { email } } fragment B on Query { sessions { totalCount } } query Frags { ...A ...B }`, true},
		{`mutation Two { a: deleteTask(id: "1") { id } b: deleteTask(id: "2") { id } }`,
			`mutation Two { a: deleteTask(id: "1") { id } b: deleteTask(id: "2") { id } }`, true},
		{`mutation Two { b: deleteTask(id: "2") { id } a: deleteTask(id: "1") { id } }`,
			`mutation Two { a: deleteTask(id: "1") { id } b: deleteTask(id: "2") { id } }`, false},
		{`query A { sessions { totalCount } }`, `query A { sessions(first: 1) { totalCount } }`, false},
	} {
		if got := canonical(c.sent) == canonical(c.registered); got != c.same {
			t.Errorf("same canonical form = %v, want %v:\n  %s\n  %s\n  %s\n  %s", got, c.same, c.sent, c.registered, canonical(c.sent), canonical(c.registered))
		}
	}
}
