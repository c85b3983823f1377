package resolvers_test

import "testing"

// TestTotalCountOnlyWhenSelected: a connection counts its matches only when
// totalCount is selected; without it the store runs the page alone (one
// statement fewer) and hasNextPage is the same, read from one item more.
func TestTotalCountOnlyWhenSelected(t *testing.T) {
	f := seeded(t, 10, 1)
	type page struct {
		Goals struct {
			TotalCount int
			PageInfo   struct{ HasNextPage bool }
			Nodes      []struct{ ID string }
		}
	}
	// run answers q and counts the store's statements: the fewest of three
	// runs, since the store's own background work (the event follower,
	// the webhook queue) can only add to a run's count, never take away.
	run := func(q string) (page, int64) {
		t.Helper()
		var p page
		fewest := int64(-1)
		for range 3 {
			before := f.store.QueryCount()
			f.do(t, q, nil).mustData(t, &p)
			if n := f.store.QueryCount() - before; fewest < 0 || n < fewest {
				fewest = n
			}
		}
		return p, fewest
	}
	for _, first := range []string{"3", "100"} {
		counted, withCount := run(`{ goals(first: ` + first + `) { totalCount pageInfo { hasNextPage } nodes { id } } }`)
		plain, without := run(`{ goals(first: ` + first + `) { pageInfo { hasNextPage } nodes { id } } }`)
		if counted.Goals.TotalCount < 4 {
			t.Fatalf("first %s: %d goals; the fixture needs more than a page", first, counted.Goals.TotalCount)
		}
		if without != withCount-1 {
			t.Errorf("first %s: %d statements without totalCount, %d with it: want one fewer", first, without, withCount)
		}
		if plain.Goals.PageInfo != counted.Goals.PageInfo || len(plain.Goals.Nodes) != len(counted.Goals.Nodes) {
			t.Errorf("first %s: without totalCount %+v, with it %+v", first, plain.Goals, counted.Goals)
		}
		if want := first == "3"; plain.Goals.PageInfo.HasNextPage != want {
			t.Errorf("first %s: hasNextPage = %v, want %v", first, plain.Goals.PageInfo.HasNextPage, want)
		}
	}
}
