package rest_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore/sqlstoretest"
	"github.com/okrgate/okrgate/upstream/infra/observe"
	"github.com/okrgate/okrgate/upstream/transport/rest"
)

// slowReads is the real store whose goal listing waits until its context
// is done and then runs on the real store with that context: a read that
// cannot finish before its deadline, deterministically.
type slowReads struct{ *sqlstore.Store }

func (s slowReads) ListGoals(ctx context.Context, q upstream.ListQuery) (upstream.Page[upstream.Goal], error) {
	<-ctx.Done()
	return s.Store.ListGoals(ctx, q)
}

// CreateSession refuses a write whose context has no deadline or the read
// deadline: writes have their own (TestReadDeadline sets it to an hour).
func (s slowReads) CreateSession(ctx context.Context, in upstream.SessionInput) (upstream.Session, error) {
	if d, ok := ctx.Deadline(); !ok || time.Until(d) < 30*time.Minute {
		return upstream.Session{}, errors.New("a write was not given the write deadline")
	}
	return s.Store.CreateSession(ctx, in)
}

// CreateGoal waits until its context is done, then writes on the real
// store with it: a write that cannot finish before its deadline.
func (s slowReads) CreateGoal(ctx context.Context, in upstream.GoalInput) (upstream.Goal, error) {
	<-ctx.Done()
	return s.Store.CreateGoal(ctx, in)
}

// acmeStore opens a store of the test's own with one account, Acme.
func acmeStore(t *testing.T) (*sqlstore.Store, sqlstore.BootstrapResult) {
	t.Helper()
	ctx := context.Background()
	store, err := sqlstore.Open(ctx, sqlstoretest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	acct, err := store.Bootstrap(ctx, sqlstore.BootstrapInput{AccountName: "Acme", Email: "ann@acme.test"})
	if err != nil {
		t.Fatal(err)
	}
	return store, acct
}

// TestReadDeadline: a GET that runs past Options.ReadTimeout ends with a
// 503 problem (code timeout, Retry-After, the request id), and the store's
// own read fails on the expired context rather than answering; a write is
// given Options.WriteTimeout instead.
func TestReadDeadline(t *testing.T) {
	store, acct := acmeStore(t)
	log := slog.New(slog.DiscardHandler)
	h := observe.Stack(observe.Config{Logger: log})(rest.New(slowReads{store}, rest.Options{Logger: log, Auth: store, ReadTimeout: 20 * time.Millisecond, WriteTimeout: time.Hour}))
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)

	get := func(path string) (*http.Response, []byte) {
		t.Helper()
		r, _ := http.NewRequest("GET", srv.URL+path, nil)
		r.Header.Set("Authorization", "Bearer "+acct.Token)
		r.Header.Set("service-accountId", acct.AccountID)
		res, err := srv.Client().Do(r)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return res, body
	}
	res, body := get("/api/v2/integrations/goals?fields=id&filter=" + url.QueryEscape(`{"name":{"$regex":"^Q"}}`))
	if res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Content-Type") != "application/problem+json" {
		t.Fatalf("slow read: %d %s: %s", res.StatusCode, res.Header.Get("Content-Type"), body)
	}
	var p rest.Problem
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatal(err)
	}
	if p.Code != "timeout" || p.Status != 503 || p.RequestID == "" || p.RequestID != res.Header.Get("X-Request-Id") || res.Header.Get("Retry-After") == "" {
		t.Errorf("slow read: problem %+v, Retry-After %q", p, res.Header.Get("Retry-After"))
	}
	// A write is not cut by the read deadline: it has its own.
	r, _ := http.NewRequest("POST", srv.URL+"/api/v1/sessions", strings.NewReader(`{"title":"Q1","start":"2026-01-01","end":"2026-03-31"}`))
	r.Header.Set("Authorization", "Bearer "+acct.Token)
	r.Header.Set("service-accountId", acct.AccountID)
	r.Header.Set("Content-Type", "application/json")
	wres, err := srv.Client().Do(r)
	if err != nil {
		t.Fatal(err)
	}
	wbody, _ := io.ReadAll(wres.Body)
	wres.Body.Close()
	if wres.StatusCode != http.StatusCreated {
		t.Errorf("POST /api/v1/sessions: %d: %s", wres.StatusCode, wbody)
	}
}

// TestWriteDeadline: a write that runs past Options.WriteTimeout (waiting
// for a database that does not answer, say) ends with a 503 problem (code
// timeout, Retry-After) that says it was not saved, and nothing was.
func TestWriteDeadline(t *testing.T) {
	store, acct := acmeStore(t)
	log := slog.New(slog.DiscardHandler)
	srv := httptest.NewServer(rest.New(slowReads{store}, rest.Options{Logger: log, Auth: store, WriteTimeout: 20 * time.Millisecond}))
	t.Cleanup(srv.Close)
	direct := httptest.NewServer(rest.New(store, rest.Options{Logger: log, Auth: store}))
	t.Cleanup(direct.Close)
	do := func(method, path, body string) (*http.Response, []byte) {
		t.Helper()
		base := srv.URL
		if method == "GET" {
			base = direct.URL // the store itself, to see what was saved
		}
		r, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		r.Header.Set("Authorization", "Bearer "+acct.Token)
		r.Header.Set("service-accountId", acct.AccountID)
		r.Header.Set("Content-Type", "application/json")
		res, err := srv.Client().Do(r)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, b
	}
	res, body := do("POST", "/api/v1/goals", `{"name":"never saved","sessionId":"000000000000000000000001"}`)
	var p rest.Problem
	_ = json.Unmarshal(body, &p)
	if res.StatusCode != http.StatusServiceUnavailable || p.Code != "timeout" || res.Header.Get("Retry-After") == "" || !strings.Contains(p.Detail, "write") {
		t.Fatalf("slow write: %d %+v, Retry-After %q", res.StatusCode, p, res.Header.Get("Retry-After"))
	}
	res, body = do("GET", "/api/v2/integrations/goals?fields=id", "")
	var page struct{ TotalCount int }
	if err := json.Unmarshal(body, &page); err != nil || res.StatusCode != http.StatusOK || page.TotalCount != 0 {
		t.Errorf("after the cut write: %d %s", res.StatusCode, body)
	}
}
