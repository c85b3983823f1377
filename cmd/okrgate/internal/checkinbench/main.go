// Command checkinbench measures how many check-ins per second one account
// takes: for each built okrgate binary given, in turn and in the same run, a
// fresh database (an SQLite file, or a PostgreSQL database created beside
// the one --postgres names), okrgate serve on it, goals with 16 key results
// on one of them set up over REST, and then --writers clients that post
// check-ins to those key results for --duration. Writes of one account are
// serialised (by SQLite's single writer, or by the account's row lock on
// PostgreSQL), so this is the account's ceiling.
//
// The goals are one of these shapes (--shape, repeat to measure several in
// the same run):
//
//   - flat: one objective with no parent and no children;
//   - chain: a chain of --depth objectives, the key results on the last;
//   - tree: a tree of --tree-size objectives, each with one key result,
//     six children per objective filled breadth first; the 16 key results
//     are on the last leaf (five levels for 300 objectives).
//
// The binaries take turns in every round and shape (the order alternates
// between rounds), so that a change in the machine's load weighs on all of
// them alike; it prints one row per shape, binary and round, with the load
// average and the ratio of each binary to the first in that round, then
// the minimum and median of each binary per shape and, with several shapes,
// each shape's median as a fraction of the first shape's.
//
//	go build -o /tmp/okrgate-before ./cmd/okrgate   # at the commit to compare with
//	go build -o /tmp/okrgate ./cmd/okrgate
//	go run ./cmd/okrgate/internal/checkinbench --store sqlite --shape flat --shape tree \
//	  --bin /tmp/okrgate-before --bin /tmp/okrgate --writers 8 --duration 8s --rounds 3
//	go run ./cmd/okrgate/internal/checkinbench --postgres 'postgres://USER:PASSWORD@127.0.0.1:5432/postgres?sslmode=disable' \
//	  --bin /tmp/okrgate-before --bin /tmp/okrgate --writers 16 --duration 10s --rounds 3
//
// --db-latency puts PostgreSQL that much farther away: the servers reach
// it through a TCP proxy (upstream/backend/sqlstore/faults.Proxy) that holds every
// chunk half of it in each direction, from the end of the setup and of 3 s
// of check-ins by every writer at full speed on (the server warm). Then
// the rows also show the share of check-ins refused (not 2xx) and how
// /readyz answered, probed every 100 ms during the run (docs/failures.md,
// "Failures"):
//
//	go run ./cmd/okrgate/internal/checkinbench --postgres 'postgres://…' --db-latency 500ms \
//	  --bin /tmp/okrgate-before --bin /tmp/okrgate --writers 8 --duration 30s --rounds 3 --shape flat
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/okrgate/okrgate/cmd/okrgate/internal/binary"
	"github.com/okrgate/okrgate/cmd/okrgate/internal/pgtemp"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore/faults"
)

type list []string

func (l *list) String() string     { return strings.Join(*l, ",") }
func (l *list) Set(s string) error { *l = append(*l, s); return nil }

// config is what every measurement of a run shares.
type config struct {
	store, pgURL, dir string
	writers           int
	depth, treeSize   int
	duration          time.Duration
	latency           time.Duration // added to each round trip to PostgreSQL
	serveArgs         []string
}

func main() {
	var bs, shapes, serveArgs list
	var cfg config
	flag.Var(&bs, "bin", "a built okrgate binary (repeat; the first is the baseline of the ratios)")
	flag.StringVar(&cfg.store, "store", "postgres", "the database: sqlite (a file in a temporary directory) or postgres")
	flag.StringVar(&cfg.pgURL, "postgres", "", "a PostgreSQL URL whose role may create databases (--store postgres)")
	flag.Var(&shapes, "shape", "the goals the key results are on: flat, chain or tree (repeat; default chain)")
	flag.IntVar(&cfg.writers, "writers", 16, "concurrent clients posting check-ins")
	flag.DurationVar(&cfg.duration, "duration", 10*time.Second, "how long each binary takes check-ins per round and shape")
	rounds := flag.Int("rounds", 3, "rounds")
	flag.DurationVar(&cfg.latency, "db-latency", 0, "added to every round trip to PostgreSQL during the run, through a TCP proxy (--store postgres)")
	flag.IntVar(&cfg.depth, "depth", 3, "levels of the goal chain above the key results (--shape chain)")
	flag.IntVar(&cfg.treeSize, "tree-size", 300, "objectives of the tree (--shape tree)")
	flag.Var(&serveArgs, "serve-arg", "an argument added to every binary's okrgate serve (repeat), e.g. --serve-arg=--max-inflight-writes=16")
	flag.Parse()
	cfg.serveArgs = serveArgs
	if len(shapes) == 0 {
		shapes = list{"chain"}
	}
	switch {
	case len(bs) == 0:
		fail(2, "need at least one --bin")
	case cfg.store == "postgres" && cfg.pgURL == "":
		fail(2, "--store postgres needs --postgres")
	case cfg.store != "postgres" && cfg.store != "sqlite":
		fail(2, "--store is sqlite or postgres")
	case cfg.latency != 0 && cfg.store != "postgres":
		fail(2, "--db-latency needs --store postgres")
	case cfg.duration > 2*time.Minute || *rounds > 10 || cfg.writers > 256 || cfg.treeSize > 2000 || cfg.depth > 50:
		fail(2, "at most 2m per run, 10 rounds, 256 writers, 2,000 objectives, 50 levels")
	}
	for _, s := range shapes {
		if s != "flat" && s != "chain" && s != "tree" {
			fail(2, "--shape is flat, chain or tree, not "+s)
		}
	}
	if cfg.store == "sqlite" {
		dir, err := os.MkdirTemp("", "checkinbench")
		if err != nil {
			fail(1, err.Error())
		}
		defer os.RemoveAll(dir)
		cfg.dir = dir
	}
	fmt.Printf("%s, %d writers, %s per run\n\n", cfg.store, cfg.writers, cfg.duration)
	if cfg.latency > 0 {
		fmt.Printf("PostgreSQL %s farther away (each round trip)\n\n", cfg.latency)
	}
	fmt.Printf("| round | shape | binary | load avg before | check-ins/s | answered | not 2xx | not 2xx %% | p50 | p99 | server CPU per check-in | /readyz max | /readyz not 200 | ÷ %s |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n", bs[0])
	runs := map[string]map[string][]result{} // shape → binary → one per round
	for round := range *rounds {
		for si, shape := range shapes {
			order := slices.Clone(bs)
			if (round+si)%2 == 1 {
				slices.Reverse(order)
			}
			if runs[shape] == nil {
				runs[shape] = map[string][]result{}
			}
			got := map[string]result{}
			for i, bin := range order {
				r, err := measure(cfg, bin, shape, fmt.Sprintf("ckb_%d_%d_%d_%d", os.Getpid(), round, si, i))
				if err != nil {
					fail(1, fmt.Sprintf("%s: %v", bin, err))
				}
				got[bin] = r
				runs[shape][bin] = append(runs[shape][bin], r)
			}
			for _, bin := range order {
				r := got[bin]
				fmt.Printf("| %d | %s | %s | %s | %.2f | %d | %d | %.1f | %s | %s | %s | %s | %d/%d | %.2f |\n", round+1, shape, bin, r.load, r.perSecond, r.ok, r.failed,
					100*float64(r.failed)/float64(max(1, r.ok+r.failed)), r.p50.Round(100*time.Microsecond), r.p99.Round(100*time.Microsecond),
					r.cpu.Round(time.Microsecond), r.readyMax.Round(100*time.Microsecond), r.readyFailed, r.readyProbes, r.perSecond/got[bs[0]].perSecond)
			}
		}
	}
	summary(bs, shapes, runs)
}

// summary prints, per shape and binary, the minimum and median check-ins/s
// and the median as a multiple of the first binary's, the median server CPU
// time per check-in, and (with several shapes) the median check-ins/s as a
// fraction of the same binary's on the first shape.
func summary(bs, shapes []string, runs map[string]map[string][]result) {
	median := func(shape, bin string, of func(result) float64) (float64, float64) {
		var xs []float64
		for _, r := range runs[shape][bin] {
			xs = append(xs, of(r))
		}
		return minMedian(xs)
	}
	rate := func(r result) float64 { return r.perSecond }
	cpu := func(r result) float64 { return float64(r.cpu) }
	fmt.Printf("\n| shape | binary | check-ins/s min | median | median ÷ %s's | server CPU per check-in (median) |", bs[0])
	if len(shapes) > 1 {
		fmt.Printf(" check-ins/s ÷ its %s median |", shapes[0])
	}
	fmt.Print("\n|---|---|---|---|---|---|")
	if len(shapes) > 1 {
		fmt.Print("---|")
	}
	fmt.Println()
	for _, shape := range shapes {
		_, base := median(shape, bs[0], rate)
		for _, bin := range bs {
			lo, med := median(shape, bin, rate)
			_, c := median(shape, bin, cpu)
			fmt.Printf("| %s | %s | %.1f | %.1f | %.2f | %s |", shape, bin, lo, med, med/base, time.Duration(c).Round(time.Microsecond))
			if len(shapes) > 1 {
				_, first := median(shapes[0], bin, rate)
				fmt.Printf(" %.2f |", med/first)
			}
			fmt.Println()
		}
	}
}

// minMedian returns the minimum and median of xs.
func minMedian(xs []float64) (float64, float64) {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0, 0
	}
	if len(s)%2 == 0 {
		return s[0], (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return s[0], s[len(s)/2]
}

func fail(code int, msg string) {
	fmt.Fprintln(os.Stderr, "checkinbench:", msg)
	os.Exit(code)
}

type result struct {
	perSecond  float64
	ok, failed int64
	p50, p99   time.Duration
	cpu        time.Duration // the server's CPU time per answered check-in
	load       string
	// /readyz during the run: probes, those not answered 200, the
	// slowest answer.
	readyProbes, readyFailed int
	readyMax                 time.Duration
}

// measure runs one binary on a fresh database named name.
func measure(cfg config, bin, shape, name string) (result, error) {
	db := filepath.Join(cfg.dir, name+".db")
	if cfg.store == "postgres" {
		dbURL, drop, err := pgtemp.Create(context.Background(), cfg.pgURL, name)
		if err != nil {
			return result{}, err
		}
		defer func() {
			if err := drop(); err != nil {
				fmt.Fprintln(os.Stderr, "checkinbench:", err)
			}
		}()
		db = dbURL
	} else {
		defer func() {
			for _, suffix := range []string{"", "-wal", "-shm"} {
				_ = os.Remove(db + suffix)
			}
		}()
	}
	out, err := exec.Command(bin, "bootstrap", "--create", "--db", db, "--account", "Bench", "--email", "bench@bench.test", "--json").Output()
	if err != nil {
		return result{}, fmt.Errorf("bootstrap: %w", err)
	}
	var a binary.Account
	if err := json.Unmarshal(out, &a); err != nil {
		return result{}, fmt.Errorf("bootstrap output %q: %w", out, err)
	}
	served := db
	var proxy *faults.Proxy
	if cfg.latency > 0 {
		u, err := url.Parse(db)
		if err != nil {
			return result{}, err
		}
		if proxy, err = faults.NewProxy(u.Host); err != nil {
			return result{}, err
		}
		defer proxy.Close()
		u.Host = proxy.Addr()
		served = u.String()
	}
	srv, err := binary.Serve(bin, served, append([]string{"--rate-limit", "off"}, cfg.serveArgs...)...)
	if err != nil {
		return result{}, err
	}
	defer srv.Stop()
	c := client{hc: &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: cfg.writers}},
		base: srv.Base, token: a.Token, account: a.AccountID}
	krs, err := setup(c, shape, cfg.depth, cfg.treeSize)
	if err != nil {
		return result{}, fmt.Errorf("setup: %w", err)
	}
	if proxy != nil {
		// Ready before the database moves away, as a load balancer
		// probing it from its start would have found it.
		if err := waitReady(c.hc, srv.Base+"/readyz"); err != nil {
			return result{}, err
		}
		// Warm, as a server that has been serving: its pool's
		// connections open and their statements prepared.
		var warm sync.WaitGroup
		until := time.Now().Add(3 * time.Second)
		for w := range cfg.writers {
			warm.Go(func() {
				for i := 0; time.Now().Before(until); i++ {
					_, _ = c.post("/api/v1/metrics/"+krs[(w+i)%len(krs)]+"/checkin", map[string]any{"actual": i % 100}, nil)
				}
			})
		}
		warm.Wait()
		proxy.Delay(cfg.latency / 2)
	}
	load := loadAvg()
	cpu0, err := binary.CPUTime(srv.Pid())
	if err != nil {
		return result{}, err
	}
	var ok, failed atomic.Int64
	lat := make([][]time.Duration, cfg.writers)
	stop := time.Now().Add(cfg.duration)
	start := time.Now()
	var wg sync.WaitGroup
	var ready readyProbe
	wg.Go(func() { ready.run(c.hc, srv.Base+"/readyz", stop) })
	for w := range cfg.writers {
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
	cpu1, err := binary.CPUTime(srv.Pid())
	if err != nil {
		return result{}, err
	}
	all := slices.Concat(lat...)
	slices.Sort(all)
	r := result{perSecond: float64(ok.Load()) / took.Seconds(), ok: ok.Load(), failed: failed.Load(), load: load,
		readyProbes: ready.probes, readyFailed: ready.failed, readyMax: ready.slowest}
	if r.ok > 0 {
		r.cpu = (cpu1 - cpu0) / time.Duration(r.ok)
	}
	if len(all) > 0 {
		r.p50, r.p99 = all[len(all)/2], all[len(all)*99/100]
	}
	return r, nil
}

// waitReady probes url until it answers 200, for up to 10 s.
func waitReady(hc *http.Client, url string) error {
	for range 100 {
		res, err := hc.Get(url)
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("%s not 200 within 10s", url)
}

// readyProbe probes /readyz every 100 ms.
type readyProbe struct {
	probes, failed int
	slowest        time.Duration
}

// run probes url until stop.
func (p *readyProbe) run(hc *http.Client, url string, stop time.Time) {
	for time.Now().Before(stop) {
		t0 := time.Now()
		res, err := hc.Get(url)
		took := time.Since(t0)
		p.probes++
		p.slowest = max(p.slowest, took)
		if err != nil {
			p.failed++
		} else {
			if res.StatusCode != http.StatusOK {
				p.failed++
			}
			res.Body.Close()
		}
		time.Sleep(100*time.Millisecond - took)
	}
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
