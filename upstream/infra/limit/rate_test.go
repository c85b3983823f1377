package limit

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// authed answers 401 for the token "bad" and 200 otherwise.
var authed = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	if tok, _ := bearer(r); tok == "bad" {
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	w.WriteHeader(http.StatusOK)
})

func get(t *testing.T, url, path, token string) answer {
	t.Helper()
	req, _ := http.NewRequest("GET", url+path, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	return answer{status: res.StatusCode, header: res.Header}
}

func newRateServer(t *testing.T, cfg string) string {
	t.Helper()
	c, err := ParseRateConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(NewRateLimiter(c).Handler(authed))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestRateLimitPerToken: the N+1th request of a token is 429 with
// Retry-After and a problem body; another token has its own budget.
func TestRateLimitPerToken(t *testing.T) {
	url := newRateServer(t, "token=3/1m,address=100/1m,auth-failures=off")
	for i := range 3 {
		a := get(t, url, "/api/v2/goals", "tok-a")
		if a.status != 200 || a.header.Get("X-RateLimit-Limit") != "3" {
			t.Fatalf("request %d: %d %v", i+1, a.status, a.header)
		}
	}
	a := get(t, url, "/api/v2/goals", "tok-a")
	if a.status != 429 || a.header.Get("Retry-After") == "" || a.header.Get("X-RateLimit-Remaining") != "0" ||
		a.header.Get("Content-Type") != "application/problem+json" || !strings.Contains(a.header.Get("RateLimit-Policy"), `"token";q=3;w=60`) {
		t.Errorf("4th request: %d %v", a.status, a.header)
	}
	if a := get(t, url, "/api/v2/goals", "tok-b"); a.status != 200 {
		t.Errorf("another token: %d, want its own budget", a.status)
	}
	if a := get(t, url, "/graphql", "tok-a"); a.status != 429 || a.header.Get("Content-Type") != "application/json" {
		t.Errorf("graphql over budget: %d %v", a.status, a.header)
	}
}

// TestRateLimitPerAddress: requests without a token share their address's budget.
func TestRateLimitPerAddress(t *testing.T) {
	url := newRateServer(t, "token=100/1m,address=2/1m,auth-failures=off")
	for range 2 {
		if a := get(t, url, "/x", ""); a.status != 200 {
			t.Fatalf("status %d", a.status)
		}
	}
	if a := get(t, url, "/x", "fresh-token"); a.status != 429 || a.header.Get("Retry-After") == "" {
		t.Errorf("3rd request from the address: %d", a.status)
	}
}

// TestFailedAuthThrottled: bad tokens get 401 until the address's small
// budget of failures is spent, then 429 — long before the token budget —
// and the address stays throttled, good token or not.
func TestFailedAuthThrottled(t *testing.T) {
	url := newRateServer(t, "token=100/1m,address=100/1m,auth-failures=3/1m")
	for i := range 3 {
		if a := get(t, url, "/api/v2/goals", "bad"); a.status != 401 {
			t.Fatalf("bad token %d: %d, want 401", i+1, a.status)
		}
	}
	a := get(t, url, "/api/v2/goals", "bad")
	if a.status != 429 || a.header.Get("Retry-After") != "60" {
		t.Errorf("4th bad token: %d, Retry-After %q; want 429", a.status, a.header.Get("Retry-After"))
	}
	if a := get(t, url, "/api/v2/goals", "good"); a.status != 429 {
		t.Errorf("good token from a throttled address: %d, want 429", a.status)
	}
}

func TestParseRateConfig(t *testing.T) {
	def := DefaultRateConfig()
	for _, tc := range []struct {
		in   string
		want RateConfig
	}{
		{"", def},
		{"off", RateConfig{}},
		{"token=10/1s", RateConfig{Token: Rate{10, time.Second}, Address: def.Address, AuthFailures: def.AuthFailures}},
		{"address=off, auth-failures=5/10m", RateConfig{Token: def.Token, AuthFailures: Rate{5, 10 * time.Minute}}},
	} {
		got, err := ParseRateConfig(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("%q: %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"token", "token=10", "token=x/1m", "token=10/1ms", "tokens=1/1m", "token=-1/1m"} {
		if _, err := ParseRateConfig(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if s := def.String(); s != "token=600/1m,address=1200/1m,auth-failures=20/1m" {
		t.Errorf("String: %q", s)
	}
	c := RateConfig{Token: Rate{5, 30 * time.Second}, Address: Rate{7, 2 * time.Hour}}
	if s := c.String(); s != "token=5/30s,address=7/2h,auth-failures=off" {
		t.Errorf("String: %q", s)
	}
}
