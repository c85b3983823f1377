package authn_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/okrgate/okrgate/resolvers/transport/graphqlhttp"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
	"github.com/okrgate/okrgate/upstream/infra/authn"
	"github.com/okrgate/okrgate/upstream/infra/authn/oidctest"
	"github.com/okrgate/okrgate/upstream/transport/rest"
)

// signedIn is okrgate's two facades over a store, behind one
// Authenticator that accepts the provider's tokens.
type signedIn struct {
	rest, graphql *httptest.Server
	account       string
	apiToken      string
}

func newSignedIn(t *testing.T, p *oidctest.Provider, skew time.Duration) *signedIn {
	return newSignedInWith(t, p, authn.OIDCConfig{ClockSkew: skew, KeyRefetch: time.Second})
}

// newSignedInWith is newSignedIn with the settings of cfg (its issuer and
// audience are the provider's).
func newSignedInWith(t *testing.T, p *oidctest.Provider, cfg authn.OIDCConfig) *signedIn {
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
	cfg.Issuers, cfg.Audience = []string{p.Issuer}, oidctest.Audience
	v, err := authn.NewOIDC(ctx, cfg, st)
	if err != nil {
		t.Fatal(err)
	}
	a := authn.New(st, v)
	s := &signedIn{account: boot.AccountID, apiToken: boot.Token}
	s.rest = httptest.NewServer(rest.New(st, rest.Options{Authn: a}))
	s.graphql = httptest.NewServer(graphqlhttp.NewHandler(graphqlhttp.Config{API: st, Authn: a}))
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

// TestSignInWithOpenIDProvider: against a real OpenID Provider, a token it
// issues for okrgate's audience to a user of the account works on REST and
// GraphQL, with the scopes it grants (read-only refuses writes); an
// expired token, a token for another audience, one signed with a key the
// provider rotated out, one with alg none, one of a user the account does
// not have and one granting neither scope are refused with the usual
// problem bodies and GraphQL errors. API tokens keep working beside them.
func TestSignInWithOpenIDProvider(t *testing.T) {
	const write, read = "okrgate:read okrgate:write", "okrgate:read"
	ada := map[string]any{"sub": "ada"} // one person, several clients
	clients := []oidctest.Client{
		{ID: "app", Secret: "app-secret", Email: "admin@acme.test", Scope: write, Claims: ada},
		{ID: "viewer", Secret: "viewer-secret", Email: "admin@acme.test", Scope: read, Claims: ada},
		{ID: "short", Secret: "short-secret", Email: "admin@acme.test", Scope: write, TTL: 1, Claims: ada},
		{ID: "stranger", Secret: "stranger-secret", Email: "nobody@elsewhere.test", Scope: write},
		{ID: "scopeless", Secret: "scopeless-secret", Email: "admin@acme.test", Scope: "other", Claims: ada},
		{ID: "grouped", Secret: "grouped-secret", Email: "admin@acme.test", Scope: "other", Groups: []string{"okrgate:write"}, Claims: ada},
	}
	p := oidctest.Start(t, clients)
	const skew = time.Second
	s := newSignedIn(t, p, skew)
	session := map[string]any{"title": "H1", "start": "2026-01-01", "end": "2026-06-30"}
	const list = "/api/v2/integrations/goals"
	const query = `{ __typename }`

	good := p.Token(t, clients[0], oidctest.Audience)
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
	viewer := p.Token(t, clients[1], oidctest.Audience)
	if a := s.restCall(t, viewer, http.MethodGet, list, nil); a.status != http.StatusOK {
		t.Errorf("REST read with a read-scoped token: %+v", a)
	}
	if a := s.restCall(t, viewer, http.MethodPost, "/api/v1/sessions", session); a.status != http.StatusForbidden || a.code != "insufficient_scope" {
		t.Errorf("REST write with a read-scoped token: %+v, want 403 insufficient_scope", a)
	}
	if a := s.restCall(t, p.Token(t, clients[5], oidctest.Audience), http.MethodPost, "/api/v1/sessions", session); a.status != http.StatusCreated {
		t.Errorf("REST write with the write group: %+v", a)
	}

	refused := []struct {
		name   string
		token  string
		status int
		code   string
	}{
		{"another audience", p.Token(t, clients[0], "https://other.test"), 401, "unauthenticated"},
		{"alg none", oidctest.AlgNone(good), 401, "unauthenticated"},
		{"a user the account does not have", p.Token(t, clients[3], oidctest.Audience), 401, "unauthenticated"},
		{"neither scope nor group", p.Token(t, clients[4], oidctest.Audience), 403, "forbidden"},
		{"not a token", "eyJhbGciOiJSUzI1NiJ9.e30.c2ln", 401, "unauthenticated"},
	}
	// Expired: past its exp and the allowed clock skew.
	short := p.Token(t, clients[2], oidctest.Audience)
	time.Sleep(time.Until(oidctest.Expiry(t, short).Add(skew + time.Second)))
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
	// fetched again for its unknown key id: the last fetch, before the
	// expiry above, is older than KeyRefetch); one of the key rotated out
	// is refused, though it was accepted before.
	p.Rotate(t)
	fresh := p.Token(t, clients[0], oidctest.Audience)
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
