package resttest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// bodySchemas validates JSON response bodies against the document's
// response schemas, each compiled once per test process.
//
// kin-openapi checks a body against an OpenAPI 3.1 schema by compiling a
// JSON Schema 2020-12 validator on every call (openapi3.Schema.VisitJSON),
// which took most of the REST suite's time; the compiler behind it
// (santhosh-tekuri/jsonschema) is used here directly, on the same schemas,
// with the compiled result kept. Every response schema of the document is
// placed under "x-bodies" in a copy of the document, so its references to
// "#/components/schemas/…" resolve in the same resource.
type bodySchemas struct {
	index map[*openapi3.SchemaRef]int // a response schema → its place under x-bodies

	mu       sync.Mutex // compiler and compiled
	compiler *jsonschema.Compiler
	compiled map[int]*jsonschema.Schema
}

const documentURL = "https://okrgate.invalid/openapi.json"

// newBodySchemas indexes every response schema of doc, whose JSON text
// is raw.
func newBodySchemas(doc *openapi3.T, raw []byte) (*bodySchemas, error) {
	var whole map[string]any
	if err := json.Unmarshal(raw, &whole); err != nil {
		return nil, fmt.Errorf("decode OpenAPI document: %w", err)
	}
	b := &bodySchemas{index: map[*openapi3.SchemaRef]int{}, compiled: map[int]*jsonschema.Schema{}}
	var bodies []any
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			if op.Responses == nil {
				continue
			}
			for _, resp := range op.Responses.Map() {
				if resp.Value == nil {
					continue
				}
				for _, media := range resp.Value.Content {
					if media.Schema == nil {
						continue
					}
					if _, ok := b.index[media.Schema]; ok {
						continue
					}
					text, err := json.Marshal(media.Schema)
					if err != nil {
						return nil, fmt.Errorf("encode a response schema: %w", err)
					}
					var s any
					if err := json.Unmarshal(text, &s); err != nil {
						return nil, fmt.Errorf("decode a response schema: %w", err)
					}
					b.index[media.Schema] = len(bodies)
					bodies = append(bodies, s)
				}
			}
		}
	}
	whole["x-bodies"] = bodies
	b.compiler = jsonschema.NewCompiler()
	b.compiler.DefaultDraft(jsonschema.Draft2020)
	b.compiler.AssertFormat()
	if err := b.compiler.AddResource(documentURL, whole); err != nil {
		return nil, fmt.Errorf("add the OpenAPI document as a schema resource: %w", err)
	}
	return b, nil
}

// validate checks body, JSON text, against the response schema ref.
func (b *bodySchemas) validate(ref *openapi3.SchemaRef, body []byte) error {
	i, ok := b.index[ref]
	if !ok {
		return fmt.Errorf("a response schema not in the document's index")
	}
	b.mu.Lock()
	sch, ok := b.compiled[i]
	if !ok {
		var err error
		sch, err = b.compiler.Compile(fmt.Sprintf("%s#/x-bodies/%d", documentURL, i))
		if err != nil {
			b.mu.Unlock()
			return fmt.Errorf("compile a response schema: %w", err)
		}
		b.compiled[i] = sch
	}
	b.mu.Unlock()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("response body is not JSON: %w", err)
	}
	return sch.Validate(v)
}

// isJSON reports whether the media type ct is JSON (application/json,
// application/problem+json, …).
func isJSON(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}
