package resolvers_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/okrgate/okrgate/upstream/backend/sqlstore/sqlstoretest"

	"github.com/okrgate/okrgate/resolvers"
	"github.com/okrgate/okrgate/resolvers/transport/graphqlhttp"
	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
)

// tokenEnv is a GraphQL server over a store whose clock the test moves.
type tokenEnv struct {
	t     *testing.T
	store *sqlstore.Store
	srv   *httptest.Server
	acct  sqlstore.BootstrapResult
	mu    sync.Mutex
	now   time.Time
}

func newTokenEnv(t *testing.T) *tokenEnv {
	t.Helper()
	e := &tokenEnv{t: t, now: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)}
	st, err := sqlstore.Open(context.Background(), sqlstoretest.DSN(t), sqlstore.WithClock(e.clock))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	e.store = st
	if e.acct, err = st.Bootstrap(context.Background(), sqlstore.BootstrapInput{AccountName: "Acme", Email: "ann@acme.test"}); err != nil {
		t.Fatal(err)
	}
	e.srv = httptest.NewServer(graphqlhttp.NewHandler(graphqlhttp.Config{API: st, Auth: st}))
	t.Cleanup(e.srv.Close)
	return e
}

func (e *tokenEnv) clock() time.Time { e.mu.Lock(); defer e.mu.Unlock(); return e.now }

func (e *tokenEnv) advance(d time.Duration) { e.mu.Lock(); e.now = e.now.Add(d); e.mu.Unlock() }

// gql posts a query with token and decodes the answer.
func (e *tokenEnv) gql(token, q string, vars map[string]any) (status int, data map[string]any, code string) {
	e.t.Helper()
	body, _ := json.Marshal(map[string]any{"query": q, "variables": vars})
	req, _ := http.NewRequest(http.MethodPost, e.srv.URL, strings.NewReader(string(body)))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out struct {
		Data   map[string]any `json:"data"`
		Errors []struct {
			Extensions map[string]any `json:"extensions"`
		} `json:"errors"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		e.t.Fatalf("HTTP %d: %s", resp.StatusCode, raw)
	}
	if len(out.Errors) > 0 {
		code, _ = out.Errors[0].Extensions["code"].(string)
	}
	return resp.StatusCode, out.Data, code
}

const createTokenQ = `mutation($in: CreateTokenInput) { createToken(input: $in) { token apiToken { id name userId expiresAt lastUsedAt scopes } } }`

func (e *tokenEnv) create(token string, in map[string]any) (secret, id string, code string) {
	e.t.Helper()
	_, data, code := e.gql(token, createTokenQ, map[string]any{"in": in})
	if code != "" {
		return "", "", code
	}
	ct := data["createToken"].(map[string]any)
	return ct["token"].(string), ct["apiToken"].(map[string]any)["id"].(string), ""
}

// TestGraphQLTokenLifecycle: createToken, myTokens (no secrets), expiry and
// revokeToken over HTTP.
func TestGraphQLTokenLifecycle(t *testing.T) {
	e := newTokenEnv(t)
	secret, id, code := e.create(e.acct.Token, map[string]any{"name": "ci", "expiresIn": 600, "scopes": []string{"READ", "WRITE"}})
	if code != "" {
		t.Fatalf("createToken: %s", code)
	}
	status, data, code := e.gql(secret, `{ myTokens { id name expiresAt lastUsedAt scopes } }`, nil)
	if status != 200 || code != "" {
		t.Fatalf("myTokens: %d %s", status, code)
	}
	raw, _ := json.Marshal(data)
	if strings.Contains(string(raw), secret) || strings.Contains(string(raw), e.acct.Token) {
		t.Errorf("myTokens shows a secret: %s", raw)
	}
	var found bool
	for _, it := range data["myTokens"].([]any) {
		m := it.(map[string]any)
		if m["id"] == id {
			found = true
			if m["name"] != "ci" || m["expiresAt"] != "2026-11-22T10:10:00.000Z" || m["lastUsedAt"] != "2026-11-22T10:00:00.000Z" {
				t.Errorf("token listed as %v", m)
			}
		}
	}
	if !found {
		t.Fatalf("token %s not in myTokens: %s", id, raw)
	}
	// Ten minutes on, the token has expired: 401.
	e.advance(10 * time.Minute)
	if status, _, code := e.gql(secret, `{ myTokens { id } }`, nil); status != 401 || code != resolvers.CodeUnauthenticated {
		t.Errorf("expired token: %d %s", status, code)
	}
	// Revocation: a fresh token works until revoked, then 401.
	secret2, id2, _ := e.create(e.acct.Token, nil)
	if _, data, code := e.gql(secret2, `mutation($id: ID!) { revokeToken(id: $id) }`, map[string]any{"id": id2}); code != "" || data["revokeToken"] != id2 {
		t.Fatalf("revokeToken: %s %v", code, data)
	}
	if status, _, _ := e.gql(secret2, `{ myTokens { id } }`, nil); status != 401 {
		t.Errorf("revoked token: %d", status)
	}
	if _, _, code := e.gql(e.acct.Token, `mutation($id: ID!) { revokeToken(id: $id) }`, map[string]any{"id": id2}); code != resolvers.CodeNotFound {
		t.Errorf("second revoke: %s", code)
	}
	if _, _, code := e.create(e.acct.Token, map[string]any{"expiresIn": 400 * 24 * 3600}); code != resolvers.CodeBadUserInput {
		t.Errorf("over-long lifetime: %s", code)
	}
}

// TestGraphQLReadOnlyToken: a read-only token queries, and every mutation
// answers INSUFFICIENT_SCOPE with nothing written.
func TestGraphQLReadOnlyToken(t *testing.T) {
	e := newTokenEnv(t)
	ro, roID, code := e.create(e.acct.Token, map[string]any{"scopes": []string{"READ"}})
	if code != "" {
		t.Fatal(code)
	}
	if _, _, code := e.gql(ro, `{ sessions(first: 5) { totalCount } myTokens { scopes } }`, nil); code != "" {
		t.Fatalf("read with a read-only token: %s", code)
	}
	for _, m := range []struct {
		q    string
		vars map[string]any
	}{
		{`mutation { createSession(input: {title: "Q1", start: "2026-01-01", end: "2026-03-31"}) { id } }`, nil},
		{`mutation { createToken { token } }`, nil},
		{`mutation($id: ID!) { revokeToken(id: $id) }`, map[string]any{"id": roID}},
		{`mutation($id: ID!) { createUserToken(id: $id) { token } }`, map[string]any{"id": e.acct.UserID}},
	} {
		if _, _, code := e.gql(ro, m.q, m.vars); code != resolvers.CodeInsufficientScope {
			t.Errorf("%s: code %q, want %s", m.q, code, resolvers.CodeInsufficientScope)
		}
	}
	if _, data, _ := e.gql(e.acct.Token, `{ sessions(first: 5) { totalCount } }`, nil); data["sessions"].(map[string]any)["totalCount"] != float64(0) {
		t.Errorf("a read-only token wrote: %v", data)
	}
}

// TestGraphQLMintingRule: an admin mints for a member, never for another
// admin — through createToken and createUserToken alike.
func TestGraphQLMintingRule(t *testing.T) {
	e := newTokenEnv(t)
	ctx := upstream.NewContext(context.Background(), upstream.Caller{AccountID: e.acct.AccountID, UserID: e.acct.UserID, Roles: []string{"admin"}})
	member, err := e.store.CreateUser(ctx, upstream.UserInput{Email: "m@acme.test", Role: "member"})
	if err != nil {
		t.Fatal(err)
	}
	admin2, err := e.store.CreateUser(ctx, upstream.UserInput{Email: "a2@acme.test", Role: "admin"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, code := e.create(e.acct.Token, map[string]any{"userId": member.ID, "scopes": []string{"READ"}}); code != "" {
		t.Errorf("admin for a member: %s", code)
	}
	if _, _, code := e.create(e.acct.Token, map[string]any{"userId": admin2.ID}); code != resolvers.CodeForbidden {
		t.Errorf("createToken, admin for another admin: %q", code)
	}
	if _, _, code := e.gql(e.acct.Token, `mutation($id: ID!) { createUserToken(id: $id) { token } }`, map[string]any{"id": admin2.ID}); code != resolvers.CodeForbidden {
		t.Errorf("createUserToken, admin for another admin: %q", code)
	}
	if _, _, code := e.gql(e.acct.Token, `mutation($id: ID!) { createUserToken(id: $id) { token } }`, map[string]any{"id": member.ID}); code != "" {
		t.Errorf("createUserToken, admin for a member: %q", code)
	}
}
