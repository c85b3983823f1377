package sqlstore_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore/sqlstoretest"
)

// TestConcurrentWritersKeepFigures: several stores on one database (as
// several replicas would be: on PostgreSQL each its own pool, on SQLite its
// own connections to the file) and many goroutines on each write to the
// same deep tree at once — check-ins on its key results, goal creates,
// moves and deletes. Afterwards every acknowledged check-in and created goal
// is there, and every goal's figures equal a computation from scratch: no
// write was lost and no ancestor kept stale figures.
func TestConcurrentWritersKeepFigures(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	const stores, writers, writes = 3, 8, 12
	s := e.session(upstream.SessionInput{})
	// A chain of 8 goals, each with two key results, and a few side goals.
	var chain []string
	var metricIDs []string
	parent := ""
	for i := 0; i < 8; i++ {
		g := e.goal(upstream.GoalInput{Name: fmt.Sprint("level ", i), SessionID: s.ID, ParentID: parent,
			AttainmentTypeString: []string{upstream.AverageKR, upstream.AverageChildren, upstream.AverageKRAndChildren}[i%3]})
		chain = append(chain, g.ID)
		parent = g.ID
		for k := 0; k < 2; k++ {
			target := 100.0
			m := e.metric(upstream.MetricInput{Name: fmt.Sprint("kr ", i, k), GoalID: g.ID, Target: &target, TargetOperator: upstream.AtLeast})
			metricIDs = append(metricIDs, m.ID)
		}
	}
	c, err := upstream.MustCaller(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	apis := []*sqlstore.Store{e.store}
	for len(apis) < stores {
		st, err := sqlstore.Open(ctx, e.path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		apis = append(apis, st)
	}

	var mu sync.Mutex
	var checkins, created []string
	var wg sync.WaitGroup
	errs := make(chan error, stores*writers*writes)
	for w := 0; w < stores*writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			st := apis[w%stores]
			wctx := upstream.NewContext(ctx, c)
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			var mine []string // goals this writer created: it moves and deletes only these
			for i := 0; i < writes; i++ {
				switch op := rng.IntN(10); {
				case op < 6:
					ci, err := st.CheckIn(wctx, metricIDs[rng.IntN(len(metricIDs))], upstream.CheckInInput{Actual: ptrTo(float64(rng.IntN(120)))})
					if err != nil {
						errs <- fmt.Errorf("check-in: %w", err)
						continue
					}
					mu.Lock()
					checkins = append(checkins, ci.ID)
					mu.Unlock()
				case op < 8:
					g, err := st.CreateGoal(wctx, upstream.GoalInput{Name: fmt.Sprint("w", w, "-", i), SessionID: s.ID,
						ParentID: chain[rng.IntN(len(chain))]})
					if err != nil {
						errs <- fmt.Errorf("create goal: %w", err)
						continue
					}
					mine = append(mine, g.ID)
					mu.Lock()
					created = append(created, g.ID)
					mu.Unlock()
				case op < 9 && len(mine) > 0:
					to := chain[rng.IntN(len(chain))]
					if _, err := st.UpdateGoal(wctx, mine[rng.IntN(len(mine))], upstream.GoalPatch{ParentID: &to}); err != nil {
						errs <- fmt.Errorf("move goal: %w", err)
					}
				case len(mine) > 1:
					id := mine[len(mine)-1]
					mine = mine[:len(mine)-1]
					if err := st.DeleteGoal(wctx, id); err != nil {
						errs <- fmt.Errorf("delete goal: %w", err)
						continue
					}
					mu.Lock()
					created = slices.DeleteFunc(created, func(x string) bool { return x == id })
					mu.Unlock()
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for _, id := range checkins {
		if _, err := e.store.GetCheckInSnapshot(e.ctx, id); err != nil {
			t.Errorf("acknowledged check-in %s: %v", id, err)
		}
	}
	for _, id := range created {
		if _, err := e.store.GetGoal(e.ctx, id); err != nil {
			t.Errorf("acknowledged goal %s: %v", id, err)
		}
	}
	raw := sqlstoretest.OpenRaw(t, e.path)
	if err := sqlstoretest.CheckFigures(ctx, raw, e.boot.AccountID); err != nil {
		t.Fatal(err)
	}
}

// TestReplicasStartTogether: several stores opening one new PostgreSQL
// database at once (replicas started together) all come up: migrations run
// once, under goose's lock, the others find nothing left to do.
func TestReplicasStartTogether(t *testing.T) {
	if !sqlstoretest.Postgres() {
		t.Skip("SQLite databases are one process's file; this is the PostgreSQL run's")
	}
	dsn := sqlstoretest.PostgresURL(t) // a new schema, never migrated
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := sqlstore.Open(context.Background(), dsn)
			if err != nil {
				errs <- err
				return
			}
			errs <- st.Close()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}
