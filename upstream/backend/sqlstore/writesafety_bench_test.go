package sqlstore

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore/internal/testdb"
)

// BenchmarkPostgresWriteSafety measures the two ways to keep concurrent
// writers correct on PostgreSQL against each other in one run, on one
// database: "lock" (READ COMMITTED, each write locks its account's row
// first: lockAccount) and "serializable" (SERIALIZABLE transactions retried
// on SQLSTATE 40001/40P01); and "group", the lock with group commit
// (groupcommit.go), which reports the writes per transaction. Two workloads of 16 concurrent writers, each
// check-ins on the key results of the last goal of a chain ten levels deep:
// "same" puts every writer on one chain (every write touches the same
// ancestors), "apart" gives each writer a chain of its own in the same
// account. The modes and workloads take turns in ten slices so that the
// machine's load weighs on all alike. It reports ns per check-in and
// retries per check-in for each pair.
//
//	OKRGATE_TEST_POSTGRES=postgres://... go test ./upstream/backend/sqlstore -run '^$' -bench BenchmarkPostgresWriteSafety -benchtime 1600x -count 3
func BenchmarkPostgresWriteSafety(b *testing.B) {
	if !testdb.Postgres() {
		b.Skip("measures PostgreSQL; runs in the PostgreSQL pass (" + testdb.EnvPostgres + ")")
	}
	ctx := context.Background()
	s, err := Open(ctx, testdb.Schema(b))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	boot, err := s.Bootstrap(ctx, BootstrapInput{AccountName: "Bench", Email: "b@example.test"})
	if err != nil {
		b.Fatal(err)
	}
	c, err := s.Authenticate(ctx, boot.Token)
	if err != nil {
		b.Fatal(err)
	}
	actx := upstream.NewContext(ctx, c)
	ss, err := s.CreateSession(actx, upstream.SessionInput{Title: "Q1", Start: "2026-01-01", End: "2026-03-31"})
	if err != nil {
		b.Fatal(err)
	}
	const writers, slices = 16, 10
	chain := func() []string { // the key results of the last goal of a new 10-level chain
		parent := ""
		for i := range 10 {
			g, err := s.CreateGoal(actx, upstream.GoalInput{Name: fmt.Sprint("level ", i), SessionID: ss.ID, ParentID: parent})
			if err != nil {
				b.Fatal(err)
			}
			parent = g.ID
		}
		var krs []string
		for i := range 4 {
			target := 100.0
			m, err := s.CreateMetric(actx, upstream.MetricInput{Name: fmt.Sprint("kr", i), GoalID: parent, Target: &target})
			if err != nil {
				b.Fatal(err)
			}
			krs = append(krs, m.ID)
		}
		return krs
	}
	same := chain()
	apart := make([][]string, writers)
	for w := range apart {
		apart[w] = chain()
	}
	type run struct {
		name         string
		serializable bool
		group        bool // group commit (groupcommit.go); lock alone otherwise
		krs          func(w int) []string
		time         time.Duration
		n            int
		retries      int64
		txs, writes  int64 // group transactions and the writes they took
	}
	runs := []*run{
		{name: "lock_same", krs: func(int) []string { return same }},
		{name: "serializable_same", serializable: true, krs: func(int) []string { return same }},
		{name: "lock_apart", krs: func(w int) []string { return apart[w] }},
		{name: "serializable_apart", serializable: true, krs: func(w int) []string { return apart[w] }},
		{name: "group_same", group: true, krs: func(int) []string { return same }},
		{name: "group_apart", group: true, krs: func(w int) []string { return apart[w] }},
	}
	b.ResetTimer()
	for slice := range slices {
		for _, r := range runs {
			n := b.N / slices
			if slice == 0 {
				n += b.N % slices
			}
			s.pg.serializable, s.pg.noGroups = r.serializable, !r.group // no write is running
			before, txs0, writes0 := s.pg.retries.Load(), s.groups.txs.Load(), s.groups.writes.Load()
			var next atomic.Int64
			var wg sync.WaitGroup
			start := time.Now()
			for w := range writers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					krs := r.krs(w)
					for {
						i := next.Add(1)
						if i > int64(n) {
							return
						}
						actual := float64(i % 100)
						if _, err := s.CheckIn(actx, krs[int(i)%len(krs)], upstream.CheckInInput{Actual: &actual}); err != nil {
							b.Error(err)
							return
						}
					}
				}()
			}
			wg.Wait()
			r.time += time.Since(start)
			r.n += n
			r.retries += s.pg.retries.Load() - before
			r.txs += s.groups.txs.Load() - txs0
			r.writes += s.groups.writes.Load() - writes0
		}
	}
	b.StopTimer()
	for _, r := range runs {
		b.ReportMetric(float64(r.time)/float64(r.n), r.name+"_ns/checkin")
		if r.group {
			b.ReportMetric(float64(r.writes)/float64(r.txs), r.name+"_writes/tx")
		} else {
			b.ReportMetric(float64(r.retries)/float64(r.n), r.name+"_retries/checkin")
		}
	}
	b.ReportMetric(0, "ns/op")
}
