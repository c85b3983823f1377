package rest_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"

	"github.com/okrgate/okrgate/upstream/rest"
)

// loadOpenAPI loads and validates the committed document.
func loadOpenAPI(t testing.TB) *openapi3.T {
	t.Helper()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(rest.OpenAPIDocument())
	if err != nil {
		t.Fatalf("load OpenAPI document: %v", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("OpenAPI document does not validate: %v", err)
	}
	return doc
}

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
		t.Fatal("upstream/rest/openapi.json is stale: run `go run ./upstream/rest/openapigen` from the repository root")
	}
	if !bytes.Equal(committed, rest.OpenAPIDocument()) {
		t.Fatal("the embedded document differs from openapi.json")
	}
}

// TestOpenAPIValidAndComplete validates the document (kin-openapi) and checks
// every route of the table is in it, with its parameters, and typed.
func TestOpenAPIValidAndComplete(t *testing.T) {
	doc := loadOpenAPI(t)
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
		if h := op.Parameters.GetByInAndName("header", "service-accountId"); h == nil || h.Required != rt.Account {
			t.Errorf("%s %s: service-accountId header not documented as required=%v", rt.Method, rt.Pattern, rt.Account)
		}
		if rt.Deprecated != op.Deprecated {
			t.Errorf("%s %s: deprecated %v in the document, %v in the table", rt.Method, rt.Pattern, op.Deprecated, rt.Deprecated)
		}
		if op.Extensions["x-untyped"] != nil {
			t.Errorf("%s %s: no Go types for the operation; add it to opSpecs in openapi_gen.go", rt.Method, rt.Pattern)
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

// conformance checks every response an env's client receives against the
// OpenAPI document and records which operations answered with which
// statuses. Install it with checkConformance(e); any HTTP test can.
type conformance struct {
	t    testing.TB
	doc  *openapi3.T
	base http.RoundTripper
	ops  []oaRoute
	mu   sync.Mutex
	seen map[string]map[int]bool // "METHOD pattern" → statuses
}

type oaRoute struct {
	method, pattern string
	re              *regexp.Regexp
	params          int
	names           []string
	item            *openapi3.PathItem
	op              *openapi3.Operation
}

var oaParamRE = regexp.MustCompile(`\{([^}]+)\}`)

// checkConformance makes every request of e validate its response against
// the document; it returns the recorder of what was exercised.
func checkConformance(e *env) *conformance {
	e.t.Helper()
	doc := loadOpenAPI(e.t)
	c := &conformance{t: e.t, doc: doc, base: e.srv.Client().Transport, seen: map[string]map[int]bool{}}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			names := []string{}
			for _, m := range oaParamRE.FindAllStringSubmatch(path, -1) {
				names = append(names, m[1])
			}
			re := regexp.MustCompile("^" + oaParamRE.ReplaceAllStringFunc(quoteStatic(path), func(string) string { return "([^/]+)" }) + "$")
			c.ops = append(c.ops, oaRoute{method: method, pattern: path, re: re, params: len(names), names: names, item: item, op: op})
		}
	}
	// Static segments win over parameters, as in the router.
	sort.Slice(c.ops, func(i, j int) bool { return c.ops[i].params < c.ops[j].params })
	e.srv.Client().Transport = c
	return c
}

// quoteStatic quotes a path template's static parts for a regexp, keeping
// the {param} placeholders.
func quoteStatic(path string) string {
	var b strings.Builder
	last := 0
	for _, loc := range oaParamRE.FindAllStringIndex(path, -1) {
		b.WriteString(regexp.QuoteMeta(path[last:loc[0]]))
		b.WriteString(path[loc[0]:loc[1]])
		last = loc[1]
	}
	b.WriteString(regexp.QuoteMeta(path[last:]))
	return b.String()
}

func (c *conformance) RoundTrip(r *http.Request) (*http.Response, error) {
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
	var match *oaRoute
	var params map[string]string
	for i := range c.ops {
		o := &c.ops[i]
		if o.method != r.Method {
			continue
		}
		if m := o.re.FindStringSubmatch(r.URL.Path); m != nil {
			match = o
			params = map[string]string{}
			for j, n := range o.names {
				params[n] = m[j+1]
			}
			break
		}
	}
	if match == nil {
		if res.StatusCode != http.StatusNotFound && res.StatusCode != http.StatusMethodNotAllowed {
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
	c.mu.Unlock()
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request:    r,
			PathParams: params,
			Route:      &routers.Route{Spec: c.doc, Path: match.pattern, PathItem: match.item, Method: match.method, Operation: match.op},
		},
		Status:  res.StatusCode,
		Header:  res.Header,
		Body:    io.NopCloser(bytes.NewReader(body)),
		Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	if err := openapi3filter.ValidateResponse(r.Context(), in); err != nil {
		c.t.Errorf("conformance: %s %s → %d does not conform to the OpenAPI document: %v\nbody: %.400s", r.Method, r.URL.Path, res.StatusCode, err, body)
	}
	return res, nil
}

// exercised returns, per "METHOD pattern", whether a success (2xx/304) and
// a client error (4xx) were seen.
func (c *conformance) exercised(key string) (ok, bad bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for st := range c.seen[key] {
		switch {
		case st < 300 || st == http.StatusNotModified:
			ok = true
		case st >= 400 && st < 500:
			bad = true
		}
	}
	return ok, bad
}
