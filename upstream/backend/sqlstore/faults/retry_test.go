package faults

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
)

// TestPostgresDeadPooledConnections: every connection the pool holds is
// closed under it (what a restart of PostgreSQL or pg_terminate_backend
// does), and the database takes new ones at once. Writes sent right after,
// on connections the pool still believes open, are not failed: each is run
// again on a new connection (nothing was committed on the dead one) and
// stored once.
func TestPostgresDeadPooledConnections(t *testing.T) {
	st, p := proxied(t)
	e := newEnv(t, st)
	acked := map[int]bool{}
	for round := range 3 {
		// Several connections in the pool, used within the last second
		// (the pool checks a connection idle for longer before lending it).
		var wg sync.WaitGroup
		for i := range 4 {
			wg.Go(func() { _, _ = e.do("GET", "/api/v1/metrics/"+e.metric, nil, "") })
			_ = i
		}
		wg.Wait()
		p.Cut()
		p.Heal()
		answers := make([]answer, 4)
		errs := make([]error, 4)
		for i := range answers {
			wg.Go(func() { answers[i], errs[i] = e.checkIn(100*(round+1) + i) })
		}
		wg.Wait()
		for i, a := range answers {
			if errs[i] != nil {
				t.Fatal(errs[i])
			}
			if a.status != http.StatusCreated {
				t.Errorf("round %d: check-in %d after the connections were closed: %d %s", round, i, a.status, a.body)
				continue
			}
			acked[100*(round+1)+i] = true
		}
	}
	stored := e.stored()
	for v := range acked {
		if stored[v] != 1 {
			t.Errorf("acknowledged check-in %d stored %d times", v, stored[v])
		}
	}
}

// TestPostgresWriteRerun: a check-in's connection is closed right after
// the account's lock went out in its transaction, before its COMMIT: the
// server rolled it back, and the store runs it once more on another
// connection. The client gets 201 and the check-in is stored once; the
// rerun is counted as connection_lost.
func TestPostgresWriteRerun(t *testing.T) {
	st, p := proxied(t)
	e := newEnv(t, st)
	before := writeRetries(t, st)
	for v := 1; v <= 3; v++ {
		p.CutAfter([]byte("FOR UPDATE")) // the account's lock, the transaction's first statement
		a, err := e.checkIn(v)
		if err != nil {
			t.Fatal(err)
		}
		if a.status != http.StatusCreated {
			t.Fatalf("check-in %d whose connection broke before its COMMIT: %d %s, want 201 (run again)", v, a.status, a.body)
		}
	}
	p.Heal()
	after := writeRetries(t, st)
	if n := after["connection_lost"] - before["connection_lost"]; n != 3 {
		t.Errorf("%v write reruns counted, want 3", n)
	}
	stored := e.stored()
	for v := 1; v <= 3; v++ {
		if stored[v] != 1 {
			t.Errorf("check-in %d stored %d times, want once", v, stored[v])
		}
	}
}

// TestPostgresDeadlockRetried: a check-in deadlocks with another session
// (which holds the key result's row and then asks for the account's lock
// the check-in holds); PostgreSQL aborts the check-in's transaction
// (40P01), the first to wait, and the store runs it again after a pause,
// once the other session is done. The client gets 201, the check-in is
// stored once, and the retry is counted as contention. (On a busy
// machine the check-in may have run its deadlock check before the other
// session asked, which then is the victim: that attempt is let go and
// another made.)
func TestPostgresDeadlockRetried(t *testing.T) {
	st, _, direct := proxiedDirect(t)
	e := newEnv(t, st)
	ctx := context.Background()
	other, err := pgx.Connect(ctx, direct)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close(ctx)
	before := writeRetries(t, st)
	victim := false
	for v := 1; v <= 5 && !victim; v++ {
		victim = deadlock(t, e, other, v)
		if n := e.stored()[v]; n != 1 {
			t.Errorf("check-in %d stored %d times, want once", v, n)
		}
	}
	if !victim {
		t.Fatal("the check-in was never the deadlock's victim in 5 attempts")
	}
	after := writeRetries(t, st)
	if n := after["contention"] - before["contention"]; n < 1 {
		t.Errorf("%v retries after contention counted, want at least 1", n)
	}
}

// deadlock makes check-in v and the session other deadlock, and reports
// whether the check-in was the victim; either way the check-in must be
// answered 201.
func deadlock(t *testing.T, e *env, other *pgx.Conn, v int) bool {
	t.Helper()
	ctx := context.Background()
	tx, err := other.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SELECT 1 FROM metrics WHERE id = $1 FOR UPDATE", e.metric); err != nil {
		t.Fatal(err)
	}
	done := make(chan answer, 1)
	go func() {
		a, err := e.checkIn(v)
		if err != nil {
			a = answer{status: -1, body: []byte(err.Error())}
		}
		done <- a
	}()
	// The check-in holds the account's lock and waits for the key
	// result's row: this session blocks it.
	blocked := false
	for range 3000 {
		var n int
		if err := other.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE pg_backend_pid() = ANY(pg_blocking_pids(pid))`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if blocked = n > 0; blocked {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !blocked {
		t.Fatal("the check-in never waited for the key result's row")
	}
	// Now a cycle: this session asks for the account's lock. PostgreSQL
	// aborts the check-in, which has waited longer (deadlock_timeout).
	_, err = tx.Exec(ctx, "SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE", e.acct)
	victim := err == nil
	if victim {
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	} else {
		t.Logf("attempt %d: this session was the deadlock's victim (%v)", v, err)
		tx.Rollback(ctx)
	}
	a := <-done
	if a.status != http.StatusCreated {
		t.Fatalf("check-in %d (deadlock's victim: %v): %d %s, want 201", v, victim, a.status, a.body)
	}
	return victim
}

// writeRetries returns okrgate_db_write_retries_total by reason.
func writeRetries(t *testing.T, st *sqlstore.Store) map[string]float64 {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(st.PoolCollector()); err != nil {
		t.Fatal(err)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, mf := range mfs {
		if mf.GetName() != "okrgate_db_write_retries_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "reason" {
					out[l.GetValue()] = m.GetCounter().GetValue()
				}
			}
		}
	}
	return out
}
