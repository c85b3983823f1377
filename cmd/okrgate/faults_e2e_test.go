package main_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/okrgate/okrgate/upstream/backend/sqlstore/faults"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore/sqlstoretest"
)

// TestFaultsBuiltBinary: the built binary on PostgreSQL reached through a
// TCP proxy, with its default deadlines, four clients posting check-ins
// (each with its own Idempotency-Key) and a load balancer probing /readyz
// (and /healthz, for comparison) all along, through the faults of
// docs/failures.md, "Failures": the database goes away (every
// connection closed, new ones refused); the network to it is partitioned
// for 20 s (packets dropped, Proxy.Partition: every answer that began
// during it comes within 10 s); a COMMIT is cut on its way, with the
// writers paused, so the check-in it was is answered outcome_unknown and
// its retry with the same Idempotency-Key says it was stored; and
// PostgreSQL terminates every backend of the server (pg_terminate_backend).
// After each fault a read answers 200 again without a restart. No answer
// is a 500, every 503 carries Retry-After, every acknowledged check-in is
// stored once and none twice, and /readyz is answered from the cache of
// its background check: no more checks than one a second whatever the
// probes. The figures (slowest answers, slowest probes) are logged, not
// asserted.
func TestFaultsBuiltBinary(t *testing.T) {
	dsn := sqlstoretest.PostgresURL(t) // skips without OKRGATE_TEST_POSTGRES
	t.Parallel()                       // it mostly waits for its faults: beside the other long built-binary tests
	boot := bootstrapDB(t, dsn, "Faults", "ops@faults.test")
	proxy, u := proxiedPostgres(t, dsn)
	q := u.Query()
	q.Set("default_query_exec_mode", "exec") // statements' text on the wire: the proxy sees each COMMIT
	u.RawQuery = q.Encode()
	// The default deadlines (docs/decisions/failures.md, "A partition is
	// bounded by TCP, a slow query by its deadline").
	srv := startServer(t, u.String(), "--rate-limit", "off")
	readyChecks := func() float64 {
		return metricSum(t, srv.metrics, "okrgate_readiness_checks_total", `result="ok"`, `result="failed"`)
	}
	checksBefore, began := readyChecks(), time.Now()

	hc := &http.Client{Timeout: 60 * time.Second}
	type answer struct {
		status     int
		code       string
		retryAfter string
		start      time.Time
		took       time.Duration
	}
	var mu sync.Mutex
	var answers []answer // every answer of the API, for the partition's bound
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
		a := answer{status: res.StatusCode, retryAfter: res.Header.Get("Retry-After"), start: t0, took: time.Since(t0)}
		var p struct{ Code string }
		_ = json.Unmarshal(b, &p)
		a.code = p.Code
		mu.Lock()
		answers = append(answers, a)
		mu.Unlock()
		return a, b
	}
	kr := newKeyResult(t, func(path string, body any) (int, []byte) {
		a, b := call("POST", path, body, "")
		return a.status, b
	}, 1000000)

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
		a, b := call("POST", "/api/v1/metrics/"+kr+"/checkin", map[string]any{"actual": v}, fmt.Sprint("ci-", v))
		check(fmt.Sprint("check-in ", v), a, b)
		if a.status == http.StatusCreated {
			mu.Lock()
			acked[v] = true
			mu.Unlock()
		}
		return a
	}
	// recovered waits until a read answers 200 again: the server came
	// back by itself.
	recovered := func(t *testing.T) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			a, b := call("GET", "/api/v1/metrics/"+kr, nil, "")
			if a.status == http.StatusOK {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("no read answered 200 within 30s of the fault's end: %d %s", a.status, b)
			}
		}
	}

	// Four writers and a load balancer until stopped; the writers pause
	// while pause is held.
	stop := make(chan struct{})
	var pause sync.RWMutex
	var wg sync.WaitGroup
	type probe struct {
		n       int
		slowest time.Duration
		not200  int
	}
	probes := map[string]*probe{"/readyz": {}, "/healthz": {}}
	var readyAnswers []answer // /readyz's, for the partition's bound
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
			for _, path := range []string{"/readyz", "/healthz"} {
				t0 := time.Now()
				res, err := http.Get(srv.base + path)
				if err != nil {
					t.Errorf("%s: %v", path, err)
					continue
				}
				res.Body.Close()
				took := time.Since(t0)
				mu.Lock()
				p := probes[path]
				p.n++
				p.slowest = max(p.slowest, took)
				if res.StatusCode != http.StatusOK {
					p.not200++
				}
				if path == "/readyz" {
					readyAnswers = append(readyAnswers, answer{status: res.StatusCode, start: t0, took: took})
				}
				mu.Unlock()
			}
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
				pause.RLock()
				checkIn(v)
				pause.RUnlock()
				time.Sleep(50 * time.Millisecond)
			}
		})
	}
	time.Sleep(time.Second) // the writers under way
	phase := func(name string) func() {
		t0 := time.Now()
		return func() { t.Logf("%s: %s", name, time.Since(t0).Round(100*time.Millisecond)) }
	}

	t.Run("down", func(t *testing.T) {
		defer phase("down")()
		proxy.Cut()
		for range 5 {
			a, b := call("GET", "/api/v1/metrics/"+kr, nil, "")
			check("read while down", a, b)
			if a.status != http.StatusServiceUnavailable || a.code != "unavailable" {
				t.Errorf("read while the database is down: %d %q, want 503 unavailable", a.status, a.code)
			}
		}
		time.Sleep(2 * time.Second) // the writers meet it too
		proxy.Heal()
		recovered(t)
	})

	t.Run("partition", func(t *testing.T) {
		defer phase("partition")()
		if err := faults.CanPartition(); err != nil {
			t.Skipf("a partition drops packets: %v", err)
		}
		if err := proxy.Partition(); err != nil {
			t.Fatal(err)
		}
		// The bound of every answer in a partition with the default flags
		// (docs/decisions/failures.md, "A partition is bounded by TCP, a
		// slow query by its deadline"): about 9 s by construction.
		const bound = 10 * time.Second
		var pw sync.WaitGroup
		started := time.Now()
		for i := 0; time.Since(started) < 20*time.Second; i++ {
			pw.Go(func() {
				a, b := call("GET", "/api/v1/metrics/"+kr, nil, "")
				check("read during the partition", a, b)
			})
			pw.Go(func() { checkIn(100000 + i) })
			time.Sleep(time.Second)
		}
		pw.Wait()
		ended := time.Now()
		proxy.Heal()
		var slowest, slowestReady time.Duration
		n := 0
		mu.Lock()
		for _, a := range answers {
			if a.start.Before(started) || a.start.After(ended) {
				continue
			}
			n++
			slowest = max(slowest, a.took)
			if a.took > bound {
				t.Errorf("an answer during the partition took %s (%d %s), over %s", a.took.Round(10*time.Millisecond), a.status, a.code, bound)
			}
		}
		for _, a := range readyAnswers {
			if !a.start.Before(started) && !a.start.After(ended) {
				slowestReady = max(slowestReady, a.took)
			}
		}
		mu.Unlock()
		t.Logf("partition of %s: %d answers, the slowest in %s; /readyz's slowest %s", ended.Sub(started).Round(time.Second), n,
			slowest.Round(10*time.Millisecond), slowestReady.Round(time.Millisecond))
		recovered(t)
	})

	t.Run("interrupted commit", func(t *testing.T) {
		defer phase("interrupted commit")()
		// The writers paused, the only COMMIT (the store's, in capitals;
		// pgx's own transactions send "commit") is this check-in's.
		pause.Lock()
		defer pause.Unlock()
		const v = 200000
		proxy.CutAfter([]byte("COMMIT"))
		a := checkIn(v)
		proxy.Heal()
		if a.status != http.StatusServiceUnavailable || a.code != "outcome_unknown" {
			t.Fatalf("the check-in whose COMMIT was cut: %d %q, want 503 outcome_unknown", a.status, a.code)
		}
		// Its retry with the same key: 409 idempotency_key_in_use when it
		// committed (applied, answer not recorded), 201 when it did not
		// and the retry applied it; once either way (checked below).
		var b []byte
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			a, b = call("POST", "/api/v1/metrics/"+kr+"/checkin", map[string]any{"actual": v}, fmt.Sprint("ci-", v))
			if a.status != http.StatusServiceUnavailable || time.Now().After(deadline) {
				break
			}
		}
		switch {
		case a.status == http.StatusCreated:
			mu.Lock()
			acked[v] = true
			mu.Unlock()
		case a.status == http.StatusConflict && a.code == "idempotency_key_in_use":
		default:
			t.Fatalf("retry with the Idempotency-Key: %d %s", a.status, b)
		}
		t.Logf("the outcome_unknown check-in's retry: %d %s", a.status, a.code)
		if n := storedCheckIns(t, call, kr)[v]; n != 1 {
			t.Errorf("the interrupted check-in is stored %d times, want once", n)
		}
	})

	t.Run("pg_terminate_backend", func(t *testing.T) {
		defer phase("pg_terminate_backend")()
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
		time.Sleep(time.Second) // the writers meet it
		recovered(t)
	})

	close(stop)
	wg.Wait()
	elapsed := time.Since(began)
	stored := storedCheckIns(t, call, kr)
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
	// /readyz from the cache: a check starts only once the last result
	// is readyFresh (1 s) old, so at most one a second however many
	// probes came; the probes never touched the database themselves.
	checks := readyChecks() - checksBefore
	if limit := elapsed.Seconds() + 1; checks > limit {
		t.Errorf("%.0f readiness checks of the database in %s, more than one a second (%d probes)", checks, elapsed.Round(time.Second), probes["/readyz"].n)
	}
	r, h := probes["/readyz"], probes["/healthz"]
	t.Logf("answers: %v; %d acknowledged check-ins, %d stored; /readyz: %d probes, %d not 200, slowest %s (/healthz's slowest %s), %.0f checks of the database",
		codes, len(acked), len(stored), r.n, r.not200, r.slowest.Round(time.Millisecond), h.slowest.Round(time.Millisecond), checks)
}

// storedCheckIns counts the check-ins of the key result metric stored by
// their actual value, read through the API with call.
func storedCheckIns[A any](t *testing.T, call func(method, path string, body any, key string) (A, []byte), metric string) map[int]int {
	t.Helper()
	var page struct {
		Items []struct{ Actual float64 }
	}
	_, b := call("GET", "/api/v1/metrics/"+metric+"/checkins?limit=1000", nil, "")
	if err := json.Unmarshal(b, &page); err != nil {
		t.Fatalf("list check-ins: %v: %s", err, b)
	}
	stored := map[int]int{}
	for _, c := range page.Items {
		stored[int(c.Actual)]++
	}
	return stored
}

// metricSum is the sum of the series of the metric family name on the
// /metrics at url whose labels contain one of match (all when none).
func metricSum(t *testing.T, url, name string, match ...string) float64 {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	f := families[name]
	if f == nil {
		t.Fatalf("%s not on %s", name, url)
	}
	sum := 0.0
	for _, m := range f.GetMetric() {
		labels := ""
		for _, l := range m.GetLabel() {
			labels += fmt.Sprintf("%s=%q,", l.GetName(), l.GetValue())
		}
		ok := len(match) == 0
		for _, x := range match {
			ok = ok || strings.Contains(labels, x)
		}
		if !ok {
			continue
		}
		switch {
		case m.Counter != nil:
			sum += m.Counter.GetValue()
		case m.Gauge != nil:
			sum += m.Gauge.GetValue()
		}
	}
	return sum
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
