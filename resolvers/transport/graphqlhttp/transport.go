package graphqlhttp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/okrgate/okrgate/resolvers"
	"github.com/okrgate/okrgate/upstream"
)

// Media types of GraphQL responses.
const (
	mediaJSON            = "application/json"
	mediaGraphQLResponse = "application/graphql-response+json"
)

// httpTransport serves GraphQL over HTTP as the GraphQL-over-HTTP spec
// describes (and its audit suite, graphql-http, checks): POST with a JSON
// body and GET for queries. gqlgen's own transports answer 422 to parse and
// validation errors under application/json (the spec says 200), 422 to a
// request without a query (400), write "data": null on request errors under
// application/graphql-response+json (the key must be absent), read bodies
// of any size when no limit wraps them, and echo an undecodable body in the
// error message. Request errors here never echo the body or the socket
// addresses an I/O error names.
type httpTransport struct {
	maxBody int64
	gc      *collector // collects the heap after large answers (nil: never)
	shared  *Shared    // shares the answers of queries within a class (nil: never)
}

var _ graphql.Transport = httpTransport{}

// Supports implements graphql.Transport: POST with a JSON body, and GET.
// NewHandler refuses other methods and content types before this runs.
func (t httpTransport) Supports(r *http.Request) bool {
	if r.Header.Get("Upgrade") != "" {
		return false
	}
	if r.Method == http.MethodGet {
		return true
	}
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return r.Method == http.MethodPost && mt == mediaJSON
}

// Do implements graphql.Transport.
func (t httpTransport) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	ct := responseType(r.Header.Get("Accept"))
	w.Header().Set("Content-Type", ct)
	params := &graphql.RawParams{Headers: r.Header}
	params.ReadTime.Start = graphql.Now()
	var status int
	var err *gqlerror.Error
	if r.Method == http.MethodGet {
		status, err = readGET(r, params)
	} else {
		status, err = t.readPOST(w, r, params)
	}
	params.ReadTime.End = graphql.Now()
	if err == nil && params.Query == "" && params.Extensions["persistedQuery"] == nil && params.Extensions["documentId"] == nil {
		status, err = http.StatusBadRequest, requestError(resolvers.CodeBadRequest, "the request has no query: send {\"query\": \"...\"}")
	}
	if err != nil {
		writeRequestErrors(w, status, gqlerror.List{err})
		return
	}
	ctx := r.Context()
	opCtx, errs := exec.CreateOperationContext(ctx, params)
	if errs != nil {
		// A request error: nothing executed. application/json answers 200
		// with the errors; graphql-response+json answers 400 without data.
		resp := exec.DispatchError(graphql.WithOperationContext(ctx, opCtx), errs)
		status := http.StatusOK
		if ct == mediaGraphQLResponse {
			status = http.StatusBadRequest
		}
		writeRequestErrors(w, status, resp.Errors)
		return
	}
	if r.Method == http.MethodGet && opCtx.Operation.Operation != ast.Query {
		// GET is safe: it must never change data (a link or an <img> can
		// send it cross-site).
		w.Header().Set("Allow", "POST")
		writeRequestErrors(w, http.StatusMethodNotAllowed, gqlerror.List{requestError(resolvers.CodeBadRequest,
			"GET requests may only run queries: send mutations with POST")})
		return
	}
	if t.shared != nil && shareable(opCtx.Operation) && t.serveShared(ctx, w, r, params, exec, opCtx) {
		return // shared.go
	}
	responses, ctx := exec.DispatchOperation(ctx, opCtx)
	resp := responses(ctx)
	if resp != nil && resp.HasNext != nil && *resp.HasNext {
		// Deferred fragments, and the client reads parts (see
		// deferOnlyIncremental): the first part now, the rest as they
		// resolve.
		writeIncremental(ctx, w, resp, responses)
		return
	}
	t.writeResponse(w, ct, resp)
}

// busy sets the status of a response whose one error says the server is
// busy or overloaded (a GraphQL code whose row in the error table is
// 503 and not a failure of the infrastructure: SERVER_BUSY, OVERLOADED):
// 503, with the error's Retry-After, else the table's. Other failures of
// the infrastructure for some fields keep 200 (the answer holds what
// resolved) and say when to retry.
func busy(w http.ResponseWriter, resp *graphql.Response) {
	ra := retryAfter(resp.Errors)
	if ra > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(ra))
	}
	if len(resp.Errors) != 1 {
		return
	}
	code, _ := resp.Errors[0].Extensions["code"].(string)
	if c := upstream.CodeOfGraphQL(code); c.Status() == http.StatusServiceUnavailable && !c.Infrastructure() {
		if ra == 0 {
			w.Header().Set("Retry-After", strconv.Itoa(c.RetryAfter()))
		}
		w.WriteHeader(http.StatusServiceUnavailable)
	}
}

// notServed returns the status of a response whose operation failed as a
// whole because of the infrastructure: every error is one
// (upstream.Code.Infrastructure: the database or the upstream unavailable,
// too slow or full, a commit's outcome unknown) and nothing resolved, its
// data null or each of its root fields null. It is 503, or 507 when every
// error says the storage is full; 0 for any other response.
//
// Under application/graphql-response+json such a response is sent without
// its data, with that status (the GraphQL-over-HTTP spec: a response
// without data answers 4xx or 5xx "as appropriate"), so that load
// balancers, proxies and clients see the outage in the status as they do
// on the REST facade. Under application/json the spec asks 200 for every
// response to a well-formed request: those clients read the code.
func notServed(resp *graphql.Response) int {
	if len(resp.Errors) == 0 || !nothingResolved(resp.Data) {
		return 0
	}
	status := http.StatusInsufficientStorage
	for _, e := range resp.Errors {
		code, _ := e.Extensions["code"].(string)
		c := upstream.CodeOfGraphQL(code)
		if !c.Infrastructure() {
			return 0
		}
		if c.Status() == http.StatusServiceUnavailable {
			status = http.StatusServiceUnavailable
		}
	}
	return status
}

// nothingResolved reports whether data, a response's data, is null or an
// object whose every member is null.
func nothingResolved(data json.RawMessage) bool {
	if len(data) == 0 || string(data) == "null" {
		return true
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(data, &fields) != nil {
		return false
	}
	for _, v := range fields {
		if string(v) != "null" {
			return false
		}
	}
	return true
}

// retryAfter is the longest extensions.retryAfter of errs (the error
// presenter's, for failures of the infrastructure), 0 when none has one.
func retryAfter(errs gqlerror.List) int {
	longest := 0
	for _, e := range errs {
		if ra, ok := e.Extensions["retryAfter"].(int); ok {
			longest = max(longest, ra)
		}
	}
	return longest
}

// readPOST decodes a JSON body of at most maxBody bytes.
func (t httpTransport) readPOST(w http.ResponseWriter, r *http.Request, p *graphql.RawParams) (int, *gqlerror.Error) {
	if r.ContentLength > t.maxBody {
		return http.StatusRequestEntityTooLarge, tooLarge(t.maxBody)
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, t.maxBody))
	if err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			return http.StatusRequestEntityTooLarge, tooLarge(t.maxBody)
		}
		// The error names the socket's addresses (a read timeout, a reset
		// connection): say what happened, not where.
		return http.StatusBadRequest, requestError(resolvers.CodeBadRequest, "the request body could not be read completely")
	}
	if err := decodeParams(body, p); err != nil {
		return http.StatusBadRequest, err
	}
	return 0, nil
}

func tooLarge(limit int64) *gqlerror.Error {
	err := requestError(resolvers.CodeRequestTooLarge, fmt.Sprintf("the request body exceeds the limit of %d bytes", limit))
	err.Extensions["limit"] = limit
	return err
}

// decodeParams decodes a POST body in one pass, numbers kept as
// json.Number as gqlgen expects. Errors say where the body went wrong,
// never what it held.
func decodeParams(body []byte, p *graphql.RawParams) *gqlerror.Error {
	var in struct {
		Query         *string        `json:"query"`
		OperationName *string        `json:"operationName"`
		Variables     map[string]any `json:"variables"`
		Extensions    map[string]any `json:"extensions"`
		// DocumentID names a trusted document (the GraphQL over HTTP
		// persisted documents proposal); resolvers/infra/trusted reads it
		// from the extensions.
		DocumentID *string `json:"documentId"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&in); err != nil {
		return decodeError("the request body", err)
	}
	if dec.More() {
		return requestError(resolvers.CodeBadRequest, "the request body holds more than one JSON value")
	}
	if in.Query != nil {
		p.Query = *in.Query
	}
	if in.OperationName != nil {
		p.OperationName = *in.OperationName
	}
	p.Variables, p.Extensions = in.Variables, in.Extensions
	if in.DocumentID != nil {
		if p.Extensions == nil {
			p.Extensions = map[string]any{}
		}
		p.Extensions["documentId"] = *in.DocumentID
	}
	return nil
}

// decodeObject decodes a JSON object (or nothing, or null) of a GET
// parameter into *m.
func decodeObject(what, raw string, m *map[string]any) *gqlerror.Error {
	if raw == "" || raw == "null" {
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(m); err != nil {
		return decodeError(what, err)
	}
	return nil
}

func decodeError(what string, err error) *gqlerror.Error {
	msg := what + " is not valid JSON"
	if se, ok := errors.AsType[*json.SyntaxError](err); ok {
		msg += fmt.Sprintf(" (syntax error at byte %d)", se.Offset)
	} else if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		msg = fmt.Sprintf("%s: %q must be a JSON %s, not a JSON %s", what, te.Field, jsonKind(te.Type), te.Value)
	}
	return requestError(resolvers.CodeBadRequest, msg)
}

// jsonKind names the JSON value a Go type decodes from.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Map, reflect.Struct:
		return "object"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.String:
		return "string"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	}
	return t.String()
}

// readGET reads query, operationName, variables and extensions from the URL.
func readGET(r *http.Request, p *graphql.RawParams) (int, *gqlerror.Error) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return http.StatusBadRequest, requestError(resolvers.CodeBadRequest, "the URL's query string is malformed")
	}
	p.Query = q.Get("query")
	p.OperationName = q.Get("operationName")
	if err := decodeObject("variables", q.Get("variables"), &p.Variables); err != nil {
		return http.StatusBadRequest, err
	}
	if err := decodeObject("extensions", q.Get("extensions"), &p.Extensions); err != nil {
		return http.StatusBadRequest, err
	}
	if id := q.Get("documentId"); id != "" {
		if p.Extensions == nil {
			p.Extensions = map[string]any{}
		}
		p.Extensions["documentId"] = id
	}
	return 0, nil
}

// responseType picks the response media type from Accept: the first of
// application/json or application/graphql-response+json named (wildcards
// mean application/json, as for clients that predate the newer type).
func responseType(accept string) string {
	if accept == "" {
		return mediaJSON
	}
	for part := range strings.SplitSeq(accept, ",") {
		mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		switch mt {
		case "*/*", "application/*", mediaJSON:
			return mediaJSON
		case mediaGraphQLResponse:
			return mediaGraphQLResponse
		}
	}
	return mediaJSON
}

func requestError(code, msg string) *gqlerror.Error {
	return &gqlerror.Error{Message: msg, Extensions: map[string]any{"code": code}}
}

// writeRequestErrors writes a response without a data entry: the request
// failed before execution.
func writeRequestErrors(w http.ResponseWriter, status int, errs gqlerror.List) {
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(struct {
		Errors gqlerror.List `json:"errors"`
	}{errs})
}
