package main

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"time"
)

// bursts sends bursts of 8, 16 and 32 trees and of 64 goal pages, all
// requests of a burst released at once, on a server doing nothing else,
// rounds times each, and reports what was answered and refused, and the
// server's peak RSS so far (VmHWM: after the bursts of 8 trees, theirs).
// Any refusal fails the criterion: an idle server has the capacity to
// serve a burst.
func (e *env) bursts() []verdict {
	fmt.Printf("\n### Bursts on an idle server (%d rounds each)\n\n| burst | answered (2xx) | 503 | other | slowest (max of rounds) | peak RSS so far |\n|---|---|---|---|---|---|\n", e.c.rounds)
	var vs []verdict
	for _, b := range []struct {
		n    int
		kind string
	}{{8, kindTree}, {16, kindTree}, {32, kindTree}, {64, kindPage}} {
		statuses := map[int]int{}
		var slowest time.Duration
		for round := range e.c.rounds {
			var wg sync.WaitGroup
			var mu sync.Mutex
			start := make(chan struct{})
			for i := range b.n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					rng := rand.New(rand.NewPCG(uint64(round), uint64(i)))
					<-start
					o := e.a.send(b.kind, rng, e.da)
					mu.Lock()
					statuses[o.status]++
					slowest = max(slowest, o.dur)
					mu.Unlock()
				}()
			}
			time.Sleep(100 * time.Millisecond) // every goroutine at the barrier
			close(start)
			wg.Wait()
			time.Sleep(time.Second) // idle again
		}
		other := 0
		for s, n := range statuses {
			if s < 200 || s >= 300 && s != 503 {
				other += n
			}
		}
		ok := statuses[200]
		peak := "?"
		if rss, err := e.srv.PeakRSS(); err == nil {
			peak = fmt.Sprintf("%.0f MiB", float64(rss)/(1<<20))
		}
		fmt.Printf("| %d × %s | %d | %d | %d | %s | %s |\n", b.n, b.kind, ok, statuses[503], other, slowest.Round(time.Millisecond), peak)
		vs = append(vs, check(critBurst, statuses[503] == 0 && other == 0, "%d × %s on an idle server, %d rounds: %d answered, %d refused (503), %d other; slowest %s",
			b.n, b.kind, e.c.rounds, ok, statuses[503], other, slowest.Round(time.Millisecond)))
	}
	return vs
}
