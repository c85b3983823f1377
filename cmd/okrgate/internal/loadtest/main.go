// Command loadtest drives built okrgate binaries on loopback, for a bounded
// time, and reports how the server's admission control treats them:
//
//   - burst: bursts of 8, 16 and 32 concurrent GraphQL session trees and of
//     64 concurrent REST goal listings on an otherwise idle server, a few
//     rounds each: how many are answered and how many refused;
//   - mix: closed-loop clients over a read/write mix (REST goal pages and
//     single goals, GraphQL session trees, check-ins) that back off as
//     Retry-After asks, first a few clients (the server's peak throughput),
//     then many: answered requests per second against that peak, latency
//     percentiles of the answered ones, statuses, while a separate process
//     asks /healthz every 20 ms;
//   - fair: a second account's few clients alone, then while the first
//     account floods the server with many: the second account's latency
//     percentiles in both;
//   - monday (alone, monday.go): viewers of two visibility classes read one
//     large tree — cold, again, 32 at once, 50 reloading under a check-in a
//     second — with stale reads and leaks counted; --postgres runs it on
//     two servers over one PostgreSQL database.
//
// Each criterion of the Must-show list of admission control (issue 21) is
// printed as a PASS or FAIL line: every burst answered; with 200 clients no
// status but 2xx, 429 and 503 with Retry-After, answered requests/s at
// least 0.8× the few clients', answered p99 at most 2 s, /healthz p99 under
// --healthz-p99; the second account's answered p99 during the flood at most
// 2× its p99 alone. It exits 1 if any fails, or on a connection error. Give
// several binaries (--bin old,new,old,new) to compare them in one run, each
// run on a fresh database of its own (okrgate bootstrap and okrgate seed, two
// accounts); a binary named more than once runs as many rounds, and the
// summary gives each criterion's passes and the fairness ratio's min,
// median and max per binary. Timings are measured here, never asserted in a
// go test; docs/benchmarks/admission.md has its figures.
//
//	go build -o /tmp/okrgate ./cmd/okrgate
//	go run ./cmd/okrgate/internal/loadtest --bin /tmp/okrgate --scenario all
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
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
	bins        []string
	scenarios   map[string]bool
	clients     int
	peakClients int
	fairClients int
	duration    time.Duration
	goals       int
	rounds      int
	serveFlags  string
	healthMax   time.Duration
	healthP99   time.Duration
	// postgres, for the monday scenario: a PostgreSQL URL beside which
	// each binary gets a database of its own, served by two servers.
	postgres string
}

func run() error {
	var c config
	var bins, scenario string
	flag.StringVar(&bins, "bin", "", "the okrgate `binaries` to test, comma-separated (required)")
	flag.StringVar(&scenario, "scenario", "mix", "what to run: burst, mix, fair, or all, comma-separated; or monday (monday.go), alone")
	flag.IntVar(&c.clients, "clients", 200, "closed-loop clients of the mix, and of the flooding account in fair")
	flag.IntVar(&c.peakClients, "peak-clients", 4, "clients of the mix's first phase, which measures peak throughput")
	flag.IntVar(&c.fairClients, "fair-clients", 4, "clients of the second account in fair")
	flag.DurationVar(&c.duration, "duration", 20*time.Second, "how long each phase runs (at most 60s)")
	flag.IntVar(&c.goals, "goals", 1000, "objectives to seed in each account")
	flag.IntVar(&c.rounds, "rounds", 3, "rounds of each burst")
	flag.StringVar(&c.serveFlags, "serve-flags", "--rate-limit off", "extra flags for okrgate serve (the clients share one loopback address, and the per-token budget would cap a few clients' throughput)")
	flag.DurationVar(&c.healthMax, "healthz-max", 0, "the slowest /healthz answer allowed in any phase (0: no bound)")
	flag.DurationVar(&c.healthP99, "healthz-p99", 100*time.Millisecond, "the /healthz p99 under which the 200-client mix passes")
	flag.StringVar(&c.postgres, "postgres", "", "monday: run on a new database beside this PostgreSQL `URL`, with two servers (reads on one, writes on the other), instead of SQLite")
	flag.Parse()
	if bins == "" {
		return errors.New("--bin is required")
	}
	if c.duration > 60*time.Second {
		return errors.New("--duration is at most 60s")
	}
	c.bins = strings.Split(bins, ",")
	c.scenarios = map[string]bool{}
	for _, s := range strings.Split(scenario, ",") {
		switch s {
		case "all":
			c.scenarios["burst"], c.scenarios["mix"], c.scenarios["fair"] = true, true, true
		case "burst", "mix", "fair", "monday":
			c.scenarios[s] = true
		default:
			return fmt.Errorf("unknown scenario %q", s)
		}
	}
	var failed []string
	if c.scenarios["monday"] {
		var rs []mondayResult
		for _, bin := range c.bins {
			r, err := runMonday(c, bin)
			if err != nil {
				return fmt.Errorf("%s: %w", bin, err)
			}
			rs = append(rs, r)
		}
		for _, v := range mondayReport(c, rs) {
			fmt.Println(v)
			if !v.pass {
				failed = append(failed, v.String())
			}
		}
		if len(failed) > 0 {
			return fmt.Errorf("failed:\n  %s", strings.Join(failed, "\n  "))
		}
		return nil
	}
	var runs []binaryRun
	for _, bin := range c.bins {
		vs, err := runBinary(c, bin)
		if err != nil {
			failed = append(failed, fmt.Sprintf("%s: %v", bin, err))
		}
		for _, v := range vs {
			if !v.pass {
				failed = append(failed, fmt.Sprintf("%s: %s", bin, v))
			}
		}
		runs = append(runs, binaryRun{bin: bin, verdicts: vs})
	}
	summarize(runs)
	if len(failed) > 0 {
		return fmt.Errorf("failed:\n  %s", strings.Join(failed, "\n  "))
	}
	return nil
}

// env is one binary's server with its two seeded accounts.
type env struct {
	c     config
	base  string
	a, b  client // admins of the two accounts
	da    dataset
	db    dataset
	hc    *http.Client
	probe string // this program, for the /healthz prober
	// metricsToken serves /metrics on the main address (--metrics-token).
	metricsToken string
	srv          *binary.Server
}

// runBinary runs the scenarios on a fresh server of bin and returns the
// verdicts, printed as they come.
func runBinary(c config, bin string) ([]verdict, error) {
	vs, err := scenarios(c, bin)
	fmt.Println()
	for _, v := range vs {
		fmt.Println(v)
	}
	return vs, err
}

func scenarios(c config, bin string) ([]verdict, error) {
	dir, err := os.MkdirTemp("", "okrgate-loadtest")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	db := filepath.Join(dir, "load.db")
	fmt.Fprintf(os.Stderr, "%s: seeding 2 accounts of %d objectives...\n", bin, c.goals)
	acctA, err := binary.Seed(bin, db, c.goals, 5, nil)
	if err != nil {
		return nil, err
	}
	acctB, err := seedSecond(bin, db, c.goals)
	if err != nil {
		return nil, err
	}
	metricsToken := strconv.FormatInt(time.Now().UnixNano(), 36)
	srv, err := binary.Serve(bin, db, append(strings.Fields(c.serveFlags), "--metrics-token", metricsToken)...)
	if err != nil {
		return nil, err
	}
	defer srv.Stop()
	hc := &http.Client{Transport: &http.Transport{MaxIdleConns: 4 * c.clients, MaxIdleConnsPerHost: 4 * c.clients}, Timeout: 60 * time.Second}
	e := &env{c: c, base: srv.Base, hc: hc, probe: os.Args[0], metricsToken: metricsToken, srv: srv,
		a: client{hc: hc, base: srv.Base, token: acctA.Token, acct: acctA.AccountID},
		b: client{hc: hc, base: srv.Base, token: acctB.Token, acct: acctB.AccountID}}
	if e.da, err = e.a.dataset(); err != nil {
		return nil, err
	}
	if e.db, err = e.b.dataset(); err != nil {
		return nil, err
	}
	fmt.Printf("\n## %s (serve %s; %d objectives per account; load average %s)\n", bin, c.serveFlags, c.goals, loadAverage())
	var vs []verdict
	if c.scenarios["burst"] {
		vs = append(vs, e.bursts()...)
	}
	if c.scenarios["mix"] {
		v, err := e.mix()
		vs = append(vs, v...)
		if err != nil {
			return vs, err
		}
	}
	if c.scenarios["fair"] {
		v, err := e.fair()
		vs = append(vs, v...)
		if err != nil {
			return vs, err
		}
	}
	return vs, nil
}

// admissionMetrics is the server's okrgate_admission_* series but the
// histogram buckets, "" if /metrics cannot be read.
func (e *env) admissionMetrics() string {
	req, err := http.NewRequest("GET", e.base+"/metrics", nil)
	if err != nil {
		return ""
	}
	req.Header.Set("Authorization", "Bearer "+e.metricsToken)
	res, err := e.hc.Do(req)
	if err != nil {
		return ""
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		return ""
	}
	var b strings.Builder
	for _, line := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(line, "okrgate_admission_") && !strings.Contains(line, "_bucket{") {
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// seedSecond adds a second account to db with goals objectives.
func seedSecond(bin, db string, goals int) (binary.Account, error) {
	var a binary.Account
	out, err := exec.Command(bin, "bootstrap", "--db", db, "--account", "Other", "--email", "other@bench.test", "--json").Output()
	if err != nil {
		return a, fmt.Errorf("bootstrap a second account: %w", err)
	}
	if err := jsonUnmarshal(out, &a); err != nil {
		return a, err
	}
	cmd := exec.Command(bin, "seed", "--db", db, "--account", a.AccountID, "--goals", strconv.Itoa(goals), "--seed", "6")
	if out, err := cmd.Output(); err != nil {
		return a, fmt.Errorf("seed the second account: %w: %s", err, out)
	}
	return a, nil
}

// loadAverage is the machine's 1-minute load average, as uptime prints it.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Fields(string(b))[0]
}
