package seed_test

import (
	"testing"

	"github.com/okrgate/okrgate/upstream/seed"
	"github.com/okrgate/okrgate/upstream/sqlstore/sqlstoretest"
)

// TestSeedRoundTrips: seeding sends its writes together. On PostgreSQL a
// write of a Bulk batch whose facts the batch holds waits for no round trip
// of its own (its statements go with the batch's next one), so 400
// objectives with their ~2,900 writes take fewer than one round trip per two
// objectives (before: about nine per objective).
func TestSeedRoundTrips(t *testing.T) {
	st, ctx := account(t)
	n0, r0 := st.QueryCount(), st.RoundTripCount()
	sum, err := seed.Synthetic(ctx, st, seed.Options{Goals: 400, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	n, r := st.QueryCount()-n0, st.RoundTripCount()-r0
	writes := sum.Users + len(sum.Sessions) + sum.Goals + sum.Metrics + sum.CheckIns + sum.Tasks
	t.Logf("%d writes: %d statements, %d round trips", writes, n, r)
	if sqlstoretest.Postgres() && r > int64(sum.Goals/2) {
		t.Errorf("%d round trips to PostgreSQL for %d objectives, want at most %d", r, sum.Goals, sum.Goals/2)
	}
}
