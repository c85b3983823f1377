package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// loop runs the clients in a closed loop over the mix until the deadline:
// each sends a request, waits for its answer, and sends the next; after a
// 429 or 503 it first waits as Retry-After asks, plus up to half as much
// again of jitter (1 s when the header is missing).
func loop(clients []client, d dataset, deadline time.Time, seed uint64, res *results) {
	var wg sync.WaitGroup
	for i, cl := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, uint64(i)))
			for time.Now().Before(deadline) {
				o := cl.send(mixed(rng), rng, d)
				res.add(o)
				if o.status == 429 || o.status == 503 {
					wait := o.retryAfter
					if wait <= 0 {
						wait = time.Second
					}
					time.Sleep(wait + time.Duration(rng.Int64N(int64(wait/2)+1)))
				}
			}
		}()
	}
	wg.Wait()
}

// probed runs f while a separate process asks /healthz every 20 ms, and
// adds the probe's answers to res.
func (e *env) probed(res *results, f func()) error {
	prober := exec.Command(e.probe, "probe", e.base, e.c.duration.String())
	prober.Stderr = os.Stderr
	out, err := prober.StdoutPipe()
	if err != nil {
		return err
	}
	if err := prober.Start(); err != nil {
		return fmt.Errorf("start the /healthz prober: %w", err)
	}
	f()
	var probes []probeResult
	if err := json.NewDecoder(out).Decode(&probes); err != nil {
		return fmt.Errorf("read the /healthz prober: %w", err)
	}
	if err := prober.Wait(); err != nil {
		return fmt.Errorf("the /healthz prober: %w", err)
	}
	for _, p := range probes {
		res.add(outcome{kind: kindHealth, status: p.Status, dur: p.Duration})
	}
	return nil
}

// mix runs the few clients, then the many, each for the duration, and
// compares the many's answered requests per second with the few's.
func (e *env) mix() ([]verdict, error) {
	var problems []string
	var vs []verdict
	var peak float64
	clients, err := e.a.tokens(max(e.c.clients, e.c.peakClients))
	if err != nil {
		return nil, err
	}
	for i, n := range []int{e.c.peakClients, e.c.clients} {
		res := newResults()
		err := e.probed(res, func() { loop(clients[:n], e.da, time.Now().Add(e.c.duration), uint64(i), res) })
		if err != nil {
			return nil, err
		}
		fmt.Printf("\n### Mix: %d closed-loop clients honouring Retry-After, %s (load average %s after)\n\n", n, e.c.duration, loadAverage())
		problems = append(problems, res.table(e.c)...)
		rate := res.answeredPerSecond(e.c.duration)
		if i == 0 {
			peak = rate
			fmt.Printf("\npeak: %.0f answered requests/s\n", rate)
			continue
		}
		p99 := res.answeredPct(0.99)
		fmt.Printf("\n%.0f answered requests/s = %.2f × the peak of %d clients; %.0f%% of requests refused (429/503); answered p99 %s\n",
			rate, rate/peak, e.c.peakClients, 100*res.refusedShare(), p99.Round(time.Millisecond))
		vs = append(vs,
			check(critStatuses, len(problems) == 0, "%d and %d closed-loop clients: no status but 2xx, 429 and 503 with Retry-After%s", e.c.peakClients, n, listed(problems)),
			check(critThroughput, rate >= minThroughput*peak, "%.0f answered requests/s with %d clients = %.2f× the %.0f of %d clients (at least %.1f×)", rate, n, rate/peak, peak, e.c.peakClients, minThroughput),
			check(critMixP99, p99 <= maxAnsweredQ, "answered p99 %s with %d clients (at most %s)", p99.Round(time.Millisecond), n, maxAnsweredQ),
			check(critHealthz, res.healthPct(0.99) < e.c.healthP99, "/healthz p99 %s (max %s) during the %d clients (under %s)",
				res.healthPct(0.99).Round(100*time.Microsecond), res.healthPct(1).Round(100*time.Microsecond), n, e.c.healthP99))
	}
	return vs, nil
}

// listed is ": a; b" for problems, "" for none.
func listed(problems []string) string {
	if len(problems) == 0 {
		return ""
	}
	return "; but " + strings.Join(problems, "; ")
}

// fair measures the second account's few clients alone, then while the
// first account's many clients flood the server.
func (e *env) fair() ([]verdict, error) {
	flood, err := e.a.tokens(e.c.clients)
	if err != nil {
		return nil, err
	}
	own, err := e.b.tokens(e.c.fairClients)
	if err != nil {
		return nil, err
	}
	alone := newResults()
	if err := e.probed(alone, func() { loop(own, e.db, time.Now().Add(e.c.duration), 7, alone) }); err != nil {
		return nil, err
	}
	shared, flooding := newResults(), newResults()
	err = e.probed(shared, func() {
		deadline := time.Now().Add(e.c.duration)
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { defer wg.Done(); loop(flood, e.da, deadline, 8, flooding) }()
		loop(own, e.db, deadline, 9, shared)
		wg.Wait()
	})
	if err != nil {
		return nil, err
	}
	fmt.Printf("\n### Fairness: %d clients of a second account, alone and while %d clients of the first flood (load average %s after)\n\n", e.c.fairClients, e.c.clients, loadAverage())
	fmt.Println("Alone:")
	problems := alone.table(e.c)
	fmt.Println("\nDuring the flood (the second account's requests):")
	problems = append(problems, shared.table(e.c)...)
	fmt.Println("\nThe flooding account's requests:")
	problems = append(problems, flooding.table(e.c)...)
	a, s := alone.answeredPct(0.99), shared.answeredPct(0.99)
	ratio := float64(s) / float64(max(a, 1))
	nAlone, _ := alone.answered()
	nShared, _ := shared.answered()
	fmt.Printf("\nsecond account: answered p99 %s alone, %s during the flood (%.2f×); %.0f%% of its requests refused during the flood; %d answered alone, %d during the flood (%.0f%%)\n",
		a.Round(time.Millisecond), s.Round(time.Millisecond), ratio, 100*shared.refusedShare(), nAlone, nShared, 100*float64(nShared)/float64(max(nAlone, 1)))
	if m := e.admissionMetrics(); m != "" {
		fmt.Printf("\nAdmission metrics after the flood:\n\n```\n%s```\n", m)
	}
	v := check(critFair, ratio <= maxFairRatio && len(problems) == 0,
		"second account's answered p99 %s alone, %s while %d clients of the first flood = %.2f× (at most %.1f×); %.0f%% of its requests refused%s",
		a.Round(time.Millisecond), s.Round(time.Millisecond), e.c.clients, ratio, maxFairRatio, 100*shared.refusedShare(), listed(problems))
	v.value = ratio
	return []verdict{v}, nil
}
