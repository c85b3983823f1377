package main_test

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/okrgate/okrgate/upstream/infra/authn/oidctest"
)

// TestServeSignIn: the built binary, started with --oidc-issuer and
// --oidc-audience naming a real OpenID Provider on 127.0.0.1, accepts the
// provider's access token of a user of the account on REST and GraphQL,
// refuses one issued for another audience, and keeps accepting API tokens.
// (The other refusals — expired, rotated-out key, alg none — are
// TestSignInWithOpenIDProvider's, in upstream/infra/authn.)
func TestServeSignIn(t *testing.T) {
	app := oidctest.Client{ID: "app", Secret: "app-secret", Email: "admin@acme.test", Scope: "okrgate:read okrgate:write"}
	p := oidctest.Start(t, []oidctest.Client{app})
	db := filepath.Join(t.TempDir(), "signin.db")
	boot := bootstrapDB(t, db, "Acme", "admin@acme.test")
	srv := startServer(t, db, "--oidc-issuer", p.Issuer, "--oidc-audience", oidctest.Audience)
	hc := conformingClient(t)

	token := p.Token(t, app, oidctest.Audience)
	c := client{t: t, hc: hc, base: srv.base, token: token, acct: boot.AccountID}
	if status, body, _ := c.do("POST", "/api/v1/sessions", map[string]any{"title": "H1", "start": "2026-01-01", "end": "2026-06-30"}); status != http.StatusCreated {
		t.Fatalf("REST write with the provider's token: %d %v", status, body)
	}
	if status, _, _ := c.do("GET", "/api/v2/integrations/goals", nil); status != http.StatusOK {
		t.Errorf("REST read with the provider's token: %d", status)
	}
	gql := func(token string) int {
		req, _ := http.NewRequest(http.MethodPost, srv.base+"/graphql", strings.NewReader(`{"query":"{ sessions(first: 5) { nodes { title } } }"}`))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("service-accountId", boot.AccountID)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if status := gql(token); status != http.StatusOK {
		t.Errorf("GraphQL with the provider's token: %d", status)
	}
	other := client{t: t, hc: hc, base: srv.base, token: p.Token(t, app, "https://other.test"), acct: boot.AccountID}
	if status, body, _ := other.do("GET", "/api/v2/integrations/goals", nil); status != http.StatusUnauthorized || body["code"] != "unauthenticated" {
		t.Errorf("REST with a token for another audience: %d %v", status, body)
	}
	if status := gql(other.token); status != http.StatusUnauthorized {
		t.Errorf("GraphQL with a token for another audience: %d", status)
	}
	api := client{t: t, hc: hc, base: srv.base, token: boot.Token, acct: boot.AccountID}
	if status, _, _ := api.do("GET", "/api/v2/integrations/goals", nil); status != http.StatusOK {
		t.Errorf("an API token beside sign-in: %d", status)
	}
	srv.stop(t)
}
