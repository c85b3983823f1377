package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"sync"
	"time"
)

// kindHealth is the /healthz prober's kind.
const kindHealth = "GET /healthz"

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
			_, _ = io.Copy(io.Discard, r.Body)
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
	bare   int // 503s without a Retry-After
	status map[string]map[int]int
	lat    map[string][]time.Duration // of answers other than 429/503
}

func newResults() *results {
	return &results{status: map[string]map[int]int{}, lat: map[string][]time.Duration{}}
}

func (r *results) add(o outcome) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.status[o.kind] == nil {
		r.status[o.kind] = map[int]int{}
	}
	r.status[o.kind][o.status]++
	if o.status == 503 && o.retryAfter <= 0 && o.kind != kindHealth {
		r.bare++
	}
	if o.status != 429 && o.status != 503 && o.status != 0 {
		r.lat[o.kind] = append(r.lat[o.kind], o.dur)
	}
}

func pct(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	return ds[min(len(ds)-1, int(float64(len(ds))*p))]
}

// answered counts the answers of the clients (not the probe) other than
// 429, 503 and connection errors.
func (r *results) answered() (answered, all int) {
	for k, m := range r.status {
		if k == kindHealth {
			continue
		}
		for s, n := range m {
			all += n
			if s != 0 && s != 429 && s != 503 {
				answered += n
			}
		}
	}
	return answered, all
}

func (r *results) answeredPerSecond(d time.Duration) float64 {
	n, _ := r.answered()
	return float64(n) / d.Seconds()
}

func (r *results) refusedShare() float64 {
	n, all := r.answered()
	return float64(all-n) / float64(max(all, 1))
}

// answeredPct is the percentile p of the latencies of all answered client
// requests.
func (r *results) answeredPct(p float64) time.Duration {
	var all []time.Duration
	for k, ds := range r.lat {
		if k != kindHealth {
			all = append(all, ds...)
		}
	}
	slices.Sort(all)
	return pct(all, p)
}

// healthPct is the percentile p of the /healthz answers' latencies.
func (r *results) healthPct(p float64) time.Duration {
	ds := slices.Clone(r.lat[kindHealth])
	slices.Sort(ds)
	return pct(ds, p)
}

// table prints the statuses and latencies per kind, and returns the
// problems: a 5xx other than 503, a 503 without Retry-After, a connection
// error, a failed /healthz, or (with --healthz-max) a /healthz slower than
// allowed.
func (r *results) table(c config) []string {
	kinds := make([]string, 0, len(r.status))
	for k := range r.status {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	fmt.Print("| request | sent | 2xx | 429 | 503 | other | p50 | p99 | max |\n|---|---|---|---|---|---|---|---|---|\n")
	var problems []string
	if r.bare > 0 {
		problems = append(problems, fmt.Sprintf("%d answers 503 without Retry-After", r.bare))
	}
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
				if s == 0 || s >= 500 || k == kindHealth {
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
		fmt.Printf("| %s | %d | %d | %d | %d | %d | %s | %s | %s |\n", k, total, ok, r.status[k][429], r.status[k][503], other,
			pct(ds, 0.5).Round(100*time.Microsecond), pct(ds, 0.99).Round(100*time.Microsecond), mx.Round(100*time.Microsecond))
		if k == kindHealth {
			if r.status[k][503] > 0 || r.status[k][429] > 0 {
				problems = append(problems, "/healthz was shed or rate limited")
			}
			if c.healthMax > 0 && mx >= c.healthMax {
				problems = append(problems, fmt.Sprintf("/healthz took %s, over %s", mx, c.healthMax))
			}
		}
	}
	return problems
}
