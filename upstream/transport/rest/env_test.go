package rest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/okrgate/okrgate/upstream/backend/sqlstore/sqlstoretest"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
	"github.com/okrgate/okrgate/upstream/infra/observe"
	"github.com/okrgate/okrgate/upstream/transport/rest"
	"github.com/okrgate/okrgate/upstream/transport/rest/resttest"
)

// env is a real stack: a SQLite file, the SQL store, the facade, and an HTTP
// server on 127.0.0.1. Two accounts are bootstrapped: acct (used by default)
// and other.
type env struct {
	t     *testing.T
	store *sqlstore.Store
	srv   *httptest.Server
	acct  sqlstore.BootstrapResult
	other sqlstore.BootstrapResult
	logs  *syncBuffer
	conf  *resttest.Conformance // validates every response against the OpenAPI document
}

// syncBuffer is a goroutine-safe log sink.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newEnv(t *testing.T) *env {
	return newEnvWith(t, func(s *sqlstore.Store) upstream.API { return s })
}

// newEnvWith serves wrap(store) instead of the store itself. Every
// statement the store runs for the test is checked to constrain the
// account of the account tables it names (sqlstoretest.CheckAccountScope;
// docs/decisions/citus.md, "Every statement names its account"): the test fails
// at its end on one that does not.
func newEnvWith(t *testing.T, wrap func(*sqlstore.Store) upstream.API) *env {
	t.Helper()
	ctx := context.Background()
	var scope sqlstoretest.ScopeChecker
	t.Cleanup(func() { scope.Check(t, 0) })
	store, err := sqlstore.Open(ctx, sqlstoretest.DSN(t), sqlstore.WithStatementObserver(scope.Observe))
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { _ = store.Close() })
	acct, err := store.Bootstrap(ctx, sqlstore.BootstrapInput{AccountName: "Acme", Email: "ann@acme.test"})
	if err != nil {
		t.Fatalf("bootstrap: %v", err)
	}
	other, err := store.Bootstrap(ctx, sqlstore.BootstrapInput{AccountName: "Globex", Email: "hank@globex.test"})
	if err != nil {
		t.Fatalf("bootstrap other: %v", err)
	}
	logs := &syncBuffer{}
	srv := httptest.NewServer(observed(wrap(store), store, logs))
	t.Cleanup(srv.Close)
	e := &env{t: t, store: store, srv: srv, acct: acct, other: other, logs: logs}
	e.conf = resttest.New(t, srv.Client().Transport)
	srv.Client().Transport = e.conf
	t.Cleanup(func() { t.Logf("%d responses conform to the OpenAPI document", e.conf.Checked()) })
	return e
}

// observed serves api through the facade behind the server's middleware
// stack (request id, access line, recovery), logging JSON to logs; the
// store serves the webhooks and the event feed.
func observed(api upstream.API, store *sqlstore.Store, logs io.Writer) http.Handler {
	log := slog.New(slog.NewJSONHandler(logs, nil))
	return observe.Stack(observe.Config{Logger: log})(rest.New(api, rest.Options{Logger: log, Webhooks: store, Events: store, Auth: api}))
}

// req describes one request; the zero value is an authenticated request of
// acct with its service-accountId header.
type req struct {
	method, path string
	body         any     // encoded as JSON unless raw is set
	raw          *string // the exact body
	token        *string // Authorization: Bearer <token>; "" sends no Authorization
	authz        string  // an exact Authorization header, overriding token
	acct         *string // service-accountId; "" sends none
	ctype        *string // Content-Type; "" sends none
	as           *sqlstore.BootstrapResult
	header       map[string]string
	// rawHeader fields are sent with their names exactly as written (no
	// canonical letter case).
	rawHeader map[string]string
}

type resp struct {
	status int
	header http.Header
	body   []byte
}

func (r resp) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("body is not a JSON object: %v: %s", err, r.body)
	}
	return m
}

func (e *env) do(q req) resp {
	e.t.Helper()
	who := e.acct
	if q.as != nil {
		who = *q.as
	}
	var body io.Reader
	if q.raw != nil {
		body = strings.NewReader(*q.raw)
	} else if q.body != nil {
		b, err := json.Marshal(q.body)
		if err != nil {
			e.t.Fatal(err)
		}
		body = bytes.NewReader(b)
	}
	r, err := http.NewRequest(q.method, e.srv.URL+q.path, body)
	if err != nil {
		e.t.Fatal(err)
	}
	token := who.Token
	if q.token != nil {
		token = *q.token
	}
	switch {
	case q.authz != "":
		r.Header.Set("Authorization", q.authz)
	case token != "":
		r.Header.Set("Authorization", "Bearer "+token)
	}
	acct := who.AccountID
	if q.acct != nil {
		acct = *q.acct
	}
	if acct != "" {
		r.Header.Set("service-accountId", acct)
	}
	ctype := "application/json"
	if q.ctype != nil {
		ctype = *q.ctype
	}
	if body != nil && ctype != "" {
		r.Header.Set("Content-Type", ctype)
	}
	for k, v := range q.header {
		r.Header.Set(k, v)
	}
	for k, v := range q.rawHeader {
		r.Header[k] = []string{v}
	}
	res, err := e.srv.Client().Do(r)
	if err != nil {
		e.t.Fatalf("%s %s: %v", q.method, q.path, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return resp{status: res.StatusCode, header: res.Header, body: b}
}

// ok performs q and fails unless the status is want and the body is JSON
// (or empty for 204/304); it returns the decoded object.
func (e *env) ok(q req, want int) map[string]any {
	e.t.Helper()
	r := e.do(q)
	if r.status != want {
		e.t.Fatalf("%s %s: status %d, want %d: %s", q.method, q.path, r.status, want, r.body)
	}
	if cc := r.header.Get("Cache-Control"); cc != "no-store" {
		e.t.Errorf("%s %s: Cache-Control %q", q.method, q.path, cc)
	}
	if want == http.StatusNoContent || want == http.StatusNotModified {
		if len(r.body) != 0 {
			e.t.Errorf("%s %s: %d with a body: %s", q.method, q.path, want, r.body)
		}
		return nil
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
		e.t.Errorf("%s %s: Content-Type %q", q.method, q.path, ct)
	}
	return r.json(e.t)
}

// problem performs q and checks the answer is a problem with status and code.
func (e *env) problem(q req, status int, code string) map[string]any {
	e.t.Helper()
	r := e.do(q)
	if r.status != status {
		e.t.Errorf("%s %s: status %d, want %d: %s", q.method, q.path, r.status, status, r.body)
		return nil
	}
	return checkProblem(e.t, r, status, code)
}

func checkProblem(t *testing.T, r resp, status int, code string) map[string]any {
	t.Helper()
	if ct := r.header.Get("Content-Type"); ct != "application/problem+json" {
		t.Errorf("problem %d %s: Content-Type %q", status, code, ct)
	}
	p := r.json(t)
	if p["code"] != code || p["status"] != float64(status) || p["title"] == "" || p["type"] == "" || p["detail"] == "" {
		t.Errorf("problem body %s, want status %d code %s", r.body, status, code)
	}
	if rid := r.header.Get("X-Request-Id"); rid == "" || p["requestId"] != rid {
		t.Errorf("problem requestId %v, X-Request-Id %q", p["requestId"], rid)
	}
	return p
}

func ptr[T any](v T) *T { return &v }

func str(m map[string]any, k string) string { s, _ := m[k].(string); return s }

func num(m map[string]any, k string) float64 { f, _ := m[k].(float64); return f }

func items(m map[string]any) []map[string]any {
	var out []map[string]any
	for _, it := range m["items"].([]any) {
		out = append(out, it.(map[string]any))
	}
	return out
}

func filterQ(f string) string { return url.QueryEscape(f) }

// seed creates, for acct: a session, a parent goal (average_children), a
// child goal and a key result 0 → 100 at_least on the child.
type seed struct{ session, parent, child, metric string }

func (e *env) seed() seed {
	e.t.Helper()
	ss := e.ok(req{method: "POST", path: "/api/v1/sessions", body: map[string]any{
		"title": "2026 H1", "start": "2026-01-01T00:00:00.000Z", "end": "2026-06-30T00:00:00.000Z"}}, 201)
	parent := e.ok(req{method: "POST", path: "/api/v1/goals", body: map[string]any{
		"name": "Grow revenue", "sessionId": str(ss, "id"), "attainmentTypeString": "average_children",
		"description": "Ask @[Ann Lee:ann@acme.test:" + e.acct.UserID + "] first"}}, 201)
	child := e.ok(req{method: "POST", path: "/api/v1/goals", body: map[string]any{
		"name": "Win EMEA", "sessionId": str(ss, "id"), "parentId": str(parent, "id")}}, 201)
	m := e.ok(req{method: "POST", path: "/api/v1/metrics", body: map[string]any{
		"name": "Deals", "goalId": str(child, "id"), "initialValue": 0, "target": 100, "targetOperator": "at_least"}}, 201)
	return seed{session: str(ss, "id"), parent: str(parent, "id"), child: str(child, "id"), metric: str(m, "id")}
}

// counts returns the totals of the listings, to prove a rejected write
// wrote nothing.
func (e *env) counts(s seed) map[string]float64 {
	e.t.Helper()
	out := map[string]float64{}
	for name, path := range map[string]string{
		"goals":    "/api/v2/integrations/goals",
		"metrics":  "/api/v2/metrics",
		"tasks":    "/api/v2/integrations/tasks",
		"sessions": "/api/v2/sessions",
		"checkins": "/api/v1/metrics/" + s.metric + "/checkins",
	} {
		out[name] = num(e.ok(req{method: "GET", path: path}, 200), "totalCount")
	}
	g := e.ok(req{method: "GET", path: "/api/v1/goals/" + s.child}, 200)
	out["childTags"] = float64(len(g["tags"].([]any)))
	out["childAttainment"] = num(g, "attainment")
	out["otherGoals"] = num(e.ok(req{method: "GET", path: "/api/v2/integrations/goals", as: &e.other}, 200), "totalCount")
	return out
}
