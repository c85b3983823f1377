package authn_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/okrgate/okrgate/resolvers"
	"github.com/okrgate/okrgate/upstream/authn"
	"github.com/okrgate/okrgate/upstream/rest"
	"github.com/okrgate/okrgate/upstream/sqlstore"
)

// audience is the resource the test provider issues okrgate's tokens for.
const audience = "https://okrgate.test"

// provider is a running OpenID Provider (.ci/oidc/provider.mjs: the npm
// package oidc-provider) on 127.0.0.1.
type provider struct {
	issuer string
}

// client is one OAuth client of the provider, standing for one user.
type client struct {
	ID     string   `json:"id"`
	Secret string   `json:"secret"`
	Email  string   `json:"email"`
	Scope  string   `json:"scope"`
	Groups []string `json:"groups,omitempty"`
	TTL    int      `json:"ttl,omitempty"`
}

// startProvider starts the provider with clients, or skips the test when
// node or the provider's npm packages are missing (npm ci --prefix
// .ci/oidc installs them; CI does, and sets OKRGATE_REQUIRE_OIDC so that
// a missing provider fails instead).
func startProvider(t *testing.T, clients []client) *provider {
	t.Helper()
	dir, _ := filepath.Abs(filepath.Join("..", "..", ".ci", "oidc"))
	missing := func(why string) {
		if os.Getenv("OKRGATE_REQUIRE_OIDC") != "" {
			t.Fatalf("the OpenID Provider cannot run: %s", why)
		}
		t.Skipf("skipping the sign-in test against a real OpenID Provider: %s (install it with: npm ci --prefix .ci/oidc)", why)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node is not installed")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "oidc-provider")); err != nil {
		missing("the npm package oidc-provider is not installed in .ci/oidc")
	}
	spec, _ := json.Marshal(map[string]any{"clients": clients})
	cmd := exec.Command(node, filepath.Join(dir, "provider.mjs"), string(spec))
	cmd.Dir = dir
	cmd.Stderr = io.Discard
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if iss, ok := strings.CutPrefix(sc.Text(), "issuer "); ok {
				lines <- iss
			}
		}
		close(lines)
	}()
	select {
	case iss, ok := <-lines:
		if !ok {
			t.Fatal("the provider exited before it listened")
		}
		return &provider{issuer: iss}
	case <-time.After(2 * time.Minute):
		t.Fatal("the provider did not start within 2 minutes")
	}
	return nil
}

// token asks the provider for an access token of client c for resource.
func (p *provider) token(t *testing.T, c client, resource string) string {
	t.Helper()
	form := url.Values{"grant_type": {"client_credentials"}, "scope": {c.Scope}, "resource": {resource}}
	req, _ := http.NewRequest(http.MethodPost, p.issuer+"/token", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(c.ID, c.Secret)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		AccessToken string `json:"access_token"`
		Error       string `json:"error_description"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&body)
	if resp.StatusCode != http.StatusOK || body.AccessToken == "" {
		t.Fatalf("token for %s: %d %s", c.ID, resp.StatusCode, body.Error)
	}
	return body.AccessToken
}

// rotate makes the provider sign with a new key; the old one leaves its JWKS.
func (p *provider) rotate(t *testing.T) {
	t.Helper()
	resp, err := http.Post(p.issuer+"/rotate", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}

// signedIn is okrgate's two facades over a store, behind one
// Authenticator that accepts the provider's tokens.
type signedIn struct {
	rest, graphql *httptest.Server
	account       string
	apiToken      string
}

func newSignedIn(t *testing.T, p *provider, skew time.Duration) *signedIn {
	t.Helper()
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, filepath.Join(t.TempDir(), "okr.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	boot, err := st.Bootstrap(ctx, sqlstore.BootstrapInput{AccountName: "Acme", Email: "admin@acme.test", FirstName: "Ada", LastName: "Admin"})
	if err != nil {
		t.Fatal(err)
	}
	v, err := authn.NewOIDC(ctx, authn.OIDCConfig{Issuers: []string{p.issuer}, Audience: audience, ClockSkew: skew}, st)
	if err != nil {
		t.Fatal(err)
	}
	a := authn.New(st, v)
	s := &signedIn{account: boot.AccountID, apiToken: boot.Token}
	s.rest = httptest.NewServer(rest.New(st, rest.Options{Authn: a}))
	s.graphql = httptest.NewServer(resolvers.NewHandler(resolvers.Config{API: st, Authn: a}))
	t.Cleanup(s.rest.Close)
	t.Cleanup(s.graphql.Close)
	return s
}

// answer is the status and machine code of an answer.
type answer struct {
	status int
	code   string
}

// restCall sends method path with token and the account header.
func (s *signedIn) restCall(t *testing.T, token, method, path string, body any) answer {
	t.Helper()
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, s.rest.URL+path, r)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set(authn.AccountHeader, s.account)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var p rest.Problem
	_ = json.NewDecoder(resp.Body).Decode(&p)
	return answer{resp.StatusCode, p.Code}
}

// graphqlCall posts query with token and the account header.
func (s *signedIn) graphqlCall(t *testing.T, token, query string) answer {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"query": query})
	req, _ := http.NewRequest(http.MethodPost, s.graphql.URL, bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set(authn.AccountHeader, s.account)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Errors []struct {
			Extensions map[string]any `json:"extensions"`
		} `json:"errors"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&out)
	a := answer{status: resp.StatusCode}
	if len(out.Errors) > 0 {
		a.code, _ = out.Errors[0].Extensions["code"].(string)
	}
	return a
}

// expiryOf reads the exp claim of a JWT.
func expiryOf(t *testing.T, token string) time.Time {
	t.Helper()
	payload, err := base64.RawURLEncoding.DecodeString(strings.Split(token, ".")[1])
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Exp int64 `json:"exp"`
	}
	if err := json.Unmarshal(payload, &c); err != nil {
		t.Fatal(err)
	}
	return time.Unix(c.Exp, 0)
}

// algNone re-signs a token's claims with "alg": "none" and no signature.
func algNone(token string) string {
	parts := strings.Split(token, ".")
	head := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"at+jwt"}`))
	return head + "." + parts[1] + "."
}

// TestSignInWithOpenIDProvider: against a real OpenID Provider, a token it
// issues for okrgate's audience to a user of the account works on REST and
// GraphQL, with the scopes it grants (read-only refuses writes); an
// expired token, a token for another audience, one signed with a key the
// provider rotated out, one with alg none, one of a user the account does
// not have and one granting neither scope are refused with the usual
// problem bodies and GraphQL errors. API tokens keep working beside them.
func TestSignInWithOpenIDProvider(t *testing.T) {
	const write, read = "okrgate:read okrgate:write", "okrgate:read"
	clients := []client{
		{ID: "app", Secret: "app-secret", Email: "admin@acme.test", Scope: write},
		{ID: "viewer", Secret: "viewer-secret", Email: "admin@acme.test", Scope: read},
		{ID: "short", Secret: "short-secret", Email: "admin@acme.test", Scope: write, TTL: 1},
		{ID: "stranger", Secret: "stranger-secret", Email: "nobody@elsewhere.test", Scope: write},
		{ID: "scopeless", Secret: "scopeless-secret", Email: "admin@acme.test", Scope: "other"},
		{ID: "grouped", Secret: "grouped-secret", Email: "admin@acme.test", Scope: "other", Groups: []string{"okrgate:write"}},
	}
	p := startProvider(t, clients)
	const skew = time.Second
	s := newSignedIn(t, p, skew)
	session := map[string]any{"title": "H1", "start": "2026-01-01", "end": "2026-06-30"}
	const list = "/api/v2/integrations/goals"
	const query = `{ __typename }`

	good := p.token(t, clients[0], audience)
	if a := s.restCall(t, good, http.MethodGet, list, nil); a.status != http.StatusOK {
		t.Errorf("REST with the provider's token: %+v", a)
	}
	if a := s.restCall(t, good, http.MethodPost, "/api/v1/sessions", session); a.status != http.StatusCreated {
		t.Errorf("REST write with a write-scoped token: %+v", a)
	}
	if a := s.graphqlCall(t, good, query); a.status != http.StatusOK || a.code != "" {
		t.Errorf("GraphQL with the provider's token: %+v", a)
	}
	if a := s.restCall(t, s.apiToken, http.MethodGet, list, nil); a.status != http.StatusOK {
		t.Errorf("an API token beside sign-in: %+v", a)
	}
	viewer := p.token(t, clients[1], audience)
	if a := s.restCall(t, viewer, http.MethodGet, list, nil); a.status != http.StatusOK {
		t.Errorf("REST read with a read-scoped token: %+v", a)
	}
	if a := s.restCall(t, viewer, http.MethodPost, "/api/v1/sessions", session); a.status != http.StatusForbidden || a.code != "insufficient_scope" {
		t.Errorf("REST write with a read-scoped token: %+v, want 403 insufficient_scope", a)
	}
	if a := s.restCall(t, p.token(t, clients[5], audience), http.MethodPost, "/api/v1/sessions", session); a.status != http.StatusCreated {
		t.Errorf("REST write with the write group: %+v", a)
	}

	refused := []struct {
		name   string
		token  string
		status int
		code   string
	}{
		{"another audience", p.token(t, clients[0], "https://other.test"), 401, "unauthenticated"},
		{"alg none", algNone(good), 401, "unauthenticated"},
		{"a user the account does not have", p.token(t, clients[3], audience), 401, "unauthenticated"},
		{"neither scope nor group", p.token(t, clients[4], audience), 403, "forbidden"},
		{"not a token", "eyJhbGciOiJSUzI1NiJ9.e30.c2ln", 401, "unauthenticated"},
	}
	// Expired: past its exp and the allowed clock skew.
	short := p.token(t, clients[2], audience)
	time.Sleep(time.Until(expiryOf(t, short).Add(skew + time.Second)))
	refused = append(refused, struct {
		name   string
		token  string
		status int
		code   string
	}{"expired", short, 401, "unauthenticated"})
	for _, r := range refused {
		if a := s.restCall(t, r.token, http.MethodGet, list, nil); a.status != r.status || a.code != r.code {
			t.Errorf("REST with %s: %+v, want %d %s", r.name, a, r.status, r.code)
		}
		if a := s.graphqlCall(t, r.token, query); a.status != r.status || a.code != strings.ToUpper(r.code) {
			t.Errorf("GraphQL with %s: %+v, want %d %s", r.name, a, r.status, strings.ToUpper(r.code))
		}
	}

	// Key rotation: a token of the new key is accepted (the key set is
	// fetched again for its unknown key id); one of the key rotated out
	// is refused, though it was accepted before.
	p.rotate(t)
	fresh := p.token(t, clients[0], audience)
	if a := s.restCall(t, fresh, http.MethodGet, list, nil); a.status != http.StatusOK {
		t.Errorf("REST with a token of the rotated-in key: %+v", a)
	}
	if a := s.restCall(t, good, http.MethodGet, list, nil); a.status != http.StatusUnauthorized || a.code != "unauthenticated" {
		t.Errorf("REST with a token of the rotated-out key: %+v, want 401 unauthenticated", a)
	}
	if a := s.graphqlCall(t, good, query); a.status != http.StatusUnauthorized || a.code != "UNAUTHENTICATED" {
		t.Errorf("GraphQL with a token of the rotated-out key: %+v, want 401 UNAUTHENTICATED", a)
	}
}
