package main_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestServeLimits runs the built binary with small budgets: the token's
// N+1th request is 429 with Retry-After and a problem body, the probes are
// never limited, and failed authentications are throttled after three.
func TestServeLimits(t *testing.T) {
	db := filepath.Join(t.TempDir(), "limits.db")
	boot := bootstrapDB(t, db, "Acme", "ann@acme.test")
	srv := startServer(t, db, "--rate-limit", "token=5/1m,address=1000/1m,auth-failures=3/1m",
		"--max-inflight-reads", "4", "--max-inflight-writes", "2", "--token-ttl", "1h")
	get := func(path, token string) (*http.Response, map[string]any) {
		t.Helper()
		req, _ := http.NewRequest("GET", srv.base+path, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		raw, _ := io.ReadAll(res.Body)
		var m map[string]any
		_ = json.Unmarshal(raw, &m)
		return res, m
	}

	// The bootstrap token works (1 of 5), and a token made now lives 1h.
	req, _ := http.NewRequest("POST", srv.base+"/api/v2/users/me/tokens", strings.NewReader(`{"name":"e2e"}`))
	req.Header.Set("Authorization", "Bearer "+boot.Token)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var tok map[string]any
	_ = json.NewDecoder(res.Body).Decode(&tok)
	res.Body.Close()
	created, _ := time.Parse(time.RFC3339, str(tok["createdAt"]))
	expires, _ := time.Parse(time.RFC3339, str(tok["expiresAt"]))
	if res.StatusCode != 201 || expires.Sub(created) != time.Hour {
		t.Fatalf("create token: %d %v", res.StatusCode, tok)
	}
	for i := 2; i <= 5; i++ {
		if res, _ := get("/api/v2/sessions", boot.Token); res.StatusCode != 200 {
			t.Fatalf("request %d: %d", i, res.StatusCode)
		}
	}
	res, body := get("/api/v2/sessions", boot.Token)
	if res.StatusCode != 429 || res.Header.Get("Retry-After") == "" || body["code"] != "rate_limited" {
		t.Errorf("6th request: %d Retry-After %q %v", res.StatusCode, res.Header.Get("Retry-After"), body)
	}
	if res, _ := get("/api/v2/sessions", str(tok["token"])); res.StatusCode != 200 {
		t.Errorf("another token: %d, want its own budget", res.StatusCode)
	}
	for _, p := range []string{"/healthz", "/readyz"} {
		if res, _ := get(p, ""); res.StatusCode != 200 {
			t.Errorf("%s: %d", p, res.StatusCode)
		}
	}
	for i := 1; i <= 3; i++ {
		if res, _ := get("/api/v2/sessions", "okr_bad"); res.StatusCode != 401 {
			t.Fatalf("bad token %d: %d", i, res.StatusCode)
		}
	}
	res, body = get("/api/v2/sessions", "okr_bad")
	if res.StatusCode != 429 || body["code"] != "rate_limited" {
		t.Errorf("4th bad token: %d %v", res.StatusCode, body)
	}
	gq, _ := http.NewRequest("POST", srv.base+"/graphql", bytes.NewReader([]byte(`{"query":"{ viewer { id } }"}`)))
	gq.Header.Set("Authorization", "Bearer okr_bad")
	gq.Header.Set("Content-Type", "application/json")
	if res, err := http.DefaultClient.Do(gq); err != nil || res.StatusCode != 429 {
		t.Errorf("graphql from a throttled address: %v %v", res, err)
	} else {
		res.Body.Close()
	}
	if res, _ := get("/healthz", ""); res.StatusCode != 200 {
		t.Errorf("healthz from a throttled address: %d", res.StatusCode)
	}
}

func str(v any) string { s, _ := v.(string); return s }

// TestServeLimitFlagsRefused: bad settings stop serve before it listens.
func TestServeLimitFlagsRefused(t *testing.T) {
	db := filepath.Join(t.TempDir(), "x.db")
	for _, tc := range []struct {
		args []string
		env  string
	}{
		{[]string{"--token-ttl", "400d"}, ""}, // over the 366-day maximum
		{[]string{"--token-ttl", "0"}, ""},
		{[]string{"--token-max-ttl", "soon"}, ""},
		{[]string{"--rate-limit", "tokens=1/1m"}, ""},
		{[]string{"--max-inflight-reads", "-1"}, ""},
		{nil, "OKRGATE_RATE_LIMIT=nonsense"},
		{nil, "OKRGATE_TOKEN_TTL=400d"},
	} {
		cmd := exec.Command(binary, append([]string{"serve", "--db", db, "--addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0"}, tc.args...)...)
		if tc.env != "" {
			cmd.Env = append(os.Environ(), tc.env)
		}
		out, err := cmd.CombinedOutput()
		if err == nil {
			t.Errorf("%v %s: exit 0: %s", tc.args, tc.env, out)
		}
	}
}
