// Package oidctest runs a real OpenID Provider for tests: the npm package
// oidc-provider (OpenID Certified), started on 127.0.0.1 from
// .ci/oidc/provider.mjs. It issues JWT access tokens with the
// client_credentials grant, each client standing for one user, and can
// rotate its signing key.
//
// Tests that need it skip, with a message saying how to install it (npm ci
// --prefix .ci/oidc), when node or the package is missing — unless
// OKRGATE_REQUIRE_OIDC is set (CI sets it), when they fail instead.
package oidctest

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Audience is the resource the provider issues tokens for by default.
const Audience = "https://okrgate.test"

// Client is one OAuth client of the provider, standing for one user (its
// sub is ID): its tokens carry Email (email_verified true), the scopes of
// Scope, the groups of Groups, and live TTL seconds (600 when zero). The
// claims of Claims are added last: they may replace any other (sub,
// email_verified, iat, exp), as a provider's mapping or a broken provider
// would.
type Client struct {
	ID     string         `json:"id"`
	Secret string         `json:"secret"`
	Email  string         `json:"email"`
	Scope  string         `json:"scope"`
	Groups []string       `json:"groups,omitempty"`
	TTL    int            `json:"ttl,omitempty"`
	Claims map[string]any `json:"claims,omitempty"`
}

// Provider is a running OpenID Provider.
type Provider struct {
	// Issuer is its issuer URL, http://127.0.0.1:PORT.
	Issuer string
}

// Start starts the provider with clients; it stops when the test ends.
func Start(t testing.TB, clients []Client) *Provider {
	t.Helper()
	_, here, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(here), "..", "..", "..", "..", ".ci", "oidc")
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
	issuers := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if iss, ok := strings.CutPrefix(sc.Text(), "issuer "); ok {
				issuers <- iss
			}
		}
		close(issuers)
	}()
	select {
	case iss, ok := <-issuers:
		if !ok {
			t.Fatal("the OpenID Provider exited before it listened")
		}
		return &Provider{Issuer: iss}
	case <-time.After(2 * time.Minute):
		t.Fatal("the OpenID Provider did not start within 2 minutes")
	}
	return nil
}

// Token asks the provider for an access token of client c for resource
// (its audience).
func (p *Provider) Token(t testing.TB, c Client, resource string) string {
	t.Helper()
	form := url.Values{"grant_type": {"client_credentials"}, "scope": {c.Scope}, "resource": {resource}}
	req, _ := http.NewRequest(http.MethodPost, p.Issuer+"/token", strings.NewReader(form.Encode()))
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

// Rotate makes the provider sign with a new key; the old one leaves its
// JWKS.
func (p *Provider) Rotate(t testing.TB) {
	t.Helper()
	resp, err := http.Post(p.Issuer+"/rotate", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("rotate: %d", resp.StatusCode)
	}
}

// KeyFetches returns how many times the provider's JWKS has been fetched.
func (p *Provider) KeyFetches(t testing.TB) int {
	t.Helper()
	resp, err := http.Get(p.Issuer + "/stats")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var s struct {
		JWKS int `json:"jwks"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&s); err != nil {
		t.Fatal(err)
	}
	return s.JWKS
}

// Claims reads the claims of a JWT, unverified.
func Claims(t testing.TB, token string) map[string]any {
	t.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("not a JWT: %q", token)
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var c map[string]any
	if err := json.Unmarshal(payload, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// Expiry reads the exp claim of a JWT, unverified.
func Expiry(t testing.TB, token string) time.Time {
	t.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("not a JWT: %q", token)
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
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

// AlgNone returns token's claims under the header {"alg":"none"} and no
// signature: what an attacker forging a token sends.
func AlgNone(token string) string {
	parts := strings.Split(token, ".")
	head := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"at+jwt"}`))
	return head + "." + parts[1] + "."
}
