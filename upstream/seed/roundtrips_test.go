package seed_test

import (
	"testing"

	"github.com/okrgate/okrgate/upstream/backend/sqlstore/sqlstoretest"
	"github.com/okrgate/okrgate/upstream/seed"
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

// TestSeedAnalyzes: on PostgreSQL, once the writes of Bulk batches
// outnumber those before the store's last ANALYZE (from 1,000 on), it
// refreshes the statistics of the tables they fill, so that the write
// path's prepared statements are planned for the tables' size
// (docs/decisions/writes.md, "Seeding in batches"). A seed of 50 objectives
// (about 360 batch writes) does not; 200 more (about 1,450) do, once.
func TestSeedAnalyzes(t *testing.T) {
	if !sqlstoretest.Postgres() {
		t.Skip("statistics are PostgreSQL's; set OKRGATE_TEST_POSTGRES")
	}
	dsn := sqlstoretest.DSN(t)
	st, ctx := accountAt(t, dsn)
	raw := sqlstoretest.OpenRaw(t, dsn)
	analyzed := func() int {
		t.Helper()
		var n int
		if err := raw.QueryRowContext(ctx, `SELECT analyze_count FROM pg_stat_user_tables
			WHERE schemaname = current_schema() AND relname = 'goals'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	n0 := analyzed() // a schema handed on from an earlier test keeps its counts
	if _, err := seed.Synthetic(ctx, st, seed.Options{Goals: 50, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	if n := analyzed() - n0; n != 0 {
		t.Fatalf("goals analyzed %d times after 50 objectives, want 0", n)
	}
	if _, err := seed.Synthetic(ctx, st, seed.Options{Goals: 200, Seed: 2}); err != nil {
		t.Fatal(err)
	}
	if n := analyzed() - n0; n != 1 {
		t.Fatalf("goals analyzed %d times after 250 objectives, want 1", n)
	}
}
