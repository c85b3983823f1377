package apitest

import (
	"fmt"
	"slices"
	"testing"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/query"
)

// testGoalCRUD: a goal is created, read back, changed and deleted; a
// deleted goal is not found.
func testGoalCRUD(t *testing.T, f *fixture) {
	s := f.session(t, "Q1")
	g, err := f.api.CreateGoal(f.admin, upstream.GoalInput{Name: "Grow revenue", Description: "by a lot", SessionID: s.ID})
	if err != nil {
		t.Fatal(err)
	}
	if !upstream.ValidID(g.ID) || g.AccountID != f.accountID || g.Name != "Grow revenue" || g.SessionID != s.ID {
		t.Fatalf("created goal = %+v", g)
	}
	if g.AttainmentTypeString != upstream.AverageKR || g.ClosedStatus.Status != "active" || g.CreatedByID != f.adminID {
		t.Errorf("created goal defaults: attainmentTypeString %q, closedStatus %q, createdById %q",
			g.AttainmentTypeString, g.ClosedStatus.Status, g.CreatedByID)
	}
	got := f.getGoal(t, g.ID)
	if got.ID != g.ID || got.Name != g.Name || got.Description != "by a lot" {
		t.Errorf("read back %+v, want %+v", got, g)
	}

	up, err := f.api.UpdateGoal(f.admin, g.ID, upstream.GoalPatch{Name: str("Grow revenue 2x")})
	if err != nil {
		t.Fatal(err)
	}
	if up.Name != "Grow revenue 2x" || up.Description != "by a lot" {
		t.Errorf("updated goal: name %q description %q; a patch changes only the fields it sets", up.Name, up.Description)
	}
	if got := f.getGoal(t, g.ID); got.Name != "Grow revenue 2x" {
		t.Errorf("read after update: name %q", got.Name)
	}

	_, err = f.api.CreateGoal(f.admin, upstream.GoalInput{SessionID: s.ID})
	wantCode(t, "create a goal without a name", err, upstream.CodeInvalid)

	if err := f.api.DeleteGoal(f.admin, g.ID); err != nil {
		t.Fatal(err)
	}
	_, err = f.api.GetGoal(f.admin, g.ID)
	wantCode(t, "get a deleted goal", err, upstream.CodeNotFound)
	wantCode(t, "delete a deleted goal", f.api.DeleteGoal(f.admin, g.ID), upstream.CodeNotFound)
}

// testGoalListing: a listing filters, sorts, pages and counts the matches
// before paging.
func testGoalListing(t *testing.T, f *fixture) {
	s := f.session(t, "Q1")
	other := f.session(t, "Q2")
	for _, name := range []string{"alpha", "Beta", "gamma", "delta", "epsilon"} {
		f.goal(t, upstream.GoalInput{Name: name, SessionID: s.ID})
	}
	f.goal(t, upstream.GoalInput{Name: "zeta", SessionID: other.ID})

	list := func(filter, sort string, skip, limit int) upstream.Page[upstream.Goal] {
		t.Helper()
		q := upstream.ListQuery{Filter: goalFilter(t, filter), Skip: skip, Limit: limit}
		if sort != "" {
			keys, err := query.ParseSort(upstream.GoalFields, sort)
			if err != nil {
				t.Fatal(err)
			}
			q.Sort = keys
		}
		p, err := f.api.ListGoals(f.admin, q)
		if err != nil {
			t.Fatalf("list goals filter %s sort %s: %v", filter, sort, err)
		}
		return p
	}

	all := list(`{}`, "name", 0, 0)
	if want := []string{"Beta", "alpha", "delta", "epsilon", "gamma", "zeta"}; !slices.Equal(goalNames(all), want) || all.TotalCount != 6 {
		t.Errorf("all by name = %v (total %d), want %v (6)", goalNames(all), all.TotalCount, want)
	}
	inSession := list(fmt.Sprintf(`{sessionId: %q}`, s.ID), "-name", 1, 2)
	if want := []string{"epsilon", "delta"}; !slices.Equal(goalNames(inSession), want) || inSession.TotalCount != 5 {
		t.Errorf("session page 2 by -name = %v (total %d), want %v (5)", goalNames(inSession), inSession.TotalCount, want)
	}
	re := list(`{name: {$regex: "^(beta|gamma)$", $options: "i"}}`, "-name", 0, 0)
	if want := []string{"gamma", "Beta"}; !slices.Equal(goalNames(re), want) || re.TotalCount != 2 {
		t.Errorf("regex = %v (total %d), want %v", goalNames(re), re.TotalCount, want)
	}
	past := list(`{}`, "name", 10, 5)
	if len(past.Items) != 0 || past.TotalCount != 6 {
		t.Errorf("a page past the end = %v (total %d), want none (6)", goalNames(past), past.TotalCount)
	}
	none := list(`{name: "nothing"}`, "", 0, 0)
	if len(none.Items) != 0 || none.TotalCount != 0 || none.Items == nil {
		t.Errorf("no match = %#v, want an empty, non-nil page", none)
	}
}

// testGoalKeysetPaging: walking a listing by id ({_id: {$gt: last}}, sorted
// by id) visits every goal exactly once, in id order.
func testGoalKeysetPaging(t *testing.T, f *fixture) {
	s := f.session(t, "Q1")
	var want []string
	for i := range 11 {
		want = append(want, f.goal(t, upstream.GoalInput{Name: fmt.Sprintf("goal %02d", i), SessionID: s.ID}).ID)
	}
	slices.Sort(want)

	var got []string
	last := ""
	for range len(want) + 2 {
		q := upstream.ListQuery{Sort: []query.SortKey{{Field: "id"}}, Limit: 4}
		if last != "" {
			q.Filter = goalFilter(t, fmt.Sprintf(`{_id: {$gt: %q}}`, last))
		}
		p, err := f.api.ListGoals(f.admin, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range p.Items {
			got = append(got, g.ID)
		}
		if len(p.Items) < q.Limit {
			break
		}
		last = p.Items[len(p.Items)-1].ID
	}
	if !slices.Equal(got, want) {
		t.Errorf("keyset walk = %v\nwant %v", got, want)
	}
}

// testGoalListingInManyKeys: an $in filter with more keys than a page holds
// (as the GraphQL dataloaders send) counts every match and pages through
// them without loss or repetition.
func testGoalListingInManyKeys(t *testing.T, f *fixture) {
	const goals = upstream.MaxLimit + 50
	s := f.session(t, "Q1")
	ids := make([]any, 0, goals+20)
	var want []string
	for i := range goals {
		g := f.goal(t, upstream.GoalInput{Name: fmt.Sprintf("g%04d", i), SessionID: s.ID})
		ids = append(ids, g.ID)
		want = append(want, g.ID)
	}
	for range 20 { // keys that match nothing do not count
		ids = append(ids, unknownID())
	}
	slices.Sort(want)

	var got []string
	for skip := 0; ; skip += upstream.MaxLimit {
		p, err := f.api.ListGoals(f.admin, upstream.ListQuery{
			Filter: query.In("id", ids...),
			Sort:   []query.SortKey{{Field: "id"}},
			Fields: query.Projection{"id": nil, "name": nil},
			Skip:   skip,
			Limit:  upstream.MaxLimit,
		})
		if err != nil {
			t.Fatalf("list %d keys, skip %d: %v", len(ids), skip, err)
		}
		if p.TotalCount != goals {
			t.Fatalf("totalCount = %d, want %d", p.TotalCount, goals)
		}
		for _, g := range p.Items {
			got = append(got, g.ID)
		}
		if len(p.Items) < upstream.MaxLimit {
			break
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("paged $in listing returned %d ids (first difference at %d), want %d in id order", len(got), firstDiff(got, want), len(want))
	}
}

// goalFilter parses a goals filter in the contract's relaxed JSON.
func goalFilter(t *testing.T, src string) *query.Expr {
	t.Helper()
	e, err := query.ParseFilter(upstream.GoalFields, src)
	if err != nil {
		t.Fatalf("filter %s: %v", src, err)
	}
	return e
}

func goalNames(p upstream.Page[upstream.Goal]) []string {
	names := make([]string, len(p.Items))
	for i, g := range p.Items {
		names[i] = g.Name
	}
	return names
}

func goalIDs(p upstream.Page[upstream.Goal]) []string {
	ids := make([]string, len(p.Items))
	for i, g := range p.Items {
		ids[i] = g.ID
	}
	return ids
}

func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
