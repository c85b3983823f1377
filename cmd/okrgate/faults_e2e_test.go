package main_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/okrgate/okrgate/upstream/sqlstore/faults"
	"github.com/okrgate/okrgate/upstream/sqlstore/sqlstoretest"
)

// TestFaultsBuiltBinary: the built binary on PostgreSQL reached through a
// TCP proxy, with four clients posting check-ins (each with its own
// Idempotency-Key) and a load balancer probing /readyz all along, through
// the faults of docs/operations.md, "Failures": the database goes away
// (every connection closed, new ones refused), is partitioned for 20 s
// (the requests started during it are all answered before it ends), a
// COMMIT is cut on its way (outcome_unknown), and PostgreSQL terminates
// every backend of the server (pg_terminate_backend). No answer is a 500,
// every 503 carries Retry-After, every acknowledged check-in is stored
// once and none twice. The figures (slowest answer during the partition,
// slowest /readyz) are logged, not asserted.
func TestFaultsBuiltBinary(t *testing.T) {
	dsn := sqlstoretest.PostgresURL(t) // skips without OKRGATE_TEST_POSTGRES
	boot := bootstrapDB(t, dsn, "Faults", "ops@faults.test")
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
	q := u.Query()
	q.Set("default_query_exec_mode", "exec") // statements' text on the wire: the proxy sees each COMMIT
	u.RawQuery = q.Encode()
	// The REST deadlines that bound every answer within 10 s (the
	// defaults, 30 s, let a request wait out a 20 s partition).
	srv := startServer(t, u.String(), "--rate-limit", "off", "--rest-read-timeout", "8s", "--rest-write-timeout", "8s", "--db-write-timeout", "6s")

	hc := &http.Client{Timeout: 60 * time.Second}
	type answer struct {
		status     int
		code       string
		retryAfter string
		took       time.Duration
	}
	call := func(method, path string, body any, key string) (answer, []byte) {
		raw, _ := json.Marshal(body)
		req, _ := http.NewRequest(method, srv.base+path, bytes.NewReader(raw))
		req.Header.Set("Authorization", "Bearer "+boot.Token)
		req.Header.Set("service-accountId", boot.AccountID)
		req.Header.Set("Content-Type", "application/json")
		if key != "" {
			req.Header.Set("Idempotency-Key", key)
		}
		t0 := time.Now()
		res, err := hc.Do(req)
		if err != nil {
			t.Errorf("%s %s: %v", method, path, err)
			return answer{}, nil
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		a := answer{status: res.StatusCode, retryAfter: res.Header.Get("Retry-After"), took: time.Since(t0)}
		var p struct{ Code string }
		_ = json.Unmarshal(b, &p)
		a.code = p.Code
		return a, b
	}
	var ss, g, m struct{ ID string }
	for _, step := range []struct {
		path string
		body map[string]any
		dst  any
	}{
		{"/api/v1/sessions", map[string]any{"title": "Q1", "start": "2026-01-01", "end": "2026-03-31"}, &ss},
		{"/api/v1/goals", map[string]any{"name": "g", "sessionId": &ss.ID}, &g},
		{"/api/v1/metrics", map[string]any{"name": "kr", "goalId": &g.ID, "target": 100000}, &m},
	} {
		a, b := call("POST", step.path, step.body, "")
		if a.status != http.StatusCreated {
			t.Fatalf("POST %s: %d %s", step.path, a.status, b)
		}
		if err := json.Unmarshal(b, step.dst); err != nil {
			t.Fatal(err)
		}
	}

	var mu sync.Mutex
	acked := map[int]bool{}
	codes := map[string]int{}
	check := func(what string, a answer, body []byte) {
		mu.Lock()
		codes[fmt.Sprint(a.status, " ", a.code)]++
		mu.Unlock()
		if a.status == http.StatusInternalServerError {
			t.Errorf("%s: 500 %s", what, body)
		}
		if a.status == http.StatusServiceUnavailable && a.retryAfter == "" {
			t.Errorf("%s: 503 without Retry-After: %s", what, body)
		}
	}
	checkIn := func(v int) answer {
		a, b := call("POST", "/api/v1/metrics/"+m.ID+"/checkin", map[string]any{"actual": v}, fmt.Sprint("ci-", v))
		check(fmt.Sprint("check-in ", v), a, b)
		if a.status == http.StatusCreated {
			mu.Lock()
			acked[v] = true
			mu.Unlock()
		}
		return a
	}

	// Four writers and a load balancer until stopped.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var slowestReady time.Duration
	readyNot200 := 0
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
			t0 := time.Now()
			res, err := http.Get(srv.base + "/readyz")
			if err != nil {
				t.Errorf("/readyz: %v", err)
				continue
			}
			res.Body.Close()
			mu.Lock()
			slowestReady = max(slowestReady, time.Since(t0))
			if res.StatusCode != http.StatusOK {
				readyNot200++
			}
			mu.Unlock()
		}
	})
	next := make(chan int)
	wg.Go(func() {
		for v := 1000; ; v++ {
			select {
			case <-stop:
				close(next)
				return
			case next <- v:
			}
		}
	})
	for range 4 {
		wg.Go(func() {
			for v := range next {
				checkIn(v)
				time.Sleep(50 * time.Millisecond)
			}
		})
	}
	settle := func() { time.Sleep(2 * time.Second) }
	settle()

	t.Run("down", func(t *testing.T) {
		proxy.Cut()
		for range 5 {
			a, b := call("GET", "/api/v1/metrics/"+m.ID, nil, "")
			check("read while down", a, b)
			if a.status != http.StatusServiceUnavailable || a.code != "unavailable" {
				t.Errorf("read while the database is down: %d %q, want 503 unavailable", a.status, a.code)
			}
		}
		time.Sleep(3 * time.Second)
		proxy.Heal()
		settle()
	})

	t.Run("partition", func(t *testing.T) {
		proxy.Blackhole()
		var pw sync.WaitGroup
		var slowest, slowestRead time.Duration
		started := time.Now()
		for i := 0; time.Since(started) < 20*time.Second; i++ {
			pw.Go(func() {
				a, b := call("GET", "/api/v1/metrics/"+m.ID, nil, "")
				check("read during the partition", a, b)
				mu.Lock()
				slowestRead = max(slowestRead, a.took)
				mu.Unlock()
			})
			pw.Go(func() {
				a := checkIn(100000 + i)
				mu.Lock()
				slowest = max(slowest, a.took)
				mu.Unlock()
			})
			time.Sleep(time.Second)
		}
		pw.Wait() // all answered while the partition lasts
		t.Logf("partition: %s; the slowest of its reads answered in %s, of its check-ins in %s", time.Since(started).Round(time.Second),
			slowestRead.Round(10*time.Millisecond), slowest.Round(10*time.Millisecond))
		proxy.Heal()
		settle()
	})

	t.Run("interrupted commit", func(t *testing.T) {
		proxy.CutAfter([]byte("COMMIT"))
		a := checkIn(200000)
		proxy.Heal()
		if a.status != http.StatusCreated && a.code != "outcome_unknown" {
			// A writer's COMMIT may have been the one cut; then this one
			// went through.
			t.Logf("the cut COMMIT was another writer's: %d %q", a.status, a.code)
		}
		settle()
	})

	t.Run("pg_terminate_backend", func(t *testing.T) {
		ctx := context.Background()
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		var n int
		if err := conn.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
			WHERE client_addr = '127.0.0.1' AND client_port = ANY($1)`, proxy.ServerPorts()).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			t.Fatal("no backend of the server terminated")
		}
		t.Logf("%d backends terminated", n)
		settle()
	})

	close(stop)
	wg.Wait()
	// Every check-in that was answered outcome_unknown or a 503 during
	// the faults may be retried with its key: a client that does, does
	// so now; the answers say whether it was stored (201 or replay) or
	// was (409 in use).
	var page struct {
		Items []struct{ Actual float64 }
	}
	a, b := call("GET", "/api/v1/metrics/"+m.ID+"/checkins?limit=1000", nil, "")
	if a.status != http.StatusOK {
		t.Fatalf("list check-ins: %d %s", a.status, b)
	}
	if err := json.Unmarshal(b, &page); err != nil {
		t.Fatal(err)
	}
	stored := map[int]int{}
	for _, c := range page.Items {
		stored[int(c.Actual)]++
	}
	for v := range acked {
		if stored[v] != 1 {
			t.Errorf("acknowledged check-in %d stored %d times", v, stored[v])
		}
	}
	for v, n := range stored {
		if n > 1 {
			t.Errorf("check-in %d stored %d times", v, n)
		}
	}
	t.Logf("answers: %v; %d acknowledged check-ins, %d stored; /readyz: %d not 200, slowest %s",
		codes, len(acked), len(page.Items), readyNot200, slowestReady.Round(time.Millisecond))
}

// TestGatewayUpstreamKilled: a gateway whose upstream okrgate is killed
// (SIGKILL) answers REST reads and writes and GraphQL with 503
// upstream_unavailable and a Retry-After, never a 500, and /readyz, 200
// before, turns 503.
func TestGatewayUpstreamKilled(t *testing.T) {
	db := t.TempDir() + "/upstream.db"
	boot := bootstrapDB(t, db, "Gateway", "ops@gateway.test")
	up := startServer(t, db)
	gw := startServer(t, t.TempDir()+"/unused.db", "--upstream", up.base)
	hc := &http.Client{Timeout: 30 * time.Second}
	call := func(method, path, body string) (*http.Response, string) {
		req, _ := http.NewRequest(method, gw.base+path, bytes.NewReader([]byte(body)))
		req.Header.Set("Authorization", "Bearer "+boot.Token)
		req.Header.Set("service-accountId", boot.AccountID)
		req.Header.Set("Content-Type", "application/json")
		res, err := hc.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, string(b)
	}
	if res, b := call("GET", "/api/v1/sessions", ""); res.StatusCode != http.StatusOK {
		t.Fatalf("through the gateway before the fault: %d %s", res.StatusCode, b)
	}
	readyz := func() int {
		res, err := http.Get(gw.base + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	waitProm(t, "the gateway's /readyz to answer 200", 10*time.Second, func() bool { return readyz() == http.StatusOK })
	if err := up.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-up.done
	for _, r := range []struct{ method, path, body string }{
		{"GET", "/api/v1/sessions", ""},
		{"POST", "/api/v1/sessions", `{"title":"Q","start":"2026-01-01","end":"2026-03-31"}`},
		{"POST", "/graphql", `{"query":"{ sessions(first: 1) { totalCount } }"}`},
	} {
		res, b := call(r.method, r.path, r.body)
		if res.StatusCode == http.StatusInternalServerError || res.Header.Get("Retry-After") == "" {
			t.Errorf("%s %s with the upstream killed: %d, Retry-After %q: %s", r.method, r.path, res.StatusCode, res.Header.Get("Retry-After"), b)
		}
		if !bytes.Contains([]byte(b), []byte("upstream_unavailable")) && !bytes.Contains([]byte(b), []byte("UPSTREAM_UNAVAILABLE")) {
			t.Errorf("%s %s with the upstream killed: %d %s, want upstream_unavailable", r.method, r.path, res.StatusCode, b)
		}
	}
	waitProm(t, "the gateway's /readyz to answer 503", 10*time.Second, func() bool { return readyz() == http.StatusServiceUnavailable })
}
