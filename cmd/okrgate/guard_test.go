package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// TestProbesBypassTheLimits: with every read and write slot held and the
// address's rate budget spent, /healthz, /readyz and /metrics still answer
// at once; /readyz says 503 when the store does not answer.
func TestProbesBypassTheLimits(t *testing.T) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	g := addGuardFlags(fs)
	if err := fs.Parse([]string{"--max-inflight-reads", "1", "--max-inflight-writes", "1", "--rate-limit", "address=2/1m,token=off,auth-failures=off"}); err != nil {
		t.Fatal(err)
	}
	if err := g.validate(); err != nil {
		t.Fatal(err)
	}
	entered, release := make(chan struct{}), make(chan struct{})
	app := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		entered <- struct{}{}
		<-release
	})
	var storeDown atomic.Bool
	ready := func(context.Context) error {
		if storeDown.Load() {
			return errors.New("down")
		}
		return nil
	}
	metrics := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "# metrics\n") })
	adm, err := g.newAdmission(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(g.guarded(ready, metrics, adm, app))
	defer srv.Close()

	done := make(chan int, 2)
	for _, m := range []string{"GET", "POST"} {
		go func() {
			req, _ := http.NewRequest(m, srv.URL+"/api/v2/goals", nil)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				done <- 0
				return
			}
			res.Body.Close()
			done <- res.StatusCode
		}()
		<-entered // both slots are held now, and the address's budget of 2 is spent
	}
	status := func(path string) int {
		res, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if s := status("/api/v2/sessions"); s != http.StatusTooManyRequests {
		t.Errorf("app request over the address budget: %d, want 429", s)
	}
	for _, p := range []string{"/healthz", "/readyz", "/metrics", "/healthz", "/readyz"} {
		if s := status(p); s != 200 {
			t.Errorf("%s with the app saturated: %d", p, s)
		}
	}
	storeDown.Store(true)
	if s := status("/readyz"); s != http.StatusServiceUnavailable {
		t.Errorf("/readyz with the store down: %d, want 503", s)
	}
	if s := status("/healthz"); s != 200 {
		t.Errorf("/healthz with the store down: %d, want 200 (liveness)", s)
	}
	close(release)
	for range 2 {
		if s := <-done; s != 200 {
			t.Errorf("held request: %d", s)
		}
	}
}

func TestParseLifetime(t *testing.T) {
	for in, want := range map[string]string{"90d": "2160h0m0s", "2160h": "2160h0m0s", "1h30m": "1h30m0s"} {
		d, err := parseLifetime(in)
		if err != nil || d.String() != want {
			t.Errorf("%s: %v %v, want %s", in, d, err, want)
		}
	}
	for _, bad := range []string{"", "0", "0d", "-1h", "xd", "soon"} {
		if _, err := parseLifetime(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
