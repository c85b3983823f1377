package graphqlhttp_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/okrgate/okrgate/resolvers"
	"github.com/okrgate/okrgate/resolvers/infra/limits"
	"github.com/okrgate/okrgate/resolvers/transport/graphqlhttp"
)

// rawResponse is an HTTP answer of /graphql kept as bytes, to check which
// keys it holds.
type rawResponse struct {
	status int
	ctype  string
	body   []byte
}

func (r rawResponse) decode(t *testing.T) (keys map[string]json.RawMessage, code, msg string) {
	t.Helper()
	if err := json.Unmarshal(r.body, &keys); err != nil {
		t.Fatalf("HTTP %d: not JSON: %.200s", r.status, r.body)
	}
	var errs []gqlError
	_ = json.Unmarshal(keys["errors"], &errs)
	if len(errs) > 0 {
		code, _ = errs[0].Extensions["code"].(string)
		msg = errs[0].Message
	}
	return keys, code, msg
}

func rawDo(t *testing.T, req *http.Request) rawResponse {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return rawResponse{resp.StatusCode, resp.Header.Get("Content-Type"), b}
}

// TestGraphQLOverHTTPStatuses: the statuses and bodies the GraphQL-over-HTTP
// spec asks for (what .ci/graphql-http-audit.sh checks from outside).
func TestGraphQLOverHTTPStatuses(t *testing.T) {
	f := newFixture(t, graphqlhttp.Config{})
	post := func(body, accept string) rawResponse {
		req, _ := http.NewRequest(http.MethodPost, f.srv.URL, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+f.token)
		req.Header.Set("Content-Type", "application/json")
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		return rawDo(t, req)
	}
	const grj = "application/graphql-response+json"
	for _, tc := range []struct {
		name, body, accept string
		status             int
		code               string
		data               bool // whether the data key is present
	}{
		{"parse error, json", `{"query":"{"}`, "", 200, resolvers.CodeParseFailed, false},
		{"validation error, json", `{"query":"{ nope }"}`, "application/json", 200, resolvers.CodeValidationFailed, false},
		{"parse error, graphql-response", `{"query":"{"}`, grj, 400, resolvers.CodeParseFailed, false},
		{"validation error, graphql-response", `{"query":"{ nope }"}`, grj, 400, resolvers.CodeValidationFailed, false},
		{"limit, graphql-response", `{"query":"{ __typename @skip(if: false) @skip(if: false) }", "variables": {"a": [` + strings.Repeat("1,", 10_000) + `1]}}`, grj, 400, limits.CodeVariablesLimit, false},
		{"no query", `{}`, "", 400, resolvers.CodeBadRequest, false},
		{"query not a string", `{"query": 1}`, "", 400, resolvers.CodeBadRequest, false},
		{"variables not an object", `{"query":"{ __typename }","variables":[1]}`, "", 400, resolvers.CodeBadRequest, false},
		{"two JSON values", `{"query":"{ __typename }"} {}`, "", 400, resolvers.CodeBadRequest, false},
		{"ok, graphql-response", `{"query":"{ __typename }"}`, grj, 200, "", true},
		{"field error, graphql-response", `{"query":"mutation { deleteTask(id: \"000000000000000000000000\") }"}`, grj, 200, resolvers.CodeNotFound, true},
	} {
		r := post(tc.body, tc.accept)
		keys, code, msg := r.decode(t)
		_, hasData := keys["data"]
		if r.status != tc.status || code != tc.code || hasData != tc.data {
			t.Errorf("%s: HTTP %d %s data=%v (%s), want HTTP %d %s data=%v", tc.name, r.status, code, hasData, msg, tc.status, tc.code, tc.data)
		}
		want := "application/json"
		if tc.accept == grj {
			want = grj
		}
		if r.ctype != want {
			t.Errorf("%s: Content-Type %q, want %q", tc.name, r.ctype, want)
		}
	}
	// A mutation over GET is refused: GET must not change anything.
	req, _ := http.NewRequest(http.MethodGet, f.srv.URL+"?query="+url.QueryEscape(`mutation { deleteGoal(id: "000000000000000000000000") }`), nil)
	req.Header.Set("Authorization", "Bearer "+f.token)
	r := rawDo(t, req)
	if _, code, _ := r.decode(t); r.status != http.StatusMethodNotAllowed || code != resolvers.CodeBadRequest {
		t.Errorf("mutation over GET: HTTP %d %s", r.status, r.body)
	}
}

// TestBadBodies: an oversized body is 413 with a GraphQL error, declared or
// not; an undecodable body is 400 and never echoed; a read error never
// reveals the addresses it names.
func TestBadBodies(t *testing.T) {
	f := newFixture(t, graphqlhttp.Config{})
	hdr := func(req *http.Request) *http.Request {
		req.Header.Set("Authorization", "Bearer "+f.token)
		req.Header.Set("Content-Type", "application/json")
		return req
	}
	// 10 MB, declared.
	big := `{"query":"{ __typename }","variables":{"x":"` + strings.Repeat("a", 10<<20) + `"}}`
	req, _ := http.NewRequest(http.MethodPost, f.srv.URL, strings.NewReader(big))
	r := rawDo(t, hdr(req))
	if _, code, _ := r.decode(t); r.status != http.StatusRequestEntityTooLarge || code != resolvers.CodeRequestTooLarge {
		t.Errorf("10 MB declared: HTTP %d %.200s", r.status, r.body)
	}
	// 10 MB, chunked (no Content-Length): refused once the limit is read.
	req, _ = http.NewRequest(http.MethodPost, f.srv.URL, io.MultiReader(strings.NewReader(big)))
	req.ContentLength = -1
	r = rawDo(t, hdr(req))
	if _, code, _ := r.decode(t); r.status != http.StatusRequestEntityTooLarge || code != resolvers.CodeRequestTooLarge {
		t.Errorf("10 MB chunked: HTTP %d %.200s", r.status, r.body)
	}
	// A declared 10 GB is refused before a byte of it is sent.
	req, _ = http.NewRequest(http.MethodPost, f.srv.URL, strings.NewReader("{}"))
	req.ContentLength = 10_000_000_000
	req.Body = io.NopCloser(io.LimitReader(neverEnding{}, req.ContentLength))
	r = rawDo(t, hdr(req))
	if _, code, _ := r.decode(t); r.status != http.StatusRequestEntityTooLarge || code != resolvers.CodeRequestTooLarge {
		t.Errorf("10 GB declared: HTTP %d %.200s", r.status, r.body)
	}
	// Undecodable bodies: 400, and the body's content is not echoed.
	const secret = "s3cr3t-in-the-body"
	for _, body := range []string{`{"query": "` + secret, `not json ` + secret, `{"query": {"` + secret + `": 1}}`} {
		req, _ = http.NewRequest(http.MethodPost, f.srv.URL, strings.NewReader(body))
		r = rawDo(t, hdr(req))
		if _, code, msg := r.decode(t); r.status != http.StatusBadRequest || code != resolvers.CodeBadRequest || bytes.Contains(r.body, []byte(secret)) {
			t.Errorf("body %q: HTTP %d %s: %s", body, r.status, code, msg)
		}
	}
	// A read error (a timeout) names the socket's addresses: they stay out
	// of the answer.
	h := graphqlhttp.NewHandler(graphqlhttp.Config{API: f.store, Auth: f.store})
	rec := httptest.NewRecorder()
	req = httptest.NewRequest(http.MethodPost, "/graphql", io.MultiReader(strings.NewReader(`{"query":`), failingReader{}))
	h.ServeHTTP(rec, hdr(req))
	if rec.Code != http.StatusBadRequest || strings.Contains(rec.Body.String(), "10.1.2.3") || strings.Contains(rec.Body.String(), "timeout") {
		t.Errorf("read error: HTTP %d %s", rec.Code, rec.Body)
	}
}

type neverEnding struct{}

func (neverEnding) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}

// failingReader fails like a connection whose read deadline passed.
type failingReader struct{}

func (failingReader) Read([]byte) (int, error) {
	return 0, errors.New("read tcp 10.1.2.3:8080->10.1.2.4:51234: i/o timeout")
}
