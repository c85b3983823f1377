package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"time"
)

func sortDurations(d []time.Duration) { slices.Sort(d) }

func (w *world) progress() io.Writer { return os.Stderr }

// report writes the figures as a Markdown table.
func report(out io.Writer, c config, n int, rounds []round, leaks, before, subscribed, after int64) {
	fmt.Fprintf(out, "%d subscribers (%d users x %d connections, half team members, half viewers) on %d replica(s)\n\n",
		n, c.users, c.conns, c.replicas)
	fmt.Fprintln(out, "| check-in | load avg (1 min) | delivered/expected | p50 | p99 | max | server CPU | load tool CPU |")
	fmt.Fprintln(out, "|---|---|---|---|---|---|---|---|")
	for _, r := range rounds {
		fmt.Fprintf(out, "| %d | %s | %d/%d | %s | %s | %s | %s | %s |\n", r.k, r.load, r.delivered, r.expected,
			ms(r.p(0.50)), ms(r.p(0.99)), ms(r.p(1)), ms(r.cpu), ms(r.clientCPU))
	}
	fmt.Fprintf(out, "\nleaks: %d\n", leaks)
	fmt.Fprintf(out, "server RSS: %d MB before subscribing, %d MB subscribed, %d MB after the check-ins: %.1f KB per subscriber (subscribed), %.1f KB (after)\n",
		before>>20, subscribed>>20, after>>20, float64(subscribed-before)/1024/float64(n), float64(after-before)/1024/float64(n))
}

func ms(d time.Duration) string { return fmt.Sprintf("%d ms", d.Milliseconds()) }
