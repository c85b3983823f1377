// Command checkinbench measures how many check-ins per second one account
// takes on PostgreSQL: for each built okrgate binary given, in turn and in
// the same run, a fresh database, okrgate serve on it, a goal chain with 16
// key results on its leaf set up over REST, and then --writers clients that
// post check-ins to those key results for --duration. Writes of one
// account are serialised by the account's row lock, so this is the
// account's ceiling. The binaries take turns in every round (the order
// alternates), so that a change in the machine's load weighs on all of
// them alike; it prints one row per binary and round, with the load
// average, and the ratio of each binary to the first per round.
//
//	go build -o /tmp/okrgate-before ./cmd/okrgate   # at the commit to compare with
//	go build -o /tmp/okrgate ./cmd/okrgate
//	go run ./cmd/okrgate/internal/checkinbench --postgres 'postgres://USER:PASSWORD@127.0.0.1:5432/postgres?sslmode=disable' \
//	  --bin /tmp/okrgate-before --bin /tmp/okrgate --writers 16 --duration 10s --rounds 3
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/okrgate/okrgate/cmd/okrgate/internal/binary"
	"github.com/okrgate/okrgate/cmd/okrgate/internal/pgtemp"
)

type bins []string

func (b *bins) String() string     { return strings.Join(*b, ",") }
func (b *bins) Set(s string) error { *b = append(*b, s); return nil }

func main() {
	var bs bins
	flag.Var(&bs, "bin", "a built okrgate binary (repeat; the first is the baseline of the ratios)")
	pgURL := flag.String("postgres", "", "a PostgreSQL URL whose role may create databases")
	writers := flag.Int("writers", 16, "concurrent clients posting check-ins")
	duration := flag.Duration("duration", 10*time.Second, "how long each binary takes check-ins per round")
	rounds := flag.Int("rounds", 3, "rounds")
	depth := flag.Int("depth", 3, "levels of the goal chain above the key results")
	var serveArgs bins
	flag.Var(&serveArgs, "serve-arg", "an argument added to every binary's okrgate serve (repeat), e.g. --serve-arg=--max-inflight-writes=16")
	flag.Parse()
	if len(bs) == 0 || *pgURL == "" {
		fmt.Fprintln(os.Stderr, "checkinbench: need --postgres and at least one --bin")
		os.Exit(2)
	}
	if *duration > 2*time.Minute || *rounds > 10 || *writers > 256 {
		fmt.Fprintln(os.Stderr, "checkinbench: at most 2m per run, 10 rounds, 256 writers")
		os.Exit(2)
	}
	fmt.Printf("| round | binary | load avg before | check-ins/s | answered | not 2xx | p50 | p99 | ÷ %s |\n|---|---|---|---|---|---|---|---|---|\n", bs[0])
	for round := range *rounds {
		order := slices.Clone(bs)
		if round%2 == 1 {
			slices.Reverse(order)
		}
		rate := map[string]float64{}
		var lines []string
		for i, bin := range order {
			r, err := measure(*pgURL, bin, fmt.Sprintf("ckb_%d_%d_%d", os.Getpid(), round, i), *writers, *depth, *duration, serveArgs)
			if err != nil {
				fmt.Fprintf(os.Stderr, "checkinbench: %s: %v\n", bin, err)
				os.Exit(1)
			}
			rate[bin] = r.perSecond
			lines = append(lines, fmt.Sprintf("| %d | %s | %s | %.1f | %d | %d | %s | %s |", round+1, bin, r.load, r.perSecond, r.ok, r.failed,
				r.p50.Round(100*time.Microsecond), r.p99.Round(100*time.Microsecond)))
		}
		for i, bin := range order {
			fmt.Printf("%s %.2f |\n", lines[i], rate[bin]/rate[bs[0]])
		}
	}
}

type result struct {
	perSecond  float64
	ok, failed int64
	p50, p99   time.Duration
	load       string
}

// measure runs one binary on a fresh database named name.
func measure(pgURL, bin, name string, writers, depth int, d time.Duration, serveArgs []string) (result, error) {
	ctx := context.Background()
	db, drop, err := pgtemp.Create(ctx, pgURL, name)
	if err != nil {
		return result{}, err
	}
	defer func() {
		if err := drop(); err != nil {
			fmt.Fprintln(os.Stderr, "checkinbench:", err)
		}
	}()
	out, err := exec.Command(bin, "bootstrap", "--create", "--db", db, "--account", "Bench", "--email", "bench@bench.test", "--json").Output()
	if err != nil {
		return result{}, fmt.Errorf("bootstrap: %w", err)
	}
	var a binary.Account
	if err := json.Unmarshal(out, &a); err != nil {
		return result{}, fmt.Errorf("bootstrap output %q: %w", out, err)
	}
	srv, err := binary.Serve(bin, db, append([]string{"--rate-limit", "off"}, serveArgs...)...)
	if err != nil {
		return result{}, err
	}
	defer srv.Stop()
	c := client{hc: &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: writers}},
		base: srv.Base, token: a.Token, account: a.AccountID}
	krs, err := setup(c, depth)
	if err != nil {
		return result{}, fmt.Errorf("setup: %w", err)
	}
	load := loadAvg()
	var ok, failed atomic.Int64
	lat := make([][]time.Duration, writers)
	stop := time.Now().Add(d)
	start := time.Now()
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; time.Now().Before(stop); i++ {
				t0 := time.Now()
				status, err := c.post("/api/v1/metrics/"+krs[(w+i)%len(krs)]+"/checkin", map[string]any{"actual": (w*7 + i) % 100}, nil)
				if err != nil || status/100 != 2 {
					if failed.Add(1) == 1 {
						fmt.Fprintf(os.Stderr, "checkinbench: %s: first failure: status %d, %v\n", bin, status, err)
					}
					continue
				}
				ok.Add(1)
				lat[w] = append(lat[w], time.Since(t0))
			}
		}()
	}
	wg.Wait()
	took := time.Since(start)
	all := slices.Concat(lat...)
	slices.Sort(all)
	r := result{perSecond: float64(ok.Load()) / took.Seconds(), ok: ok.Load(), failed: failed.Load(), load: load}
	if len(all) > 0 {
		r.p50, r.p99 = all[len(all)/2], all[len(all)*99/100]
	}
	return r, nil
}

// setup makes a session, a chain of depth goals and 16 key results on its
// last goal, and returns their ids.
func setup(c client, depth int) ([]string, error) {
	var ss, g struct{ ID string }
	if _, err := c.post("/api/v1/sessions", map[string]any{"title": "Q1", "start": "2026-01-01", "end": "2026-03-31"}, &ss); err != nil {
		return nil, err
	}
	parent := ""
	for i := range depth {
		if _, err := c.post("/api/v1/goals", map[string]any{"name": fmt.Sprint("g", i), "sessionId": ss.ID, "parentId": parent}, &g); err != nil {
			return nil, err
		}
		parent = g.ID
	}
	var krs []string
	for i := range 16 {
		var m struct{ ID string }
		if _, err := c.post("/api/v1/metrics", map[string]any{"name": fmt.Sprint("kr", i), "goalId": parent, "target": 100}, &m); err != nil {
			return nil, err
		}
		krs = append(krs, m.ID)
	}
	return krs, nil
}

type client struct {
	hc                   *http.Client
	base, token, account string
}

// post sends body as JSON and decodes a 2xx answer into dst (if not nil).
func (c client) post(path string, body, dst any) (int, error) {
	b, _ := json.Marshal(body)
	req, err := http.NewRequest("POST", c.base+path, bytes.NewReader(b))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("service-accountId", c.account)
	req.Header.Set("Content-Type", "application/json")
	res, err := c.hc.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode/100 != 2 {
		if dst != nil {
			return res.StatusCode, fmt.Errorf("POST %s: %d %s", path, res.StatusCode, raw)
		}
		return res.StatusCode, nil
	}
	if dst != nil {
		return res.StatusCode, json.Unmarshal(raw, dst)
	}
	return res.StatusCode, nil
}

// loadAvg returns the 1, 5 and 15 minute load averages.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}
