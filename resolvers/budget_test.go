package resolvers_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/okrgate/okrgate/resolvers/infra/limits"
	"github.com/okrgate/okrgate/resolvers/transport/graphqlhttp"
	"github.com/okrgate/okrgate/upstream/infra/instrument"
)

// aliasedGoals is n aliases of a page of goals with their key results,
// check-ins and tasks: the widest answer per byte of query the limits let
// through.
func aliasedGoals(n, first int) string {
	var b strings.Builder
	b.WriteString("{ ")
	for i := range n {
		fmt.Fprintf(&b, "a%d: goals(first: %d) { nodes { id name description attainment "+
			"metrics { id name actual target checkins { id actual confidence } } tasks { id name status } } } ", i, first)
	}
	b.WriteString("}")
	return b.String()
}

// TestBudgetStopsExecution: an accepted query whose answer outgrows the
// node or byte budget stops with one error and no data.
func TestBudgetStopsExecution(t *testing.T) {
	if testing.Short() {
		t.Skip("seeds 1000 objectives")
	}
	data := seeded(t, 1000, 5)
	for _, tc := range []struct {
		name   string
		cfg    graphqlhttp.Config
		code   string
		status int
	}{
		{"nodes", graphqlhttp.Config{MaxNodes: 5_000}, limits.CodeNodeLimit, http.StatusOK},
		{"bytes", graphqlhttp.Config{MaxResponseBytes: 100_000}, limits.CodeResponseTooLarge, http.StatusOK},
		{"server", graphqlhttp.Config{MaxNodesInFlight: 5_000}, limits.CodeServerBusy, http.StatusServiceUnavailable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := serveStore(t, data, tc.cfg)
			r := f.do(t, aliasedGoals(4, 100), nil)
			if r.code() != tc.code || len(r.Errors) != 1 || string(r.Data) != "null" || r.status != tc.status {
				t.Fatalf("HTTP %d, %d errors, first %+v, data %.100s: want one %s and data null", r.status, len(r.Errors), r.Errors[0], r.Data, tc.code)
			}
			t.Log(r.Errors[0].Message)
			// The same query within the default budget answers in full.
			if r := data.do(t, aliasedGoals(4, 100), nil); len(r.Errors) > 0 {
				t.Fatalf("default budget: %+v", r.Errors[0])
			}
		})
	}
}

// serveStore serves the store of f through a second handler configured by
// cfg (sharing the data, not the counters).
func serveStore(t *testing.T, f *fixture, cfg graphqlhttp.Config) *fixture {
	t.Helper()
	g := *f
	g.calls = instrument.NewCounter()
	api := instrument.New(f.store, g.calls)
	cfg.API, cfg.Auth = api, api
	g.srv = httptest.NewServer(graphqlhttp.NewHandler(cfg))
	t.Cleanup(g.srv.Close)
	return &g
}

// TestConcurrentWorstCaseHeap runs four worst-case accepted queries at once
// on 1,000 objectives — 50 aliases (950 fields, the limit is 1,000) of a 100-goal page with key
// results, check-ins and tasks, cost 945,050 of 1,000,000, about 3 MB of
// JSON each — and samples the Go heap while they run. The
// peak of live heap stays under heapBound (docs/graphql.md). Memory, not
// time, is asserted; the answers are read and discarded by the client.
// heapBound is on HeapAlloc (live and not yet collected objects, which
// depends on GOGC), liveBound on the heap found live by the last GC.
func TestConcurrentWorstCaseHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("seeds 1000 objectives")
	}
	// With the fast path the peaks were 252 and 159 MiB (docs/benchmarks/hostile-queries.md);
	// the bounds leave three times that for a loaded machine's GC timing.
	const heapBound, liveBound = 768 << 20, 512 << 20
	// A generous deadline: on a loaded machine the four answers take longer
	// than the default 30 s, and this test is about memory.
	f := serveStore(t, seeded(t, 1000, 5), graphqlhttp.Config{Timeout: 5 * time.Minute})
	q := aliasedGoals(50, 100)
	body, _ := json.Marshal(map[string]any{"query": q})
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)

	var peak, peakLive atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var ms runtime.MemStats
		live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			runtime.ReadMemStats(&ms)
			metrics.Read(live)
			peak.Store(max(peak.Load(), ms.HeapAlloc))
			peakLive.Store(max(peakLive.Load(), live[0].Value.Uint64()))
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	var wg sync.WaitGroup
	sizes := make([]int64, 4)
	errs := make([]string, 4)
	for i := range 4 {
		wg.Go(func() {
			req, _ := http.NewRequest(http.MethodPost, f.srv.URL, bytes.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+f.token)
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				errs[i] = err.Error()
				return
			}
			defer resp.Body.Close()
			// Look at the start of the answer, discard the rest.
			head := make([]byte, 64)
			n, _ := io.ReadFull(resp.Body, head)
			rest, _ := io.Copy(io.Discard, resp.Body)
			sizes[i] = int64(n) + rest
			if !bytes.HasPrefix(head[:n], []byte(`{"data":{"a0":`)) {
				errs[i] = fmt.Sprintf("HTTP %d: %s", resp.StatusCode, head[:n])
			}
		})
	}
	wg.Wait()
	close(stop)
	<-sampled
	for i, e := range errs {
		if e != "" {
			t.Fatalf("query %d: %s", i, e)
		}
	}
	t.Logf("4 answers of %d bytes each; heap before %d MiB, peak %d MiB (bound %d MiB), peak live heap after a GC cycle %d MiB (bound %d MiB)",
		sizes[0], base.HeapAlloc>>20, peak.Load()>>20, heapBound>>20, peakLive.Load()>>20, liveBound>>20)
	if peak.Load() > heapBound || peakLive.Load() > liveBound {
		t.Fatalf("peak heap %d MiB, live %d MiB: the bounds are %d and %d MiB", peak.Load()>>20, peakLive.Load()>>20, heapBound>>20, liveBound>>20)
	}
}
