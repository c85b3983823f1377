package main_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/go-jose/go-jose/v4"

	"github.com/okrgate/okrgate/upstream/infra/authn/oidctest"
)

// The end-to-end security probes of sign-in with an identity provider
// (docs/authorization.md, "Sign-in with an identity provider"): the built
// binary against a real OpenID Provider on 127.0.0.1.

const rw = "okrgate:read okrgate:write"

// signInWorld is two accounts in one database, Acme and Globex, and pat, a
// user of both (pat@example.test), as an admin of each creates it.
type signInWorld struct {
	db            string
	acme, globex  bootResult
	patAcme, bob  string // user ids in Acme
	acmeGoal      string // a goal of Acme
	globexGoal    string // a goal of Globex
	admin, gadmin client
}

func newSignInWorld(t *testing.T, hc *http.Client, base string, w *signInWorld) {
	t.Helper()
	w.admin = client{t: t, hc: hc, base: base, token: w.acme.Token, acct: w.acme.AccountID}
	w.gadmin = client{t: t, hc: hc, base: base, token: w.globex.Token, acct: w.globex.AccountID}
	w.patAcme = w.admin.must("POST", "/api/v2/users", map[string]any{"email": "pat@example.test", "firstName": "Pat"}, 201)["id"].(string)
	w.gadmin.must("POST", "/api/v2/users", map[string]any{"email": "pat@example.test", "firstName": "Pat"}, 201)
	w.bob = w.admin.must("POST", "/api/v2/users", map[string]any{"email": "bob@acme.test", "firstName": "Bob"}, 201)["id"].(string)
	for _, c := range []struct {
		cl   client
		goal *string
	}{{w.admin, &w.acmeGoal}, {w.gadmin, &w.globexGoal}} {
		sess := c.cl.must("POST", "/api/v1/sessions", map[string]any{"title": "Q1", "start": "2027-01-01", "end": "2027-03-31"}, 201)
		*c.goal = c.cl.must("POST", "/api/v1/goals", map[string]any{"name": "Grow", "sessionId": sess["id"]}, 201)["id"].(string)
	}
}

func newWorldDB(t *testing.T) *signInWorld {
	t.Helper()
	db := filepath.Join(t.TempDir(), "signin.db")
	return &signInWorld{db: db, acme: bootstrapDB(t, db, "Acme", "admin@acme.test"), globex: bootstrapDB(t, db, "Globex", "admin@globex.test")}
}

// me returns the user id the token acts as in acct (GET /api/v2/users/me),
// or the status when refused.
func me(t *testing.T, hc *http.Client, base, token, acct string) (string, int) {
	t.Helper()
	c := client{t: t, hc: hc, base: base, token: token, acct: acct}
	status, body, _ := c.do("GET", "/api/v2/users/me", nil)
	id, _ := body["userId"].(string)
	return id, status
}

// TestSignInBindsAPerson: the user claim is matched against e-mails only
// (a token whose email is the admin's user id is refused), only when the
// provider verified it (email_verified false is refused unless
// --oidc-allow-unverified-email), and the first identity to sign in as a
// user is bound to it: another subject claiming that e-mail is refused,
// and the bound subject claiming another user's e-mail still signs in as
// its own user. A verified e-mail signs in. The first admin's id is not
// the account id plus one.
func TestSignInBindsAPerson(t *testing.T) {
	w := newWorldDB(t)
	acct, _ := new(big.Int).SetString(w.acme.AccountID, 16)
	if next := fmt.Sprintf("%024x", acct.Add(acct, big.NewInt(1))); next == w.acme.UserID || w.acme.UserID[14:] == w.acme.AccountID[14:] {
		t.Errorf("the first admin's id %s is guessable from the account id %s", w.acme.UserID, w.acme.AccountID)
	}
	ada := map[string]any{"sub": "ada"}
	clients := []oidctest.Client{
		{ID: "ada", Secret: "s", Email: "admin@acme.test", Scope: rw},
		{ID: "by-id", Secret: "s", Email: w.acme.UserID, Scope: rw},
		{ID: "unverified", Secret: "s", Email: "pat@example.test", Scope: rw, Claims: map[string]any{"email_verified": false}},
		{ID: "no-verified", Secret: "s", Email: "pat@example.test", Scope: rw, Claims: map[string]any{"email_verified": nil}},
		{ID: "mallory", Secret: "s", Email: "admin@acme.test", Scope: rw},
		{ID: "ada-as-bob", Secret: "s", Email: "bob@acme.test", Scope: rw, Claims: ada},
	}
	p := oidctest.Start(t, clients)
	srv := startServer(t, w.db, "--oidc-issuer", p.Issuer, "--oidc-audience", oidctest.Audience)
	hc := conformingClient(t)
	newSignInWorld(t, hc, srv.base, w)
	tok := func(id string) string {
		for _, c := range clients {
			if c.ID == id {
				return p.Token(t, c, oidctest.Audience)
			}
		}
		t.Fatalf("no client %s", id)
		return ""
	}

	if id, status := me(t, hc, srv.base, tok("ada"), w.acme.AccountID); status != 200 || id != w.acme.UserID {
		t.Fatalf("a verified e-mail: %d %s, want the admin %s", status, id, w.acme.UserID)
	}
	for _, name := range []string{"by-id", "unverified", "no-verified", "mallory"} {
		if id, status := me(t, hc, srv.base, tok(name), w.acme.AccountID); status != 401 {
			t.Errorf("%s: %d %s, want 401", name, status, id)
		}
	}
	if id, status := me(t, hc, srv.base, tok("ada-as-bob"), w.acme.AccountID); status != 200 || id != w.acme.UserID {
		t.Errorf("the bound identity claiming bob's e-mail: %d %s, want the admin %s (never bob %s)", status, id, w.acme.UserID, w.bob)
	}
	srv.stop(t)

	// The opt-out, for providers that never send email_verified.
	srv = startServer(t, w.db, "--oidc-issuer", p.Issuer, "--oidc-audience", oidctest.Audience, "--oidc-allow-unverified-email")
	if id, status := me(t, hc, srv.base, tok("no-verified"), w.acme.AccountID); status != 200 || id != w.patAcme {
		t.Errorf("--oidc-allow-unverified-email: %d %s, want pat %s", status, id, w.patAcme)
	}
	if _, status := me(t, hc, srv.base, tok("by-id"), w.acme.AccountID); status != 401 {
		t.Errorf("--oidc-allow-unverified-email, an id as the e-mail: %d, want 401", status)
	}
	srv.stop(t)
}

// TestSignInAccountClaimPins: with --oidc-account-claim, the claim (a
// string, or an array of one) chooses the account and the header may only
// agree; a token whose claim is missing, an array of two, a number, "" or
// null is refused whatever the header says — pat, a user of both accounts,
// cannot carry a token issued for Acme into Globex.
func TestSignInAccountClaimPins(t *testing.T) {
	w := newWorldDB(t)
	pat := func(id string, v any, set bool) oidctest.Client {
		c := oidctest.Client{ID: id, Secret: "s", Email: "pat@example.test", Scope: rw, Claims: map[string]any{"sub": "pat"}}
		if set {
			c.Claims["acct"] = v
		}
		return c
	}
	good := []oidctest.Client{pat("string", w.acme.AccountID, true), pat("array-of-one", []any{w.acme.AccountID}, true)}
	bad := []oidctest.Client{pat("missing", nil, false), pat("array-of-two", []any{w.acme.AccountID, w.globex.AccountID}, true),
		pat("number", 7, true), pat("empty", "", true), pat("null", nil, true)}
	p := oidctest.Start(t, append(good, bad...))
	srv := startServer(t, w.db, "--oidc-issuer", p.Issuer, "--oidc-audience", oidctest.Audience, "--oidc-account-claim", "acct")
	hc := conformingClient(t)
	newSignInWorld(t, hc, srv.base, w)
	for _, c := range good {
		token := p.Token(t, c, oidctest.Audience)
		for _, acct := range []string{w.acme.AccountID, ""} {
			if id, status := me(t, hc, srv.base, token, acct); status != 200 || id != w.patAcme {
				t.Errorf("%s claim, header %q: %d %s, want pat of Acme", c.ID, acct, status, id)
			}
		}
		if _, status := me(t, hc, srv.base, token, w.globex.AccountID); status != 403 {
			t.Errorf("%s claim naming Acme, header naming Globex: %d, want 403", c.ID, status)
		}
	}
	for _, c := range bad {
		token := p.Token(t, c, oidctest.Audience)
		for _, acct := range []string{w.globex.AccountID, w.acme.AccountID} {
			if _, status := me(t, hc, srv.base, token, acct); status != 401 {
				t.Errorf("%s claim, header %s: %d, want 401", c.ID, acct, status)
			}
		}
	}
	srv.stop(t)
}

// patSignedIn starts the built binary over a new sign-in world with a
// real OpenID provider that knows pat, and returns pat's identity token.
func patSignedIn(t *testing.T) (*signInWorld, *server, *http.Client, string) {
	t.Helper()
	w := newWorldDB(t)
	c := oidctest.Client{ID: "pat", Secret: "s", Email: "pat@example.test", Scope: rw}
	p := oidctest.Start(t, []oidctest.Client{c})
	srv := startServer(t, w.db, "--oidc-issuer", p.Issuer, "--oidc-audience", oidctest.Audience)
	hc := conformingClient(t)
	newSignInWorld(t, hc, srv.base, w)
	return w, srv, hc, p.Token(t, c, oidctest.Audience)
}

// TestSignInLiveKeepsAccount: a websocket opened with an identity token in
// Acme stays in Acme: after the same token is used over HTTP in Globex
// (pat is a user of both), the socket's next operation still reads Acme's
// goal and not Globex's.
func TestSignInLiveKeepsAccount(t *testing.T) {
	w, srv, hc, token := patSignedIn(t)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.base, "http")+"/graphql", &websocket.DialOptions{Subprotocols: []string{"graphql-transport-ws"}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	ws := &wsClient{t: t, ctx: ctx, conn: conn}
	init, _ := json.Marshal(map[string]string{"Authorization": "Bearer " + token, "service-accountId": w.acme.AccountID})
	ws.send(wsMessage{Type: "connection_init", Payload: init})
	if m, err := ws.read(); err != nil || m.Type != "connection_ack" {
		t.Fatalf("connection_init answered %+v (%v)", m, err)
	}
	read := `query($id: ID!) { goal(id: $id) { id } }`
	ws.operation("1", read, map[string]any{"id": w.acmeGoal})
	if got := ws.result("1"); !strings.Contains(got, w.acmeGoal) {
		t.Fatalf("the socket opened in Acme reads Acme's goal: %s", got)
	}
	if _, status := me(t, hc, srv.base, token, w.globex.AccountID); status != 200 {
		t.Fatalf("the token over HTTP in Globex: %d", status)
	}
	for i, g := range []struct {
		id   string
		want bool
	}{{w.acmeGoal, true}, {w.globexGoal, false}} {
		id := fmt.Sprint(i + 2)
		ws.operation(id, read, map[string]any{"id": g.id})
		if got := ws.result(id); strings.Contains(got, g.id) != g.want {
			t.Errorf("after the token was used in Globex, the socket reads goal %s: %s (want found %v: it stays in Acme)", g.id, got, g.want)
		}
	}
	srv.stop(t)
}

// TestSignInKeyRefetchLimited: 20 tokens signed with keys the provider
// never had, each with a fresh kid, make okrgate fetch the provider's keys
// at most twice (--oidc-jwks-refetch, 30s by default); a token with iat an
// hour ahead or a string exp, nbf or iat is refused. The provider's own
// token still signs in.
func TestSignInKeyRefetchLimited(t *testing.T) {
	w := newWorldDB(t)
	future := time.Now().Add(time.Hour).Unix()
	soon := fmt.Sprint(time.Now().Add(10 * time.Minute).Unix())
	clients := []oidctest.Client{
		{ID: "ada", Secret: "s", Email: "admin@acme.test", Scope: rw},
		{ID: "iat-ahead", Secret: "s", Email: "admin@acme.test", Scope: rw, Claims: map[string]any{"sub": "ada", "iat": future}},
		{ID: "exp-string", Secret: "s", Email: "admin@acme.test", Scope: rw, Claims: map[string]any{"sub": "ada", "exp": soon}},
		{ID: "iat-string", Secret: "s", Email: "admin@acme.test", Scope: rw, Claims: map[string]any{"sub": "ada", "iat": fmt.Sprint(time.Now().Unix())}},
		{ID: "nbf-string", Secret: "s", Email: "admin@acme.test", Scope: rw, Claims: map[string]any{"sub": "ada", "nbf": fmt.Sprint(time.Now().Unix())}},
	}
	p := oidctest.Start(t, clients)
	// 25 refusals from one address: above the default budget of failed
	// authentications, which would answer 429 before the token is read.
	srv := startServer(t, w.db, "--oidc-issuer", p.Issuer, "--oidc-audience", oidctest.Audience, "--rate-limit", "auth-failures=1000/1m")
	hc := conformingClient(t)
	if _, status := me(t, hc, srv.base, p.Token(t, clients[0], oidctest.Audience), w.acme.AccountID); status != 200 {
		t.Fatalf("the provider's token: %d", status)
	}
	before := p.KeyFetches(t)
	for i := range 20 {
		if _, status := me(t, hc, srv.base, forged(t, p.Issuer, i), w.acme.AccountID); status != 401 {
			t.Errorf("forged token %d: %d, want 401", i, status)
		}
	}
	if n := p.KeyFetches(t) - before; n > 2 {
		t.Errorf("20 forged tokens with fresh kids made %d fetches of the provider's keys, want at most 2", n)
	}
	for _, c := range clients[1:] {
		if _, status := me(t, hc, srv.base, p.Token(t, c, oidctest.Audience), w.acme.AccountID); status != 401 {
			t.Errorf("%s: %d, want 401", c.ID, status)
		}
	}
	if _, status := me(t, hc, srv.base, p.Token(t, clients[0], oidctest.Audience), w.acme.AccountID); status != 200 {
		t.Errorf("the provider's token after the forgeries: %d", status)
	}
	srv.stop(t)
}

// forged returns a well-formed token of issuer for okrgate's audience
// signed with a key of its own under a fresh kid.
func forged(t *testing.T, issuer string, i int) string {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	kid := make([]byte, 8)
	_, _ = rand.Read(kid)
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: key},
		(&jose.SignerOptions{}).WithType("at+jwt").WithHeader("kid", hex.EncodeToString(kid)))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().Unix()
	claims, _ := json.Marshal(map[string]any{"iss": issuer, "aud": oidctest.Audience, "sub": fmt.Sprint("forger", i),
		"email": "admin@acme.test", "email_verified": true, "scope": rw, "iat": now, "exp": now + 600})
	sig, err := s.Sign(claims)
	if err != nil {
		t.Fatal(err)
	}
	out, err := sig.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	return out
}
