// Command loadtest drives a built okrgate binary with many concurrent
// clients over a read/write mix, on loopback, for a bounded time, and checks
// that the server degrades gracefully: no 5xx other than 503 from load
// shedding, and /healthz answering in under 100 ms throughout. It exits 1
// when either fails. docs/benchmarks.md has its figures.
//
//	go build -o /tmp/okrgate ./cmd/okrgate
//	go run ./cmd/okrgate/internal/loadtest --bin /tmp/okrgate
//
// It seeds a fresh database in a temporary directory (okrgate bootstrap and
// okrgate seed), starts okrgate serve on 127.0.0.1, gives every client a
// token of its own, and runs for --duration (at most 30 s). Timings are
// measured here, never asserted in a go test.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/okrgate/okrgate/cmd/okrgate/internal/binary"
)

func main() {
	if len(os.Args) == 4 && os.Args[1] == "probe" {
		// The /healthz prober runs as a process of its own, like an
		// orchestrator's probe, so the clients' goroutines do not delay it.
		if err := probe(os.Args[2], os.Args[3]); err != nil {
			fmt.Fprintln(os.Stderr, "loadtest probe:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "loadtest:", err)
		os.Exit(1)
	}
}

type config struct {
	bin        string
	clients    int
	duration   time.Duration
	goals      int
	serveFlags string
	healthMax  time.Duration
}

func run() error {
	var c config
	flag.StringVar(&c.bin, "bin", "", "the okrgate `binary` to test (required)")
	flag.IntVar(&c.clients, "clients", 200, "concurrent clients, each with its own token")
	flag.DurationVar(&c.duration, "duration", 20*time.Second, "how long to run (at most 30s)")
	flag.IntVar(&c.goals, "goals", 100, "objectives to seed")
	flag.StringVar(&c.serveFlags, "serve-flags", "--rate-limit address=off", "extra flags for okrgate serve (all clients share one loopback address)")
	flag.DurationVar(&c.healthMax, "healthz-max", 100*time.Millisecond, "the slowest /healthz answer allowed")
	flag.Parse()
	if c.bin == "" {
		return errors.New("--bin is required")
	}
	if c.duration > 30*time.Second {
		return errors.New("--duration is at most 30s")
	}
	dir, err := os.MkdirTemp("", "okrgate-loadtest")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	db := filepath.Join(dir, "load.db")

	fmt.Fprintf(os.Stderr, "seeding %d objectives...\n", c.goals)
	boot, err := binary.Seed(c.bin, db, c.goals, 5, nil)
	if err != nil {
		return err
	}
	srv, err := binary.Serve(c.bin, db, strings.Fields(c.serveFlags)...)
	if err != nil {
		return err
	}
	defer srv.Stop()
	base := srv.Base

	hc := &http.Client{Transport: &http.Transport{MaxIdleConns: 4 * c.clients, MaxIdleConnsPerHost: 4 * c.clients}, Timeout: 30 * time.Second}
	admin := client{hc: hc, base: base, token: boot.Token, acct: boot.AccountID}
	data, err := admin.dataset()
	if err != nil {
		return err
	}
	tokens := make([]string, c.clients)
	for i := range tokens {
		var t struct{ Token string }
		if err := admin.json("POST", "/api/v2/users/me/tokens", map[string]any{"name": fmt.Sprint("load ", i)}, &t); err != nil {
			return fmt.Errorf("token %d: %w", i, err)
		}
		tokens[i] = t.Token
	}

	fmt.Fprintf(os.Stderr, "running %d clients for %s against %s (serve %s)...\n", c.clients, c.duration, base, c.serveFlags)
	res := newResults()
	deadline := time.Now().Add(c.duration)
	var wg sync.WaitGroup
	prober := exec.Command(os.Args[0], "probe", base, c.duration.String())
	prober.Stderr = os.Stderr
	probeOut, err := prober.StdoutPipe()
	if err != nil {
		return err
	}
	if err := prober.Start(); err != nil {
		return fmt.Errorf("start the /healthz prober: %w", err)
	}
	for i := range c.clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cl := client{hc: hc, base: base, token: tokens[i], acct: boot.AccountID}
			rng := rand.New(rand.NewPCG(uint64(i), 5))
			for time.Now().Before(deadline) {
				kind, status, d := cl.one(rng, data)
				res.add(kind, status, d)
				if status == 429 || status == 503 {
					// A well-behaved client backs off as Retry-After asks
					// (1 s for a shed request), with jitter.
					time.Sleep(500*time.Millisecond + time.Duration(rng.IntN(1000))*time.Millisecond)
				}
			}
		}()
	}
	wg.Wait()
	var probes []probeResult
	if err := json.NewDecoder(probeOut).Decode(&probes); err != nil {
		return fmt.Errorf("read the /healthz prober: %w", err)
	}
	if err := prober.Wait(); err != nil {
		return fmt.Errorf("the /healthz prober: %w", err)
	}
	for _, p := range probes {
		res.add("GET /healthz", p.Status, p.Duration)
	}
	return res.report(os.Stdout, c)
}

// dataset is what the clients pick from.
type dataset struct {
	sessions, goals, metrics []string
}

type client struct {
	hc                *http.Client
	base, token, acct string
}

func (c client) request(method, path string, body any) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("service-accountId", c.acct)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return c.hc.Do(req)
}

func (c client) json(method, path string, body, dst any) error {
	res, err := c.request(method, path, body)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode >= 300 {
		return fmt.Errorf("%s %s: %d %s", method, path, res.StatusCode, raw)
	}
	return json.Unmarshal(raw, dst)
}

func (c client) dataset() (dataset, error) {
	var d dataset
	var page struct{ Items []struct{ ID string } }
	if err := c.json("GET", "/api/v2/sessions?limit=100", nil, &page); err != nil {
		return d, err
	}
	for _, it := range page.Items {
		d.sessions = append(d.sessions, it.ID)
	}
	page.Items = nil
	if err := c.json("GET", "/api/v2/integrations/goals?limit=1000&fields=id", nil, &page); err != nil {
		return d, err
	}
	for _, it := range page.Items {
		d.goals = append(d.goals, it.ID)
	}
	page.Items = nil
	if err := c.json("GET", "/api/v2/metrics?limit=1000", nil, &page); err != nil {
		return d, err
	}
	for _, it := range page.Items {
		d.metrics = append(d.metrics, it.ID)
	}
	if len(d.sessions) == 0 || len(d.goals) == 0 || len(d.metrics) == 0 {
		return d, fmt.Errorf("seeded dataset is empty: %d sessions, %d goals, %d key results", len(d.sessions), len(d.goals), len(d.metrics))
	}
	return d, nil
}

const treeQuery = `query Tree($id: ID!) { session(id: $id) { id title goals(roots: true) { ...G children { ...G children { ...G } } } } }
fragment G on Goal { id name attainment owners { ... on User { id name } ... on Team { id name } } metrics { id name attainment checkins { id actual } } }`

// one sends one request of the mix: 40% REST goal pages, 20% single goals,
// 25% GraphQL session trees, 15% check-ins (writes).
func (c client) one(rng *rand.Rand, d dataset) (kind string, status int, dur time.Duration) {
	pick := func(xs []string) string { return xs[rng.IntN(len(xs))] }
	var method, path string
	var body any
	switch p := rng.IntN(100); {
	case p < 40:
		kind, method, path = "REST goals page", "GET", fmt.Sprintf("/api/v2/integrations/goals?limit=20&skip=%d&fields=name,attainment,ownerIds", rng.IntN(len(d.goals)))
	case p < 60:
		kind, method, path = "REST goal", "GET", "/api/v1/goals/"+pick(d.goals)
	case p < 85:
		kind, method, path = "GraphQL tree", "POST", "/graphql"
		body = map[string]any{"query": treeQuery, "variables": map[string]any{"id": pick(d.sessions)}}
	default:
		kind, method, path = "REST check-in (write)", "POST", "/api/v1/metrics/"+pick(d.metrics)+"/checkin"
		body = map[string]any{"actual": rng.IntN(100)}
	}
	start := time.Now()
	res, err := c.request(method, path, body)
	if err != nil {
		return kind, 0, time.Since(start)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return kind, res.StatusCode, time.Since(start)
}

// probeResult is one /healthz answer.
type probeResult struct {
	Status   int
	Duration time.Duration
}

// probe asks base's /healthz every 20 ms for the given duration and prints
// the answers as JSON.
func probe(base, duration string) error {
	d, err := time.ParseDuration(duration)
	if err != nil {
		return err
	}
	hc := &http.Client{Timeout: 10 * time.Second}
	var out []probeResult
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		start := time.Now()
		r, err := hc.Get(base + "/healthz")
		status := 0
		if err == nil {
			io.Copy(io.Discard, r.Body)
			r.Body.Close()
			status = r.StatusCode
		}
		out = append(out, probeResult{status, time.Since(start)})
	}
	return json.NewEncoder(os.Stdout).Encode(out)
}

// results collects statuses and latencies per kind of request.
type results struct {
	mu     sync.Mutex
	status map[string]map[int]int
	lat    map[string][]time.Duration // of answers other than 429/503
}

func newResults() *results {
	return &results{status: map[string]map[int]int{}, lat: map[string][]time.Duration{}}
}

func (r *results) add(kind string, status int, d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.status[kind] == nil {
		r.status[kind] = map[int]int{}
	}
	r.status[kind][status]++
	if status != 429 && status != 503 {
		r.lat[kind] = append(r.lat[kind], d)
	}
}

func pct(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	return ds[min(len(ds)-1, int(float64(len(ds))*p))]
}

// report prints the table and fails on a 5xx other than 503, on a failed
// /healthz, or on a /healthz slower than the allowed maximum.
func (r *results) report(w io.Writer, c config) error {
	kinds := make([]string, 0, len(r.status))
	for k := range r.status {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	fmt.Fprintf(w, "%d clients, %s\n\n| request | answered | 2xx | 429 | 503 | other | p50 | p99 | max |\n|---|---|---|---|---|---|---|---|---|\n", c.clients, c.duration)
	var problems []string
	for _, k := range kinds {
		total, ok, other := 0, 0, 0
		for s, n := range r.status[k] {
			total += n
			switch {
			case s >= 200 && s < 300:
				ok += n
			case s == 429 || s == 503:
			default:
				other += n
				if s == 0 || s >= 500 || k == "GET /healthz" {
					problems = append(problems, fmt.Sprintf("%s: %d answers with status %d", k, n, s))
				}
			}
		}
		ds := r.lat[k]
		slices.Sort(ds)
		mx := time.Duration(0)
		if len(ds) > 0 {
			mx = ds[len(ds)-1]
		}
		fmt.Fprintf(w, "| %s | %d | %d | %d | %d | %d | %s | %s | %s |\n", k, total, ok, r.status[k][429], r.status[k][503], other,
			pct(ds, 0.5).Round(100*time.Microsecond), pct(ds, 0.99).Round(100*time.Microsecond), mx.Round(100*time.Microsecond))
		if k == "GET /healthz" {
			if r.status[k][503] > 0 || r.status[k][429] > 0 {
				problems = append(problems, "/healthz was shed or rate limited")
			}
			if mx >= c.healthMax {
				problems = append(problems, fmt.Sprintf("/healthz took %s, over %s", mx, c.healthMax))
			}
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("failed:\n  %s", strings.Join(problems, "\n  "))
	}
	fmt.Fprintln(w, "\nok: no 5xx other than 503, /healthz always under", c.healthMax)
	return nil
}
