package rest_test

import (
	"bytes"
	"context"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/okrgate/okrgate/upstream/backend/sqlstore/sqlstoretest"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
	"github.com/okrgate/okrgate/upstream/transport/rest/resttest"
)

// adminTokenID issues a fresh token for acct's admin and returns its id.
func (e *authzEnv) adminTokenID() string {
	e.t.Helper()
	t, err := e.store.IssueToken(e.adminCtx(), "", upstream.TokenInput{Name: "matrix"})
	if err != nil {
		e.t.Fatal(err)
	}
	return t.ID
}

// clock is a settable time source for the store.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *clock) Advance(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }

// newClockEnv is newEnv over a store whose clock the test moves.
func newClockEnv(t *testing.T) (*env, *clock) {
	t.Helper()
	ctx := context.Background()
	clk := &clock{now: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)}
	store, err := sqlstore.Open(ctx, sqlstoretest.DSN(t), sqlstore.WithClock(clk.Now))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	acct, err := store.Bootstrap(ctx, sqlstore.BootstrapInput{AccountName: "Acme", Email: "ann@acme.test"})
	if err != nil {
		t.Fatal(err)
	}
	other, err := store.Bootstrap(ctx, sqlstore.BootstrapInput{AccountName: "Globex", Email: "hank@globex.test"})
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	srv := httptest.NewServer(observed(store, store, logs))
	t.Cleanup(srv.Close)
	e := &env{t: t, store: store, srv: srv, acct: acct, other: other, logs: logs}
	e.conf = resttest.New(t, srv.Client().Transport)
	srv.Client().Transport = e.conf
	return e, clk
}

// as returns acct's credentials with another token.
func (e *env) as(token string) *sqlstore.BootstrapResult {
	b := e.acct
	b.Token = token
	return &b
}

// TestTokenLifecycle: create, list (never the secret), use, lastUsedAt,
// expiry and revocation over HTTP.
func TestTokenLifecycle(t *testing.T) {
	e, clk := newClockEnv(t)
	created := e.ok(req{method: "POST", path: "/api/v2/users/me/tokens", body: map[string]any{"name": "ci", "expiresIn": 3600}}, 201)
	secret, id := str(created, "token"), str(created, "id")
	if secret == "" || id == "" || str(created, "name") != "ci" || str(created, "expiresAt") != "2026-11-22T11:00:00.000Z" ||
		created["lastUsedAt"] != nil || str(created, "userId") != e.acct.UserID {
		t.Fatalf("created: %v", created)
	}
	second := e.ok(req{method: "POST", path: "/api/v2/users/me/tokens"}, 201) // no body: the defaults
	if str(second, "expiresAt") != "2027-02-20T10:00:00.000Z" {
		t.Errorf("default expiry %q, want 90 days on", str(second, "expiresAt"))
	}

	// Listing shows both (and the bootstrap token), never a secret.
	list := e.do(req{method: "GET", path: "/api/v2/users/me/tokens"})
	if list.status != 200 || containsBytes(list.body, secret) || containsBytes(list.body, str(second, "token")) || containsBytes(list.body, `"token"`) {
		t.Fatalf("list: %d %s", list.status, list.body)
	}
	items := list.json(t)["items"].([]any)
	if len(items) != 3 {
		t.Fatalf("list: %d tokens, want 3: %s", len(items), list.body)
	}

	// Using the token records lastUsedAt, at most once a minute.
	lastUsed := func() any {
		for _, it := range e.ok(req{method: "GET", path: "/api/v2/users/me/tokens"}, 200)["items"].([]any) {
			if m := it.(map[string]any); m["id"] == id {
				return m["lastUsedAt"]
			}
		}
		t.Fatalf("token %s not listed", id)
		return nil
	}
	e.ok(req{method: "GET", path: "/api/v2/sessions", as: e.as(secret)}, 200)
	if got := lastUsed(); got != "2026-11-22T10:00:00.000Z" {
		t.Errorf("lastUsedAt after first use: %v", got)
	}
	clk.Advance(30 * time.Second)
	e.ok(req{method: "GET", path: "/api/v2/sessions", as: e.as(secret)}, 200)
	if got := lastUsed(); got != "2026-11-22T10:00:00.000Z" {
		t.Errorf("lastUsedAt rewritten within the minute: %v", got)
	}
	clk.Advance(31 * time.Second)
	e.ok(req{method: "GET", path: "/api/v2/sessions", as: e.as(secret)}, 200)
	if got := lastUsed(); got != "2026-11-22T10:01:01.000Z" {
		t.Errorf("lastUsedAt after a minute: %v", got)
	}

	// Expiry: an hour on, the token is refused; the others still work.
	clk.Advance(time.Hour)
	r := e.do(req{method: "GET", path: "/api/v2/sessions", as: e.as(secret)})
	if r.status != 401 || str(r.json(t), "code") != "unauthenticated" || !containsBytes(r.body, "expired") {
		t.Errorf("expired token: %d %s", r.status, r.body)
	}
	e.ok(req{method: "GET", path: "/api/v2/sessions", as: e.as(str(second, "token"))}, 200)

	// Revocation: the token stops working at once; a second revoke is 404.
	e.ok(req{method: "DELETE", path: "/api/v2/users/me/tokens/" + str(second, "id")}, 204)
	if r := e.do(req{method: "GET", path: "/api/v2/sessions", as: e.as(str(second, "token"))}); r.status != 401 {
		t.Errorf("revoked token: %d %s", r.status, r.body)
	}
	if r := e.do(req{method: "DELETE", path: "/api/v2/users/me/tokens/" + str(second, "id")}); r.status != 404 {
		t.Errorf("second revoke: %d %s", r.status, r.body)
	}
	// Another account's admin cannot see or revoke acct's tokens.
	if r := e.do(req{method: "DELETE", path: "/api/v2/users/me/tokens/" + id, as: &e.other}); r.status != 404 {
		t.Errorf("revoke by another account: %d %s", r.status, r.body)
	}
}

func containsBytes(b []byte, s string) bool { return s != "" && bytes.Contains(b, []byte(s)) }

// TestTokenInputRefused: bad lifetimes and scopes are 400 naming the field.
func TestTokenInputRefused(t *testing.T) {
	e, _ := newClockEnv(t)
	for _, body := range []map[string]any{
		{"expiresIn": 366*24*3600 + 1},
		{"expiresIn": 0},
		{"expiresAt": "2026-11-21T00:00:00Z"},
		{"expiresAt": "2030-01-01T00:00:00Z"},
		{"expiresIn": 60, "expiresAt": "2026-12-01T00:00:00Z"},
		{"scopes": []string{"admin"}},
		{"name": string(make([]byte, 101))},
		{"secret": "x"},
	} {
		r := e.do(req{method: "POST", path: "/api/v2/users/me/tokens", body: body})
		if r.status != 400 || str(r.json(t), "code") != "invalid_input" {
			t.Errorf("%v: %d %s", body, r.status, r.body)
		}
	}
}

// TestReadOnlyToken: a read-only token reads, and every write is 403
// insufficient_scope — including creating or revoking tokens.
func TestReadOnlyToken(t *testing.T) {
	e, _ := newClockEnv(t)
	ro := e.ok(req{method: "POST", path: "/api/v2/users/me/tokens", body: map[string]any{"name": "dashboard", "scopes": []string{"read"}}}, 201)
	if s := ro["scopes"].([]any); len(s) != 1 || s[0] != "read" {
		t.Fatalf("scopes: %v", ro["scopes"])
	}
	as := e.as(str(ro, "token"))
	e.ok(req{method: "GET", path: "/api/v2/sessions", as: as}, 200)
	e.ok(req{method: "GET", path: "/api/v2/users/me/tokens", as: as}, 200)
	sess := e.ok(req{method: "POST", path: "/api/v1/sessions", body: map[string]any{"title": "Q1", "start": "2026-01-01", "end": "2026-03-31"}}, 201)
	for _, q := range []req{
		{method: "POST", path: "/api/v1/sessions", body: map[string]any{"title": "Q2", "start": "2026-04-01", "end": "2026-06-30"}},
		{method: "POST", path: "/api/v1/goals", body: map[string]any{"name": "G", "sessionId": str(sess, "id")}},
		{method: "PATCH", path: "/api/v1/sessions/" + str(sess, "id"), body: map[string]any{"title": "renamed"}},
		{method: "DELETE", path: "/api/v1/sessions/" + str(sess, "id")},
		{method: "POST", path: "/api/v2/users/me/tokens"},
		{method: "DELETE", path: "/api/v2/users/me/tokens/" + str(ro, "id")},
	} {
		q.as = as
		r := e.do(q)
		if r.status != 403 || str(r.json(t), "code") != "insufficient_scope" {
			t.Errorf("%s %s with a read-only token: %d %s", q.method, q.path, r.status, r.body)
		}
	}
	e.ok(req{method: "GET", path: "/api/v1/sessions/" + str(sess, "id"), as: as}, 200) // nothing changed
}

// TestMintingRule: a user mints their own tokens; an admin mints for a
// non-admin user, never for another admin.
func TestMintingRule(t *testing.T) {
	e, _ := newClockEnv(t)
	ctx := upstream.NewContext(context.Background(), upstream.Caller{AccountID: e.acct.AccountID, UserID: e.acct.UserID, Roles: []string{"admin"}})
	user := func(role string) sqlstore.BootstrapResult {
		u, err := e.store.CreateUser(ctx, upstream.UserInput{Email: role + "@acme.test", Role: role})
		if err != nil {
			t.Fatal(err)
		}
		tok, err := e.store.CreateToken(upstream.NewContext(context.Background(), upstream.Caller{AccountID: e.acct.AccountID, UserID: u.ID}), u.ID)
		if err != nil {
			t.Fatal(err)
		}
		return sqlstore.BootstrapResult{AccountID: e.acct.AccountID, UserID: u.ID, Token: tok}
	}
	member, admin2 := user("member"), user("admin")
	mint := func(as *sqlstore.BootstrapResult, forUser string) resp {
		return e.do(req{method: "POST", path: "/api/v2/users/" + forUser + "/tokens", body: map[string]any{"name": "svc", "scopes": []string{"read"}}, as: as})
	}
	for _, tc := range []struct {
		name      string
		as        *sqlstore.BootstrapResult
		forUser   string
		status    int
		tokenUser string
	}{
		{"admin for a member", &e.acct, member.UserID, 201, member.UserID},
		{"admin for another admin", &e.acct, admin2.UserID, 403, ""},
		{"admin for themselves", &admin2, admin2.UserID, 201, admin2.UserID},
		{"member for themselves", &member, member.UserID, 201, member.UserID},
		{"member for an admin", &member, e.acct.UserID, 403, ""},
		{"another account's admin", &e.other, member.UserID, 404, ""},
	} {
		r := mint(tc.as, tc.forUser)
		if r.status != tc.status {
			t.Errorf("%s: %d %s", tc.name, r.status, r.body)
			continue
		}
		if tc.status != 201 {
			continue
		}
		m := r.json(t)
		if str(m, "userId") != tc.tokenUser {
			t.Errorf("%s: token for %q", tc.name, str(m, "userId"))
		}
		// The minted token authenticates as its user, read-only.
		who := sqlstore.BootstrapResult{AccountID: e.acct.AccountID, UserID: tc.tokenUser, Token: str(m, "token")}
		e.ok(req{method: "GET", path: "/api/v2/users/me/tokens", as: &who}, 200)
		if r := e.do(req{method: "POST", path: "/api/v1/sessions", body: map[string]any{"title": "x", "start": "2026-01-01", "end": "2026-02-01"}, as: &who}); r.status != 403 {
			t.Errorf("%s: read-only minted token wrote: %d", tc.name, r.status)
		}
	}
}
