package rest

import (
	_ "embed"
	"net/http"
)

// OpenAPIPath is where the facade serves its OpenAPI 3.1 document. It needs
// no credentials: the document describes the API, it holds no data.
const OpenAPIPath = "/api/openapi.json"

// openAPIDocument is the committed document, generated from the route table
// and the Go types by `go run ./upstream/transport/rest/openapigen`; a test fails when
// it differs from what GenerateOpenAPI produces.
//
//go:embed openapi.json
var openAPIDocument []byte

// OpenAPIDocument returns the committed OpenAPI document.
func OpenAPIDocument() []byte { return append([]byte(nil), openAPIDocument...) }

func serveOpenAPI(w http.ResponseWriter, r *http.Request) { serveDocument(w, openAPIDocument) }

func serveDocument(w http.ResponseWriter, doc []byte) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=300")
	_, _ = w.Write(doc)
}
