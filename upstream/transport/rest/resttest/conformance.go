// Package resttest checks what the REST facade answers against its OpenAPI
// document, so any test that talks HTTP to okrgate — in-process or to the
// built binary — can prove its responses are the documented ones.
package resttest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/transport/rest"
)

// Document loads the committed OpenAPI document and fails t unless it
// validates. The document is loaded and validated once per test process
// (validation compiles every example's schema, about a second of CPU) and
// shared: the committed document does not change while the tests run, and
// nothing here writes to it.
func Document(t testing.TB) *openapi3.T {
	t.Helper()
	d, err := document()
	if err != nil {
		t.Fatal(err)
	}
	return d.doc
}

// loaded is the committed document with its response schemas compiled
// on first use.
type loaded struct {
	doc    *openapi3.T
	bodies *bodySchemas
}

var document = sync.OnceValues(func() (loaded, error) {
	raw := rest.OpenAPIDocument()
	doc, err := openapi3.NewLoader().LoadFromData(raw)
	if err != nil {
		return loaded{}, fmt.Errorf("load OpenAPI document: %w", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		return loaded{}, fmt.Errorf("OpenAPI document does not validate: %w", err)
	}
	bodies, err := newBodySchemas(doc, raw)
	if err != nil {
		return loaded{}, err
	}
	return loaded{doc: doc, bodies: bodies}, nil
})

// Conformance is an http.RoundTripper that validates every response it
// carries against the OpenAPI document (status, headers, body schema),
// reporting mismatches as errors of t, and records which operations
// answered with which statuses.
type Conformance struct {
	t      testing.TB
	doc    *openapi3.T
	bodies *bodySchemas
	base   http.RoundTripper
	ops    []operation
	mu     sync.Mutex
	seen   map[string]map[int]bool // "METHOD pattern" → statuses
	// projections are the operations that answered a fields= projection.
	projections map[string]bool
	n           int // responses validated
}

type operation struct {
	method, pattern string
	re              *regexp.Regexp
	names           []string
	item            *openapi3.PathItem
	op              *openapi3.Operation
}

var paramRE = regexp.MustCompile(`\{([^}]+)\}`)

// The facade answers users' pictures as images (rest/avatars.go): they are
// checked as files, like any binary body.
func init() {
	for ct := range upstream.AvatarTypes {
		openapi3filter.RegisterBodyDecoder(ct, openapi3filter.FileBodyDecoder)
	}
}

// New returns a Conformance that sends requests through base
// (http.DefaultTransport when nil).
func New(t testing.TB, base http.RoundTripper) *Conformance {
	t.Helper()
	if base == nil {
		base = http.DefaultTransport
	}
	d, err := document()
	if err != nil {
		t.Fatal(err)
	}
	doc := d.doc
	c := &Conformance{t: t, doc: doc, bodies: d.bodies, base: base, seen: map[string]map[int]bool{}, projections: map[string]bool{}}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			var names []string
			for _, m := range paramRE.FindAllStringSubmatch(path, -1) {
				names = append(names, m[1])
			}
			re := regexp.MustCompile("^" + quoteStatic(path) + "$")
			c.ops = append(c.ops, operation{method: method, pattern: path, re: re, names: names, item: item, op: op})
		}
	}
	// Static segments win over parameters, as in the router.
	sort.SliceStable(c.ops, func(i, j int) bool { return len(c.ops[i].names) < len(c.ops[j].names) })
	return c
}

// quoteStatic turns a path template into a regexp: static parts quoted,
// each {param} one path segment.
func quoteStatic(path string) string {
	var b strings.Builder
	last := 0
	for _, loc := range paramRE.FindAllStringIndex(path, -1) {
		b.WriteString(regexp.QuoteMeta(path[last:loc[0]]))
		b.WriteString("([^/]+)")
		last = loc[1]
	}
	b.WriteString(regexp.QuoteMeta(path[last:]))
	return b.String()
}

// RoundTrip sends r and validates the response before returning it.
func (c *Conformance) RoundTrip(r *http.Request) (*http.Response, error) {
	res, err := c.base.RoundTrip(r)
	if err != nil {
		return res, err
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		return nil, err
	}
	res.Body = io.NopCloser(bytes.NewReader(body))
	var match *operation
	params := map[string]string{}
	for i := range c.ops {
		o := &c.ops[i]
		if o.method != r.Method {
			continue
		}
		if m := o.re.FindStringSubmatch(r.URL.Path); m != nil {
			match = o
			for j, n := range o.names {
				params[n] = m[j+1]
			}
			break
		}
	}
	if match == nil {
		if strings.HasPrefix(r.URL.Path, "/api/") && res.StatusCode != http.StatusNotFound && res.StatusCode != http.StatusMethodNotAllowed {
			c.t.Errorf("conformance: %s %s answered %d but is not in the OpenAPI document", r.Method, r.URL.Path, res.StatusCode)
		}
		return res, nil
	}
	c.mu.Lock()
	key := match.method + " " + match.pattern
	if c.seen[key] == nil {
		c.seen[key] = map[int]bool{}
	}
	c.seen[key][res.StatusCode] = true
	c.n++
	c.mu.Unlock()
	route := &routers.Route{Spec: c.doc, Path: match.pattern, PathItem: match.item, Method: match.method, Operation: match.op}
	if projection(r) && res.StatusCode < 300 {
		c.mu.Lock()
		c.projections[key] = true
		c.mu.Unlock()
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request:    r,
			PathParams: params,
			Route:      route,
		},
		Status:  res.StatusCode,
		Header:  res.Header,
		Body:    io.NopCloser(bytes.NewReader(body)),
		Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	// kin-openapi checks the status and headers; a JSON body is checked
	// against its schema compiled once (bodies.go), any other body by
	// kin-openapi too.
	ref, mediaType, ok := c.jsonBodySchema(r, res, match.op)
	in.Options.ExcludeResponseBody = ok
	if err := openapi3filter.ValidateResponse(r.Context(), in); err != nil {
		c.t.Errorf("conformance: %s %s → %d does not conform to the OpenAPI document: %v\nbody: %.400s", r.Method, r.URL.Path, res.StatusCode, err, body)
	} else if ok && ref != nil {
		if err := c.bodies.validate(ref, body); err != nil {
			c.t.Errorf("conformance: %s %s → %d: the %s body does not match its schema: %v\nbody: %.400s", r.Method, r.URL.Path, res.StatusCode, mediaType, err, body)
		}
	}
	return res, nil
}

// jsonBodySchema returns the schema the document gives the JSON body of
// res (nil when it gives none) and ok; ok is false when kin-openapi must
// check the body itself: a media type that is not JSON or not documented
// (it reports the latter), or a status it does not check.
func (c *Conformance) jsonBodySchema(r *http.Request, res *http.Response, op *openapi3.Operation) (ref *openapi3.SchemaRef, mediaType string, ok bool) {
	if r.Method == http.MethodHead || op.Responses == nil {
		return nil, "", false
	}
	resp := op.Responses.Status(res.StatusCode)
	if resp == nil {
		resp = op.Responses.Default()
	}
	if resp == nil || resp.Value == nil || len(resp.Value.Content) == 0 {
		return nil, "", false
	}
	mediaType = res.Header.Get("Content-Type")
	media := resp.Value.Content.Get(mediaType)
	if media == nil || !isJSON(mediaType) {
		return nil, "", false
	}
	return media.Schema, mediaType, true
}

// projection reports whether r asks for a projection (fields= in the query,
// or a "fields" key in the JSON body of a GET listing), whose answer carries
// only id, accountId and the fields named: the document describes such
// answers (the *Projection schemas), and they are validated like any other.
func projection(r *http.Request) bool {
	if r.URL.Query().Has("fields") {
		return true
	}
	if r.Method != http.MethodGet || r.GetBody == nil {
		return false
	}
	body, err := r.GetBody()
	if err != nil {
		return false
	}
	defer body.Close()
	b, _ := io.ReadAll(body)
	return bytes.Contains(b, []byte(`"fields"`))
}

// Exercised reports whether the operation of the route table entry
// (method, pattern) has answered with a success (2xx or 304) and with a
// client error (4xx). Parameter names need not match the document's.
func (c *Conformance) Exercised(method, pattern string) (ok, bad bool) {
	shape := rest.PathShape(pattern)
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, o := range c.ops {
		if o.method != method || rest.PathShape(o.pattern) != shape {
			continue
		}
		for st := range c.seen[o.method+" "+o.pattern] {
			switch {
			case st < 300 || st == http.StatusNotModified:
				ok = true
			case st >= 400 && st < 500:
				bad = true
			}
		}
	}
	return ok, bad
}

// Projected reports whether the operation of the route table entry
// (method, pattern) has answered a request with a fields= projection with a
// success —
// validated, like every answer, against the document as it is.
func (c *Conformance) Projected(method, pattern string) bool {
	shape := rest.PathShape(pattern)
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, o := range c.ops {
		if o.method == method && rest.PathShape(o.pattern) == shape && c.projections[o.method+" "+o.pattern] {
			return true
		}
	}
	return false
}

// Checked returns how many responses have been validated.
func (c *Conformance) Checked() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}
