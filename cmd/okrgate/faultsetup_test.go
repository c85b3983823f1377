package main_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"testing"

	"github.com/okrgate/okrgate/upstream/backend/sqlstore/faults"
)

// proxiedPostgres puts a fault proxy (upstream/backend/sqlstore/faults) in front
// of the PostgreSQL of dsn, closed when t ends, and returns it with dsn's
// URL pointing at it.
func proxiedPostgres(t *testing.T, dsn string) (*faults.Proxy, *url.URL) {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	proxy, err := faults.NewProxy(u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { proxy.Close() })
	u.Host = proxy.Addr()
	return proxy, u
}

// newKeyResult creates a session, an objective in it and a key result of
// target under it through post (a POST of body to path over REST,
// answering the status and body), failing t unless each is 201, and
// returns the key result's id.
func newKeyResult(t *testing.T, post func(path string, body any) (int, []byte), target float64) string {
	t.Helper()
	var ss, g, m struct{ ID string }
	for _, step := range []struct {
		path string
		body map[string]any
		dst  any
	}{
		{"/api/v1/sessions", map[string]any{"title": "Q1", "start": "2026-01-01", "end": "2026-03-31"}, &ss},
		{"/api/v1/goals", map[string]any{"name": "g", "sessionId": &ss.ID}, &g},
		{"/api/v1/metrics", map[string]any{"name": "kr", "goalId": &g.ID, "target": target}, &m},
	} {
		status, b := post(step.path, step.body)
		if status != http.StatusCreated {
			t.Fatalf("POST %s: %d %s", step.path, status, b)
		}
		if err := json.Unmarshal(b, step.dst); err != nil {
			t.Fatal(err)
		}
	}
	return m.ID
}
