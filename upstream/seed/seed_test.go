package seed_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/okrgate/okrgate/upstream/backend/sqlstore/sqlstoretest"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
	"github.com/okrgate/okrgate/upstream/query"
	"github.com/okrgate/okrgate/upstream/seed"
)

func account(t *testing.T) (*sqlstore.Store, context.Context) {
	t.Helper()
	return accountAt(t, sqlstoretest.DSN(t))
}

// accountAt is account on the database dsn.
func accountAt(t *testing.T, dsn string) (*sqlstore.Store, context.Context) {
	t.Helper()
	st, err := sqlstore.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	b, err := st.Bootstrap(context.Background(), sqlstore.BootstrapInput{AccountName: "Seed", Email: "s@example.test"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := st.Authenticate(context.Background(), b.Token)
	if err != nil {
		t.Fatal(err)
	}
	return st, upstream.NewContext(context.Background(), c)
}

// shape is what a seed determines: names, tree structure and figures, not ids.
func shape(t *testing.T, st *sqlstore.Store, ctx context.Context) []string {
	t.Helper()
	sortByName, _ := query.ParseSort(upstream.GoalFields, "name")
	page, err := st.ListGoals(ctx, upstream.ListQuery{Sort: sortByName, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{}
	for _, g := range page.Items {
		names[g.ID] = g.Name
	}
	var out []string
	for _, g := range page.Items {
		out = append(out, fmt.Sprintf("%s < %s kr=%d tasks=%d att=%.6f", g.Name, names[g.ParentID], g.MetricsCount, g.TasksCount, g.Attainment))
	}
	return out
}

func TestSyntheticIsDeterministic(t *testing.T) {
	st1, ctx1 := account(t)
	sum, err := seed.Synthetic(ctx1, st1, seed.Options{Goals: 60, Seed: 42})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Goals != 60 || sum.Metrics < 100 || sum.Tasks < 60 || len(sum.Sessions) != 2 || sum.Users != 8 {
		t.Fatalf("summary = %+v", sum)
	}
	st2, ctx2 := account(t)
	if _, err := seed.Synthetic(ctx2, st2, seed.Options{Goals: 60, Seed: 42}); err != nil {
		t.Fatal(err)
	}
	a, b := shape(t, st1, ctx1), shape(t, st2, ctx2)
	if !slices.Equal(a, b) {
		t.Fatalf("same seed, different datasets:\n%v\n%v", a, b)
	}
	st3, ctx3 := account(t)
	if _, err := seed.Synthetic(ctx3, st3, seed.Options{Goals: 60, Seed: 43}); err != nil {
		t.Fatal(err)
	}
	if slices.Equal(a, shape(t, st3, ctx3)) {
		t.Fatal("different seeds gave the same dataset")
	}
	roots := 0
	for _, l := range a {
		if strings.Contains(l, " <  kr=") {
			roots++
		}
	}
	if roots == 0 || roots == len(a) {
		t.Fatalf("%d roots among %d goals: want trees", roots, len(a))
	}
}

func TestDemo(t *testing.T) {
	st, ctx := account(t)
	sum, err := seed.Demo(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Users != 12 || len(sum.Sessions) != 2 || sum.Goals < 8 || sum.CheckIns == 0 || sum.Tasks == 0 {
		t.Fatalf("demo summary = %+v", sum)
	}
	teams, err := st.ListTeams(ctx, upstream.ListQuery{})
	if err != nil || teams.TotalCount != 3 {
		t.Fatalf("teams = %d (%v)", teams.TotalCount, err)
	}
	roots, err := st.ListGoals(ctx, upstream.ListQuery{Filter: query.Eq("parentId", "")})
	if err != nil {
		t.Fatal(err)
	}
	deepest := 0
	for _, g := range roots.Items {
		deepest = max(deepest, g.FullSubTreeCount)
	}
	if deepest < 6 {
		t.Fatalf("largest tree has %d descendants", deepest)
	}
}
