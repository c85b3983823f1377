package faults

import (
	"net/http"
	"sync"
	"testing"
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
