package main

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// verdict is the outcome of one criterion of issue 21's Must-show list for
// one binary's run, printed as a PASS or FAIL line.
type verdict struct {
	criterion string
	pass      bool
	detail    string
	// value is the criterion's figure where one sums up runs (the
	// fairness ratio), for the summary over rounds; 0 otherwise.
	value float64
}

func check(criterion string, pass bool, format string, args ...any) verdict {
	return verdict{criterion: criterion, pass: pass, detail: fmt.Sprintf(format, args...)}
}

func (v verdict) String() string {
	word := "PASS"
	if !v.pass {
		word = "FAIL"
	}
	return fmt.Sprintf("%s %s: %s", word, v.criterion, v.detail)
}

// Criteria, as the summary names them.
const (
	critBurst      = "burst"
	critStatuses   = "mix statuses"
	critThroughput = "mix throughput"
	critMixP99     = "mix answered p99"
	critHealthz    = "healthz p99"
	critFair       = "fairness"
)

// Bounds of the criteria.
const (
	minThroughput = 0.8             // × the few clients' answered requests/s
	maxAnsweredQ  = 2 * time.Second // p99 of the many clients' answered requests
	maxFairRatio  = 2.0             // × the second account's idle p99
)

// binaryRun is one run of a binary: its verdicts.
type binaryRun struct {
	bin      string
	verdicts []verdict
}

// summarize prints, per binary, how many of its runs passed each criterion
// and the fairness ratio's min / median / max over its runs.
func summarize(runs []binaryRun) {
	var bins []string
	byBin := map[string][]binaryRun{}
	for _, r := range runs {
		if _, ok := byBin[r.bin]; !ok {
			bins = append(bins, r.bin)
		}
		byBin[r.bin] = append(byBin[r.bin], r)
	}
	fmt.Printf("\n## Summary (load average %s)\n\n", loadAverage())
	for _, bin := range bins {
		passed, seen := map[string]int{}, map[string]int{}
		var order []string
		var ratios []float64
		for _, r := range byBin[bin] {
			for _, v := range r.verdicts {
				if seen[v.criterion] == 0 && !slices.Contains(order, v.criterion) {
					order = append(order, v.criterion)
				}
				seen[v.criterion]++
				if v.pass {
					passed[v.criterion]++
				}
				if v.criterion == critFair {
					ratios = append(ratios, v.value)
				}
			}
		}
		var parts []string
		for _, c := range order {
			parts = append(parts, fmt.Sprintf("%s %d/%d", c, passed[c], seen[c]))
		}
		fmt.Printf("%s (%d runs): passed %s\n", bin, len(byBin[bin]), strings.Join(parts, ", "))
		if len(ratios) > 0 {
			slices.Sort(ratios)
			fmt.Printf("%s: fairness ratio min %.2f× / median %.2f× / max %.2f× over %d runs: %s\n", bin,
				ratios[0], median(ratios), ratios[len(ratios)-1], len(ratios), formatRatios(ratios))
		}
	}
}

func median(xs []float64) float64 {
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

func formatRatios(xs []float64) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprintf("%.2f×", x)
	}
	return strings.Join(s, " ")
}
