package sqlstore

import (
	"slices"
	"testing"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/query"
)

// TestWholePageOrder: a page that holds every match (read unordered and
// sorted in Go) lists the items in the order SQLite gives when it pages one
// item at a time, for the default order and for id ascending and
// descending, as an admin and as a member (whose listing goes through the
// visibility conditions, obfuscated stubs included).
func TestWholePageOrder(t *testing.T) {
	f := newPlanFixture(t)
	for _, who := range []struct {
		name string
		s    func(lq upstream.ListQuery) ([]string, int)
	}{
		{"admin goals", func(lq upstream.ListQuery) ([]string, int) {
			p, err := f.s.ListGoals(f.admin, lq)
			if err != nil {
				t.Fatal(err)
			}
			return goalIDs(p.Items), p.TotalCount
		}},
		{"member goals", func(lq upstream.ListQuery) ([]string, int) {
			p, err := f.s.ListGoals(f.member, lq)
			if err != nil {
				t.Fatal(err)
			}
			return goalIDs(p.Items), p.TotalCount
		}},
		{"member metrics", func(lq upstream.ListQuery) ([]string, int) {
			p, err := f.s.ListMetrics(f.member, lq)
			if err != nil {
				t.Fatal(err)
			}
			ids := make([]string, len(p.Items))
			for i, m := range p.Items {
				ids[i] = m.ID
			}
			return ids, p.TotalCount
		}},
	} {
		for _, sort := range [][]query.SortKey{nil, {{Field: "id"}}, {{Field: "id", Desc: true}}} {
			whole, total := who.s(upstream.ListQuery{Sort: sort})
			if total < 2 || len(whole) != total {
				t.Fatalf("%s: %d of %d items", who.name, len(whole), total)
			}
			var paged []string
			for skip := range total {
				ids, _ := who.s(upstream.ListQuery{Sort: sort, Skip: skip, Limit: 1})
				paged = append(paged, ids...)
			}
			if !slices.Equal(whole, paged) {
				t.Errorf("%s, sort %v: whole page %v, one at a time %v", who.name, sort, whole, paged)
			}
			sorted := slices.Sorted(slices.Values(whole))
			if len(sort) == 1 && sort[0].Desc {
				slices.Reverse(sorted)
			}
			if !slices.Equal(whole, sorted) {
				t.Errorf("%s, sort %v: %v is not in id order", who.name, sort, whole)
			}
		}
	}
}

func goalIDs(gs []upstream.Goal) []string {
	ids := make([]string, len(gs))
	for i, g := range gs {
		ids[i] = g.ID
	}
	return ids
}
