package sqlstore_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore/sqlstoretest"
)

// BenchmarkCheckInTreeVsFlat measures check-in throughput with 16
// concurrent writers on the key results of a flat objective (no parent, no
// children), of a leaf objective of a 301-objective tree (four levels:
// 1 + 6 + 42 + 252), and of the last objective of a chain ten levels deep,
// in the same process on the same database (a SQLite file; with
// OKRGATE_TEST_POSTGRES set, then again on PostgreSQL in the same run). The three workloads take
// turns in twenty slices of b.N/20 check-ins each, so that a change in the
// machine's load during the run weighs on all of them alike. It reports
// each workload's ns per check-in and the trees' throughput as a fraction
// of the flat one ("tree301/flat", "chain10/flat").
//
//	go test ./upstream/backend/sqlstore -run '^$' -bench BenchmarkCheckInTreeVsFlat -benchtime 2000x -count 3
func BenchmarkCheckInTreeVsFlat(b *testing.B) {
	ctx, st := benchAccount(b)
	ss, err := st.CreateSession(ctx, upstream.SessionInput{Title: "Q1", Start: "2026-01-01", End: "2026-03-31"})
	if err != nil {
		b.Fatal(err)
	}
	flat := benchGoal(b, ctx, st, upstream.GoalInput{Name: "flat", SessionID: ss.ID})
	leaf, total := benchTree(b, ctx, st, ss.ID, []int{6, 7, 6})
	deep, _ := benchTree(b, ctx, st, ss.ID, []int{1, 1, 1, 1, 1, 1, 1, 1, 1})
	workloads := []struct {
		name string
		krs  []string
		time time.Duration
		n    int
	}{
		{name: "flat", krs: benchMetrics(b, ctx, st, flat.ID, 16)},
		{name: "tree301", krs: benchMetrics(b, ctx, st, leaf.ID, 16)},
		{name: "chain10", krs: benchMetrics(b, ctx, st, deep.ID, 16)},
	}
	if total != 301 {
		b.Fatalf("tree of %d objectives, want 301", total)
	}
	const writers, slices = 16, 20
	txs0, writes0 := st.GroupedWrites()
	b.ResetTimer()
	for slice := range slices {
		for w := range workloads {
			wl := &workloads[w]
			n := b.N / slices
			if slice == 0 {
				n += b.N % slices
			}
			var next atomic.Int64
			var wg sync.WaitGroup
			start := time.Now()
			for range writers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						i := next.Add(1)
						if i > int64(n) {
							return
						}
						actual := float64(i % 100)
						if _, err := st.CheckIn(ctx, wl.krs[int(i)%len(wl.krs)], upstream.CheckInInput{Actual: &actual}); err != nil {
							b.Error(err)
							return
						}
					}
				}()
			}
			wg.Wait()
			wl.time += time.Since(start)
			wl.n += n
		}
	}
	b.StopTimer()
	if txs, writes := st.GroupedWrites(); txs > txs0 {
		b.ReportMetric(float64(writes-writes0)/float64(txs-txs0), "writes/tx") // the mean group (groupcommit.go)
	}
	ns := func(i int) float64 { return float64(workloads[i].time) / float64(workloads[i].n) }
	for i, wl := range workloads {
		b.ReportMetric(ns(i), wl.name+"_ns/checkin")
		if i > 0 {
			b.ReportMetric(ns(0)/ns(i), wl.name+"/flat")
		}
	}
	b.ReportMetric(0, "ns/op") // the per-workload figures above are the result
}

func benchAccount(b *testing.B) (context.Context, *sqlstore.Store) {
	b.Helper()
	st, err := sqlstore.Open(context.Background(), sqlstoretest.DSN(b))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	boot, err := st.Bootstrap(context.Background(), sqlstore.BootstrapInput{AccountName: "Bench", Email: "b@example.test"})
	if err != nil {
		b.Fatal(err)
	}
	c, err := st.Authenticate(context.Background(), boot.Token)
	if err != nil {
		b.Fatal(err)
	}
	return upstream.NewContext(context.Background(), c), st
}

func benchGoal(b *testing.B, ctx context.Context, st *sqlstore.Store, in upstream.GoalInput) upstream.Goal {
	b.Helper()
	g, err := st.CreateGoal(ctx, in)
	if err != nil {
		b.Fatal(err)
	}
	return g
}

func benchMetrics(b *testing.B, ctx context.Context, st *sqlstore.Store, goal string, n int) []string {
	b.Helper()
	var ids []string
	for i := range n {
		m, err := st.CreateMetric(ctx, upstream.MetricInput{Name: fmt.Sprint("kr", i), GoalID: goal, Target: ptrTo(100.0)})
		if err != nil {
			b.Fatal(err)
		}
		ids = append(ids, m.ID)
	}
	return ids
}

// benchTree builds a tree where every objective of level i has fanout[i]
// children, and every objective one key result, cycling through the
// attainment modes. It returns the last leaf and the number of objectives.
func benchTree(b *testing.B, ctx context.Context, st *sqlstore.Store, session string, fanout []int) (upstream.Goal, int) {
	b.Helper()
	modes := []string{upstream.AverageKR, upstream.AverageChildren, upstream.AverageKRAndChildren}
	total := 0
	var last upstream.Goal
	var add func(parent string, level int)
	add = func(parent string, level int) {
		g := benchGoal(b, ctx, st, upstream.GoalInput{Name: fmt.Sprint("g", total), SessionID: session, ParentID: parent, AttainmentTypeString: modes[total%3]})
		benchMetrics(b, ctx, st, g.ID, 1)
		total++
		last = g
		if level < len(fanout) {
			for range fanout[level] {
				add(g.ID, level+1)
			}
		}
	}
	add("", 0)
	return last, total
}
