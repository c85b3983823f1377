package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/client"
	"github.com/okrgate/okrgate/upstream/infra/instrument"
	"github.com/okrgate/okrgate/upstream/transport/rest"
)

// gatewayPair is a store's REST facade and a gateway's REST facade over a
// client of it (decorated as serve decorates it), both on real HTTP.
type gatewayPair struct {
	b       *backend
	store   string // base URL of the facade over the store
	gateway string // base URL of the facade over the client
	token   string
	account string
	posts   atomic.Int64 // POSTs that reached the store's facade
}

func newGatewayPair(t *testing.T) *gatewayPair {
	t.Helper()
	p := &gatewayPair{b: newBackend(t, rest.Options{})}
	count := func(next http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			if r.Method == http.MethodPost {
				p.posts.Add(1)
			}
			return next.RoundTrip(r)
		})
	}
	c := p.b.newClient(t, client.Options{Transport: count(client.NewTransport())})
	gw := httptest.NewServer(rest.New(instrument.New(c, nil), rest.Options{Auth: c}))
	t.Cleanup(gw.Close)
	p.store, p.gateway, p.token = p.b.srv.URL, gw.URL, p.b.env.Admin
	caller, err := p.b.store.Authenticate(context.Background(), p.token)
	if err != nil {
		t.Fatal(err)
	}
	p.account = caller.AccountID
	return p
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// reply is an HTTP answer: status, headers, body and the problem code.
type reply struct {
	status int
	header http.Header
	body   []byte
	code   string
}

func (p *gatewayPair) do(t *testing.T, base, method, path, body string, header map[string]string) reply {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+p.token)
	req.Header.Set("service-accountId", p.account)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	r := reply{status: resp.StatusCode, header: resp.Header, body: b}
	var prob struct {
		Code string `json:"code"`
	}
	if resp.StatusCode >= 400 && json.Unmarshal(b, &prob) == nil {
		r.code = prob.Code
	}
	return r
}

func idOfBody(t *testing.T, b []byte) string {
	t.Helper()
	var v struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(b, &v); err != nil || v.ID == "" {
		t.Fatalf("no id in %s", b)
	}
	return v.ID
}

// TestGatewayIdempotencyKey: a POST retried with its Idempotency-Key through
// the gateway creates one item, upstream included; the retry answers the
// first answer, marked replayed; the key with another body and a key on an
// operation without one answer the same codes through the gateway as on
// the store.
func TestGatewayIdempotencyKey(t *testing.T) {
	p := newGatewayPair(t)
	key := map[string]string{"Idempotency-Key": "gw-retry-1"}
	first := p.do(t, p.gateway, "POST", "/api/v1/sessions", `{"title":"2027 H1","start":"2027-01-01","end":"2027-06-30"}`, key)
	second := p.do(t, p.gateway, "POST", "/api/v1/sessions", `{"title":"2027 H1","start":"2027-01-01","end":"2027-06-30"}`, key)
	if first.status != 201 || second.status != 201 || !bytes.Equal(first.body, second.body) {
		t.Fatalf("retry through the gateway: %d %s / %d %s", first.status, first.body, second.status, second.body)
	}
	if first.header.Get("Idempotent-Replayed") != "" || second.header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("Idempotent-Replayed through the gateway: %q then %q", first.header.Get("Idempotent-Replayed"), second.header.Get("Idempotent-Replayed"))
	}
	if first.header.Get("Location") == "" || second.header.Get("Location") != first.header.Get("Location") {
		t.Errorf("Location: %q then %q", first.header.Get("Location"), second.header.Get("Location"))
	}
	list := p.do(t, p.store, "GET", "/api/v2/sessions?filter="+url.QueryEscape(`{"title":"2027 H1"}`), "", nil)
	var page struct {
		TotalCount int `json:"totalCount"`
	}
	if err := json.Unmarshal(list.body, &page); err != nil || page.TotalCount != 1 {
		t.Errorf("sessions titled 2027 H1 on the store after a retried POST through the gateway: %s", list.body)
	}
	if n := p.posts.Load(); n != 2 {
		t.Errorf("%d POSTs reached the upstream, want 2 (the key travels with each)", n)
	}

	// The same refusals, with the same codes, on both.
	for _, tc := range []struct {
		name, method, path, body string
		header                   map[string]string
	}{
		{"key reused with another body", "POST", "/api/v1/sessions", `{"title":"2027 H2","start":"2027-01-01","end":"2027-06-30"}`, key},
		{"key on a PATCH", "PATCH", "/api/v1/sessions/" + idOfBody(t, first.body), `{"title":"x","start":"2027-01-01","end":"2027-06-30"}`, key},
		{"malformed key", "POST", "/api/v1/sessions", `{"title":"x","start":"2027-01-01","end":"2027-06-30"}`, map[string]string{"Idempotency-Key": ""}},
	} {
		// The key was recorded upstream by the gateway's request, for the
		// same caller and path: the store's facade knows it too.
		onStore := p.do(t, p.store, tc.method, tc.path, tc.body, tc.header)
		onGateway := p.do(t, p.gateway, tc.method, tc.path, tc.body, tc.header)
		if onStore.status != onGateway.status || onStore.code != onGateway.code || onStore.status < 400 {
			t.Errorf("%s: store %d %s, gateway %d %s", tc.name, onStore.status, onStore.code, onGateway.status, onGateway.code)
		}
	}
}

// TestGatewayConditionalRequests: through the gateway, a read answers the
// upstream's ETag and honours If-None-Match (304); a write honours If-Match
// with the same codes as on the store (412 precondition_failed, nothing
// written) and answers the version it left, which both facades then show.
func TestGatewayConditionalRequests(t *testing.T) {
	p := newGatewayPair(t)
	sess := p.do(t, p.store, "POST", "/api/v1/sessions", `{"title":"2027","start":"2027-01-01","end":"2027-06-30"}`, nil)
	goal := p.do(t, p.store, "POST", "/api/v1/goals", `{"name":"g","sessionId":"`+idOfBody(t, sess.body)+`"}`, nil)
	task := p.do(t, p.store, "POST", "/api/v2/integrations/tasks", `{"name":"t"}`, nil)
	for _, r := range []reply{sess, goal, task} {
		if r.status != 201 {
			t.Fatalf("setup: %d %s", r.status, r.body)
		}
	}
	for _, tc := range []struct{ path, patch string }{
		{"/api/v1/goals/" + idOfBody(t, goal.body), `{"name":"g2"}`},
		{"/api/v1/sessions/" + idOfBody(t, sess.body), `{"title":"2027 bis","start":"2027-01-01","end":"2027-06-30"}`},
		{"/api/v2/integrations/tasks/" + idOfBody(t, task.body), `{"name":"t2"}`},
	} {
		get := func(base string, h map[string]string) reply { return p.do(t, base, "GET", tc.path, "", h) }
		direct, via := get(p.store, nil), get(p.gateway, nil)
		etag := direct.header.Get("ETag")
		if etag == "" || via.header.Get("ETag") != etag || via.status != 200 {
			t.Fatalf("GET %s: store ETag %q, gateway %d ETag %q", tc.path, etag, via.status, via.header.Get("ETag"))
		}
		if nm := get(p.gateway, map[string]string{"If-None-Match": etag}); nm.status != 304 || len(nm.body) != 0 || nm.header.Get("ETag") != etag {
			t.Errorf("GET %s If-None-Match through the gateway: %d %q ETag %q", tc.path, nm.status, nm.body, nm.header.Get("ETag"))
		}
		if nm := get(p.gateway, map[string]string{"If-None-Match": `"other"`}); nm.status != 200 {
			t.Errorf("GET %s with another If-None-Match through the gateway: %d", tc.path, nm.status)
		}
		// A stale If-Match: the same code on both, nothing written.
		stale := map[string]string{"If-Match": `"0123"`}
		onStore := p.do(t, p.store, "PATCH", tc.path, tc.patch, stale)
		onGateway := p.do(t, p.gateway, "PATCH", tc.path, tc.patch, stale)
		if onStore.status != 412 || onGateway.status != 412 || onStore.code != string(upstream.CodePreconditionFailed) || onGateway.code != onStore.code {
			t.Errorf("PATCH %s stale If-Match: store %d %s, gateway %d %s", tc.path, onStore.status, onStore.code, onGateway.status, onGateway.code)
		}
		if now := get(p.store, nil).header.Get("ETag"); now != etag {
			t.Errorf("PATCH %s with a stale If-Match through the gateway changed the version", tc.path)
		}
		// The current tag writes, and the answer carries the new version.
		up := p.do(t, p.gateway, "PATCH", tc.path, tc.patch, map[string]string{"If-Match": etag})
		newTag := up.header.Get("ETag")
		if up.status != 200 || newTag == "" || newTag == etag {
			t.Fatalf("PATCH %s If-Match current through the gateway: %d ETag %q (was %q): %s", tc.path, up.status, newTag, etag, up.body)
		}
		if got := get(p.store, nil).header.Get("ETag"); got != newTag {
			t.Errorf("PATCH %s through the gateway answered ETag %q, the store shows %q", tc.path, newTag, got)
		}
		// The old tag is stale now on both.
		onStore = p.do(t, p.store, "DELETE", tc.path, "", map[string]string{"If-Match": etag})
		onGateway = p.do(t, p.gateway, "DELETE", tc.path, "", map[string]string{"If-Match": etag})
		if onStore.status != 412 || onGateway.status != 412 || onGateway.code != onStore.code {
			t.Errorf("DELETE %s stale If-Match: store %d %s, gateway %d %s", tc.path, onStore.status, onStore.code, onGateway.status, onGateway.code)
		}
		if del := p.do(t, p.gateway, "DELETE", tc.path, "", map[string]string{"If-Match": newTag}); del.status != 204 {
			t.Errorf("DELETE %s with the current tag through the gateway: %d %s", tc.path, del.status, del.body)
		}
		if gone := get(p.gateway, nil); gone.status != 404 || gone.code != string(upstream.CodeNotFound) {
			t.Errorf("GET %s after the delete: %d %s", tc.path, gone.status, gone.code)
		}
	}
	// If-Match where the contract takes none: the same refusal on both.
	onStore := p.do(t, p.store, "POST", "/api/v1/sessions", `{"title":"x","start":"2027-01-01","end":"2027-06-30"}`, map[string]string{"If-Match": "*"})
	onGateway := p.do(t, p.gateway, "POST", "/api/v1/sessions", `{"title":"x","start":"2027-01-01","end":"2027-06-30"}`, map[string]string{"If-Match": "*"})
	if onStore.status != 400 || onGateway.status != onStore.status || onGateway.code != onStore.code {
		t.Errorf("If-Match on a POST: store %d %s, gateway %d %s", onStore.status, onStore.code, onGateway.status, onGateway.code)
	}
}
