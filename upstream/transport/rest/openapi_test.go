package rest_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/okrgate/okrgate/upstream/transport/rest"
	"github.com/okrgate/okrgate/upstream/transport/rest/resttest"
)

// TestOpenAPIUpToDate regenerates the document from the route table and
// the Go types: the committed openapi.json must be exactly that.
func TestOpenAPIUpToDate(t *testing.T) {
	got, err := rest.GenerateOpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile("openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, committed) {
		t.Fatal("upstream/transport/rest/openapi.json is stale: run `go run ./upstream/transport/rest/openapigen` from the repository root")
	}
	if !bytes.Equal(committed, rest.OpenAPIDocument()) {
		t.Fatal("the embedded document differs from openapi.json")
	}
}

// TestOpenAPIValidAndComplete validates the document (kin-openapi) and checks
// every route of the table is in it, with its parameters, and typed.
func TestOpenAPIValidAndComplete(t *testing.T) {
	doc := resttest.Document(t)
	if doc.OpenAPI != "3.1.0" {
		t.Errorf("openapi = %q", doc.OpenAPI)
	}
	byShape := map[string]*openapi3.PathItem{}
	for path, item := range doc.Paths.Map() {
		byShape[rest.PathShape(path)] = item
	}
	for _, rt := range rest.Routes() {
		item := byShape[rest.PathShape(rt.Pattern)]
		if item == nil {
			t.Errorf("%s %s: path missing from the document", rt.Method, rt.Pattern)
			continue
		}
		op := item.GetOperation(rt.Method)
		if op == nil {
			t.Errorf("%s %s: operation missing from the document", rt.Method, rt.Pattern)
			continue
		}
		if op.Responses.Status(rt.Success) == nil {
			t.Errorf("%s %s: success status %d not documented", rt.Method, rt.Pattern, rt.Success)
		}
		for _, st := range []int{400, 401, 500} {
			if op.Responses.Status(st) == nil {
				t.Errorf("%s %s: error status %d not documented", rt.Method, rt.Pattern, st)
			}
		}
		for _, p := range rt.Params {
			if op.Parameters.GetByInAndName("query", p) == nil {
				t.Errorf("%s %s: query parameter %q not documented", rt.Method, rt.Pattern, p)
			}
		}
		// The account header is the accountHeader security scheme, with
		// the bearer, on every operation that needs it, or under the
		// platform's name, platformAccountHeader; never a required
		// parameter (a typed client sets it once).
		needs := op.Security != nil && len(*op.Security) == 2 && (*op.Security)[0]["accountHeader"] != nil && (*op.Security)[0]["bearerAuth"] != nil &&
			(*op.Security)[1]["platformAccountHeader"] != nil && (*op.Security)[1]["bearerAuth"] != nil
		if needs != rt.Account {
			t.Errorf("%s %s: security %v, want the bearer and accountHeader = %v", rt.Method, rt.Pattern, op.Security, rt.Account)
		}
		if h := op.Parameters.GetByInAndName("header", "service-accountId"); h != nil {
			t.Errorf("%s %s: service-accountId is a parameter; it is the accountHeader security scheme", rt.Method, rt.Pattern)
		}
		if rt.Deprecated != op.Deprecated {
			t.Errorf("%s %s: deprecated %v in the document, %v in the table", rt.Method, rt.Pattern, op.Deprecated, rt.Deprecated)
		}
		if op.Extensions["x-untyped"] != nil {
			t.Errorf("%s %s: no Go types for the operation; add it to opSpecs in openapi_operations.go", rt.Method, rt.Pattern)
		}
	}
	if item := doc.Paths.Find(rest.OpenAPIPath); item == nil || item.Get == nil {
		t.Errorf("%s is not documented", rest.OpenAPIPath)
	}
}

// TestOpenAPIServedWithoutAuth fetches the document with no credentials.
func TestOpenAPIServedWithoutAuth(t *testing.T) {
	e := newEnv(t)
	r := e.do(req{method: "GET", path: rest.OpenAPIPath, token: ptr(""), acct: ptr("")})
	if r.status != 200 || !bytes.Equal(r.body, rest.OpenAPIDocument()) {
		t.Fatalf("GET %s: %d (%d bytes)", rest.OpenAPIPath, r.status, len(r.body))
	}
}
