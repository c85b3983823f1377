package rest

import (
	"bytes"
	"encoding/json"
	"maps"
	"net/http"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/infra/authn"
)

// openAPILicense is the document's license block. The repository carries no
// LICENSE file yet: change this together with the one that is chosen.
var openAPILicense = map[string]any{"name": "Apache 2.0", "identifier": "Apache-2.0"}

// ListBody is the JSON body a GET listing (dashboards v2, KPI groups) may
// carry instead of query parameters.
type ListBody struct {
	// Filter is a filter object, or a string in the filter language.
	Filter any    `json:"filter"`
	Sort   string `json:"sort"`
	Fields string `json:"fields"`
	Skip   int    `json:"skip"`
	Limit  int    `json:"limit"`
}

// GenerateOpenAPI returns the OpenAPI 3.1 document of every route of the
// table, with schemas derived from the Go types by reflection: what the
// committed openapi.json must equal.
func GenerateOpenAPI() ([]byte, error) {
	g := &oaGen{schemas: map[string]any{}, inputs: map[reflect.Type]bool{}}
	specs := opSpecs()
	maps.Copy(specs, commentOps())
	for _, sp := range specs {
		if sp.body != nil {
			g.markInputs(reflect.TypeOf(sp.body))
		}
	}
	paths := map[string]map[string]any{}
	seenOps := map[string]int{}
	shapes := map[string]string{}
	for _, e := range table() {
		key := e.Method + " " + e.Pattern
		sp, typed := specs[key]
		op := g.operation(e, sp, typed)
		id := handlerName(e.h)
		if n := seenOps[id]; n > 0 {
			op["operationId"] = id + strconv.Itoa(n+1)
		} else {
			op["operationId"] = id
		}
		seenOps[id]++
		// OpenAPI forbids two templates of one shape ("/lists/{listId}" and
		// "/lists/{id}", as the contract spells them): the first one of the
		// table names the path; the others are noted.
		shape := PathShape(e.Pattern)
		path, seen := shapes[shape]
		if !seen {
			path = e.Pattern
			shapes[shape] = path
		}
		if path != e.Pattern {
			op["x-contract-path"] = e.Pattern
			op["parameters"] = g.pathParams(e, path, op["parameters"].([]any))
		}
		if paths[path] == nil {
			paths[path] = map[string]any{}
		}
		paths[path][strings.ToLower(e.Method)] = op
	}
	paths[OpenAPIPath] = map[string]any{"get": map[string]any{
		"operationId": "openAPIDocument",
		"summary":     "This OpenAPI document",
		"description": "The OpenAPI 3.1 document of the REST facade, generated from the route table and the Go types. Needs no credentials: it describes the API and holds no data.",
		"tags":        []string{"meta"},
		"security":    []any{},
		"responses": map[string]any{
			"200": map[string]any{"description": "the document",
				"content": map[string]any{"application/json": map[string]any{"schema": map[string]any{"type": "object", "description": "an OpenAPI 3.1 document"}}}},
			"414": map[string]any{"$ref": "#/components/responses/" + problemResponseName(http.StatusRequestURITooLong)},
		},
	}}
	paths[upstream.AvatarPathPrefix+"{accountId}/{file}"] = avatarFileOperations()
	g.ref(reflect.TypeOf(Problem{}))
	var tags []any
	seenTags := map[string]bool{}
	for _, e := range table() {
		if t := tagOf(e.Pattern); !seenTags[t] {
			seenTags[t] = true
			tags = append(tags, map[string]any{"name": t, "description": tagDoc(t)})
		}
	}
	tags = append(tags, map[string]any{"name": "meta", "description": tagDoc("meta")})
	doc := map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{
			"title":   "okrgate REST API",
			"version": "1.0.0",
			"description": "The OKR REST API of the Quantive (Gtmhub) platform, as documented by the platform and as okrgate serves it, " +
				"generated from the route table (upstream/transport/rest) and the Go types (upstream). Operations marked x-designed are designed " +
				"where the documented contract shows none; see docs/contract.md. Errors are RFC 9457 problem documents. Every call needs " +
				"`Authorization: Bearer <token>` (an API token); most also need the account id in `service-accountId`.",
			"license": openAPILicense,
		},
		"servers": []any{
			map[string]any{"url": "/", "description": "the server this document was fetched from"},
			// The variables carry no description: OpenAPI 3.1 allows one,
			// but the schema swagger-parser validates against misspells it
			// ("descriptions") and refuses the document; the server's
			// description says what they hold.
			map[string]any{"url": "{scheme}://{host}", "description": "an okrgate server: scheme is http, or https behind a TLS proxy; host is its host and port (okrgate serve listens on 127.0.0.1:8080 by default)",
				"variables": map[string]any{
					"scheme": map[string]any{"default": "http", "enum": []string{"http", "https"}},
					"host":   map[string]any{"default": "127.0.0.1:8080"},
				}},
		},
		"tags":     tags,
		"security": []any{map[string]any{"bearerAuth": []any{}}},
		"paths":    paths,
		"components": map[string]any{
			"securitySchemes": map[string]any{
				"bearerAuth": map[string]any{"type": "http", "scheme": "bearer",
					"description": "an API token of one user of one account (okrgate token create, or POST /api/v2/users/me/tokens)"},
				"accountHeader": map[string]any{"type": "apiKey", "in": "header", "name": "service-accountId",
					"description": "the account id, equal to the token's account, sent with the token on every operation that names this scheme " +
						"(set it once in the client's default headers); gtmhub-accountId, the real platform's name, is taken when it is absent"},
				"platformAccountHeader": map[string]any{"type": "apiKey", "in": "header", "name": authn.AccountHeaderAlias,
					"description": "accountHeader under the real platform's name, in any letter case, as its programs send it: " +
						"each operation that needs the account takes either"},
			},
			"schemas":   g.schemas,
			"responses": problemResponses(),
		},
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// handlerName is the Go name of a handler, e.g. "listGoals".
func handlerName(h handlerFunc) string {
	name := runtime.FuncForPC(reflect.ValueOf(h).Pointer()).Name()
	name = name[strings.LastIndexByte(name, '.')+1:]
	return strings.TrimSuffix(name, "-fm")
}

var pathParamRE = regexp.MustCompile(`\{([^}]+)\}`)

// PathShape is a path template with its parameter names erased:
// "/api/v1/lists/{id}" → "/api/v1/lists/{}".
func PathShape(pattern string) string { return pathParamRE.ReplaceAllString(pattern, "{}") }

// pathParams replaces the path parameters of params by those of path.
func (g *oaGen) pathParams(e entry, path string, params []any) []any {
	var out []any
	for _, m := range pathParamRE.FindAllStringSubmatch(path, -1) {
		out = append(out, g.pathParam(e, m[1]))
	}
	for _, p := range params {
		if p.(map[string]any)["in"] != "path" {
			out = append(out, p)
		}
	}
	return out
}

// etagHeader documents the ETag response header of versioned resources.
var etagHeader = map[string]any{"schema": map[string]any{"type": "string"},
	"description": "strong entity tag of the stored version; send it back in If-Match (writes) or If-None-Match (reads)"}

// withHeader adds one header to a response's headers object (nil or a map).
func withHeader(headers any, name string, h map[string]any) map[string]any {
	m, _ := headers.(map[string]any)
	if m == nil {
		m = map[string]any{}
	}
	m[name] = h
	return m
}

// conditionalParams are the header parameters of conditional and
// idempotent requests that the route honours.
func conditionalParams(e entry) []any {
	header := func(name, desc string) map[string]any {
		return map[string]any{"name": name, "in": "header", "required": false, "schema": map[string]any{"type": "string"}, "description": desc}
	}
	var out []any
	switch {
	case e.Versioned != "" && e.Method == http.MethodGet:
		out = append(out, header("If-None-Match", "entity tags (or *); when one matches the current version the answer is 304 without a body"))
	case e.Versioned != "":
		out = append(out, header("If-Match", "entity tags (or *); unless one matches the stored version, nothing is written and the answer is 412 precondition_failed"))
	}
	if representationRoutes[e.Method+" "+e.Pattern] {
		out = append(out, header("Prefer", "return=representation answers 200 with the item as stored (and Preference-Applied) instead of a body-less answer"))
	}
	if e.Idempotent {
		out = append(out, header("Idempotency-Key", "1 to 255 printable ASCII characters; a retry with the same key and body answers the recorded answer without writing again (kept 24 h); the same key with another body is 422 idempotency_key_reused"))
	}
	return out
}

// errorStatuses are the problem answers every operation may give (503:
// the database or the upstream is unavailable or too slow, for the
// authentication if nothing else); writes may also conflict (409) or find
// the storage full (507), and bodies may be too large or not JSON.
var errorStatuses = []int{400, 401, 402, 403, 404, 500, 503}

func (g *oaGen) operation(e entry, sp opSpec, typed bool) map[string]any {
	op := map[string]any{
		"tags":        []string{tagOf(e.Pattern)},
		"summary":     sp.summary,
		"description": operationDescription(e, sp),
	}
	if sp.summary == "" {
		op["summary"] = operationSummary(handlerName(e.h))
	}
	if !typed {
		op["x-untyped"] = true
	}
	if e.Deprecated {
		op["deprecated"] = true
	}
	if e.Designed {
		op["x-designed"] = true
	}
	if e.Gateway {
		op["x-gateway"] = true
	}
	var params []any
	for _, m := range pathParamRE.FindAllStringSubmatch(e.Pattern, -1) {
		params = append(params, g.pathParam(e, m[1]))
	}
	// The account header is a security scheme (accountHeader), not a
	// parameter: a typed client (openapi-fetch) sets it once, with the
	// token, instead of passing it to every call. The platform's programs
	// send it as gtmhub-accountId (platformAccountHeader), the alternative.
	if e.Account {
		op["security"] = []any{map[string]any{"bearerAuth": []any{}, "accountHeader": []any{}},
			map[string]any{"bearerAuth": []any{}, "platformAccountHeader": []any{}}}
	}
	alias := map[string]any{"name": authn.AccountHeaderAlias, "in": "header", "required": false, "schema": map[string]any{"type": "string"},
		"description": "the real platform's name for service-accountId, in any letter case; taken when service-accountId is not sent"}
	params = append(params, alias)
	for _, p := range e.Params {
		params = append(params, queryParam(e, p))
	}
	params = append(params, conditionalParams(e)...)
	op["parameters"] = params

	hasBody := sp.body != nil || sp.upload || (!typed && (e.Method == http.MethodPost || e.Method == http.MethodPut || e.Method == http.MethodPatch))
	switch {
	case sp.upload:
		op["requestBody"] = uploadBody()
	case hasBody:
		var schema any = map[string]any{"type": "object"}
		if sp.body != nil {
			schema = g.ref(reflect.TypeOf(sp.body))
		}
		media := map[string]any{"schema": schema}
		if sp.body != nil {
			if ex := inputExample(reflect.TypeOf(sp.body)); ex != nil {
				media["example"] = ex
			}
		}
		op["requestBody"] = map[string]any{"required": !sp.optionalBody, "description": "the JSON body",
			"content": map[string]any{"application/json": media}}
	}
	resps := map[string]any{}
	success := append([]int{e.Success}, sp.also...)
	for _, st := range success {
		r := map[string]any{"description": successDoc(e, st)}
		switch {
		case st == http.StatusNoContent:
		case st == http.StatusNotModified:
			r["description"] = "nothing changed; no body, the message is in the X-Message header"
			r["headers"] = map[string]any{"X-Message": map[string]any{"schema": map[string]any{"type": "string"}, "description": "why nothing changed"}}
		case sp.resp != nil:
			r["content"] = map[string]any{"application/json": map[string]any{"schema": g.answer(e, sp)}}
		case !typed:
			r["content"] = map[string]any{"application/json": map[string]any{"schema": map[string]any{}}}
		}
		if e.Deprecated {
			r["headers"] = map[string]any{
				"Deprecation": map[string]any{"schema": map[string]any{"type": "string"}, "description": "RFC 9745 date of deprecation"},
				"Link":        map[string]any{"schema": map[string]any{"type": "string"}, "description": "successor-version or deprecation link"},
			}
		}
		if representationRoutes[e.Method+" "+e.Pattern] && st == http.StatusOK {
			r["description"] = "with Prefer: return=representation: the item as stored"
			r["headers"] = withHeader(r["headers"], "Preference-Applied", map[string]any{"schema": map[string]any{"type": "string", "enum": []string{"return=representation"}}})
		}
		if e.Versioned != "" && st == http.StatusOK {
			r["headers"] = map[string]any{"ETag": etagHeader}
		}
		if sp.body != nil && e.Method == http.MethodPost && st >= 200 && st < 300 && st != http.StatusNoContent {
			r["headers"] = withHeader(r["headers"], IgnoredFieldsHeader, map[string]any{"schema": map[string]any{"type": "string"},
				"description": "the fields of the body that were accepted and ignored (read-only fields of the resource, customFields), comma-separated paths such as id, accountId, tags[0].id; absent when none was"})
		}
		if _, bodyList := sp.body.(ListBody); st == http.StatusOK && (e.Method == http.MethodGet && slices.Contains(e.Params, "fields") || bodyList) {
			r["headers"] = withHeader(r["headers"], IgnoredFieldsHeader, map[string]any{"schema": map[string]any{"type": "string"},
				"description": "the names of the fields= projection that the resource does not have, left out, as comma-separated paths such as fields.displayName, fields.metrics.nosuch; absent when none was"})
		}
		if e.Idempotent && st >= 200 && st < 300 {
			r["headers"] = withHeader(r["headers"], "Idempotent-Replayed", map[string]any{"schema": map[string]any{"type": "string", "enum": []string{"true"}},
				"description": "present when the answer is the recorded one of an earlier request with the same Idempotency-Key"})
		}
		resps[strconv.Itoa(st)] = r
	}
	if e.Versioned != "" && e.Method == http.MethodGet {
		resps["304"] = map[string]any{"description": "the version named in If-None-Match is current; no body",
			"headers": map[string]any{"ETag": etagHeader}}
	}
	errs := slices.Clone(errorStatuses)
	// Any request may be refused for its size before it is read.
	errs = append(errs, http.StatusRequestEntityTooLarge, http.StatusRequestURITooLong, http.StatusRequestHeaderFieldsTooLarge)
	if e.Method != http.MethodGet {
		errs = append(errs, http.StatusConflict, http.StatusInsufficientStorage)
	}
	if e.Versioned != "" && e.Method != http.MethodGet {
		errs = append(errs, http.StatusPreconditionFailed)
	}
	if e.Idempotent {
		errs = append(errs, http.StatusUnprocessableEntity)
	}
	if hasBody {
		errs = append(errs, http.StatusUnsupportedMediaType)
	}
	for _, st := range errs {
		resps[strconv.Itoa(st)] = map[string]any{"$ref": "#/components/responses/" + problemResponseName(st)}
	}
	op["responses"] = resps
	return op
}

// answer is the schema of the success answer of e: its response type
// whole, or — when the operation takes a fields= projection — either that
// or the type as the projection writes it (the object, or a page's items).
func (g *oaGen) answer(e entry, sp opSpec) map[string]any {
	t := reflect.TypeOf(sp.resp)
	_, bodyList := sp.body.(ListBody)
	if e.Method != http.MethodGet || !(slices.Contains(e.Params, "fields") || bodyList) {
		return g.ref(t)
	}
	sh := projected
	if isPage(t) {
		sh = projectedItems
	}
	return map[string]any{"anyOf": []any{g.ref(t), g.schema(t, sh)},
		"description": "the whole " + schemaName(t) + "; with fields=, " + schemaName(t) + "Projection: only id, accountId and the fields named"}
}

// pathParam documents a path parameter of e.
func (g *oaGen) pathParam(e entry, name string) map[string]any {
	desc, enum := pathParamDoc(e, name)
	schema := map[string]any{"type": "string"}
	if enum != nil {
		schema["enum"] = enum
	}
	return map[string]any{"name": name, "in": "path", "required": true, "schema": schema, "description": desc}
}

// problemResponses are the error answers, one per status, that operations
// refer to: a problem document with its description and an example.
func problemResponses() map[string]any {
	out := map[string]any{}
	sts := append(slices.Clone(errorStatuses), http.StatusConflict, http.StatusPreconditionFailed, http.StatusRequestEntityTooLarge,
		http.StatusRequestURITooLong, http.StatusUnsupportedMediaType, http.StatusUnprocessableEntity, http.StatusRequestHeaderFieldsTooLarge,
		http.StatusInsufficientStorage)
	for _, st := range sts {
		r := map[string]any{"description": statusDoc(st),
			"content": map[string]any{"application/problem+json": map[string]any{
				"schema":  map[string]any{"$ref": "#/components/schemas/Problem"},
				"example": problemExample(st)}}}
		if st == http.StatusServiceUnavailable {
			r["headers"] = map[string]any{"Retry-After": map[string]any{"schema": map[string]any{"type": "integer", "minimum": 1},
				"description": "seconds to wait before retrying"}}
		}
		out[problemResponseName(st)] = r
	}
	return out
}

// problemResponseName names the shared error answer of a status, e.g.
// "NotFound".
func problemResponseName(st int) string {
	return strings.NewReplacer(" ", "", "-", "").Replace(http.StatusText(st))
}

// successDoc describes a success status.
func successDoc(e entry, st int) string {
	switch st {
	case http.StatusCreated:
		return "created; the body is the new item"
	case http.StatusNoContent:
		return "done; no body"
	case http.StatusOK:
		if e.Method == http.MethodGet {
			return "the requested data"
		}
		return "done; the body is the item as stored"
	}
	return http.StatusText(st)
}

func tagOf(pattern string) string {
	parts := strings.Split(strings.Trim(pattern, "/"), "/")
	for _, p := range parts[2:] {
		if p != "integrations" && !strings.HasPrefix(p, "{") {
			return p
		}
	}
	return parts[len(parts)-1]
}
