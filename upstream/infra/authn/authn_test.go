package authn_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/okrgate/okrgate/resolvers/transport/graphqlhttp"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
	"github.com/okrgate/okrgate/upstream/infra/authn"
	"github.com/okrgate/okrgate/upstream/transport/rest"
)

// TestBearerToken: the one parser of "Authorization: Bearer <token>".
func TestBearerToken(t *testing.T) {
	for h, want := range map[string]string{
		"Bearer abc": "abc", "bearer abc": "abc", "BEARER  abc ": "abc", " Bearer abc": "abc",
		"": "", "Bearer": "", "Bearer ": "", "Basic abc": "", "abc": "",
	} {
		got, ok := authn.BearerToken(h)
		if got != want || ok != (want != "") {
			t.Errorf("BearerToken(%q) = %q, %v; want %q", h, got, ok, want)
		}
	}
}

// TestMiddlewareAPITokens: REST and GraphQL authenticate API tokens
// through the one middleware, with the same refusals in each facade's
// shape: no token (401, a challenge without error), an unknown one (401
// invalid_token), an account header naming another account (403); REST
// also requires the header where the contract lists it (400).
func TestMiddlewareAPITokens(t *testing.T) {
	st, boot := bootstrapped(t)
	a := authn.New(st, nil)
	s := &signedIn{account: boot.AccountID, apiToken: boot.Token,
		rest:    httptest.NewServer(rest.New(st, rest.Options{Authn: a})),
		graphql: httptest.NewServer(graphqlhttp.NewHandler(graphqlhttp.Config{API: st, Authn: a}))}
	defer s.rest.Close()
	defer s.graphql.Close()
	const list = "/api/v2/integrations/goals"

	send := func(url, token, account string) (*http.Response, string) {
		var req *http.Request
		if strings.HasSuffix(url, list) {
			req, _ = http.NewRequest(http.MethodGet, url, nil)
		} else {
			req, _ = http.NewRequest(http.MethodPost, url, strings.NewReader(`{"query":"{ __typename }"}`))
			req.Header.Set("Content-Type", "application/json")
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		if account != "" {
			req.Header.Set(authn.AccountHeader, account)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp, resp.Header.Get("WWW-Authenticate")
	}
	for _, url := range []string{s.rest.URL + list, s.graphql.URL} {
		if resp, _ := send(url, boot.Token, boot.AccountID); resp.StatusCode != http.StatusOK {
			t.Errorf("%s with the token: %d", url, resp.StatusCode)
		}
		if resp, ch := send(url, "", boot.AccountID); resp.StatusCode != http.StatusUnauthorized || ch != `Bearer realm="okrgate"` {
			t.Errorf("%s without a token: %d %q", url, resp.StatusCode, ch)
		}
		if resp, ch := send(url, "okr_unknown", boot.AccountID); resp.StatusCode != http.StatusUnauthorized || !strings.Contains(ch, `error="invalid_token"`) {
			t.Errorf("%s with an unknown token: %d %q", url, resp.StatusCode, ch)
		}
		// Shaped like a JWT, without sign-in configured: an unknown API token.
		if resp, _ := send(url, "eyJhbGciOiJSUzI1NiJ9.e30.c2ln", boot.AccountID); resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s with a JWT and no issuer: %d", url, resp.StatusCode)
		}
		if resp, _ := send(url, boot.Token, "000000000000000000000000"); resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s with another account's header: %d", url, resp.StatusCode)
		}
	}
	if a := s.restCall(t, boot.Token, http.MethodGet, list, nil); a.status != http.StatusOK {
		t.Errorf("restCall: %+v", a)
	}
	if resp, _ := send(s.rest.URL+list, boot.Token, ""); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("REST without the required account header: %d", resp.StatusCode)
	}
	if resp, _ := send(s.graphql.URL, boot.Token, ""); resp.StatusCode != http.StatusOK {
		t.Errorf("GraphQL without the account header: %d", resp.StatusCode)
	}
}

// TestAuthenticateManyInOrder: the batch form answers each token in the
// order given, as Authenticate answers it alone, an unknown token failing
// without failing the batch.
func TestAuthenticateManyInOrder(t *testing.T) {
	ctx := context.Background()
	st, boot := bootstrapped(t)
	a := authn.New(st, nil)
	tokens := []string{"unknown", boot.Token, "also-unknown", boot.Token}
	got, err := a.AuthenticateMany(ctx, tokens)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(tokens) {
		t.Fatalf("%d outcomes for %d tokens", len(got), len(tokens))
	}
	for i, tok := range tokens {
		c, err := a.Authenticate(ctx, tok)
		if (err == nil) != (got[i].Err == nil) || c.UserID != got[i].Caller.UserID || c.AccountID != got[i].Caller.AccountID {
			t.Errorf("token %d: batch gave %+v, %v; alone %+v, %v", i, got[i].Caller, got[i].Err, c, err)
		}
	}
	if got[1].Caller.AccountID != boot.AccountID {
		t.Errorf("the bootstrap token's account is %q, want %q", got[1].Caller.AccountID, boot.AccountID)
	}
}

// bootstrapped opens a store on a new SQLite file, closed when the test
// ends, with one bootstrapped account and its admin's API token.
func bootstrapped(t *testing.T) (*sqlstore.Store, sqlstore.BootstrapResult) {
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
	return st, boot
}
