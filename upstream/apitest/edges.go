package apitest

import (
	"slices"
	"testing"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/query"
)

// The listings GraphQL edges batch on, with an $in filter over many parents
// (Metric.checkins, Tag.goals): one call answers for every parent.

// testCheckInsOfManyMetrics: ListCheckIns with metricId $in lists the
// check-ins of every key result named, in id order, and nothing of others.
func testCheckInsOfManyMetrics(t *testing.T, f *fixture) {
	s := f.session(t, "Q1")
	g := f.goal(t, upstream.GoalInput{Name: "g", SessionID: s.ID})
	var krs []string
	var want []string
	for i := range 3 {
		kr, err := f.api.CreateMetric(f.admin, upstream.MetricInput{Name: "kr", GoalID: g.ID, Target: num(10), TargetOperator: "at_least"})
		if err != nil {
			t.Fatal(err)
		}
		krs = append(krs, kr.ID)
		for j := range i + 1 {
			ci, err := f.api.CheckIn(f.admin, kr.ID, upstream.CheckInInput{Actual: num(float64(j + 1))})
			if err != nil {
				t.Fatal(err)
			}
			if i < 2 {
				want = append(want, ci.ID)
			}
		}
	}
	slices.Sort(want)
	p, err := f.api.ListCheckIns(f.admin, upstream.ListQuery{
		Filter: query.In("metricId", krs[0], krs[1], unknownID()),
		Sort:   []query.SortKey{{Field: "id"}},
		Limit:  upstream.MaxLimit,
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range p.Items {
		got = append(got, c.ID)
	}
	if !slices.Equal(got, want) || p.TotalCount != len(want) {
		t.Errorf("check-ins of two key results = %v (total %d), want %v", got, p.TotalCount, want)
	}
	if p, err := f.api.ListCheckIns(f.other, upstream.ListQuery{Filter: query.In("metricId", krs[0], krs[1])}); err != nil || len(p.Items) != 0 {
		t.Errorf("another account lists %d check-ins (%v)", len(p.Items), err)
	}
}

// testTaggingsOfManyTags: ListTaggings with tagId $in and an item type
// lists the goals carrying each tag.
func testTaggingsOfManyTags(t *testing.T, f *fixture) {
	s := f.session(t, "Q1")
	a := f.goal(t, upstream.GoalInput{Name: "a", SessionID: s.ID})
	b := f.goal(t, upstream.GoalInput{Name: "b", SessionID: s.ID})
	growth, added, err := f.api.AddGoalTag(f.admin, a.ID, "Growth")
	if err != nil || !added {
		t.Fatalf("AddGoalTag = %v, %v", added, err)
	}
	if _, added, err := f.api.AddGoalTag(f.admin, b.ID, " growth "); err != nil || !added {
		t.Fatalf("AddGoalTag b = %v, %v", added, err)
	}
	again, added, err := f.api.AddGoalTag(f.admin, b.ID, "GROWTH")
	if err != nil || added || again.ID != growth.ID {
		t.Errorf("AddGoalTag again = %+v, %v, %v; want the same tag, not added", again, added, err)
	}
	cost, _, err := f.api.AddGoalTag(f.admin, b.ID, "Cost")
	if err != nil {
		t.Fatal(err)
	}
	p, err := f.api.ListTaggings(f.admin, upstream.ListQuery{
		Filter: query.And(query.In("tagId", growth.ID, cost.ID), query.Eq("itemType", upstream.TaggedGoal)),
		Sort:   []query.SortKey{{Field: "id"}},
		Limit:  upstream.MaxLimit,
	})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, tg := range p.Items {
		got[tg.TagID] = append(got[tg.TagID], tg.ItemID)
	}
	wantGrowth := []string{a.ID, b.ID}
	slices.Sort(wantGrowth)
	slices.Sort(got[growth.ID])
	if !slices.Equal(got[growth.ID], wantGrowth) || !slices.Equal(got[cost.ID], []string{b.ID}) || p.TotalCount != 3 {
		t.Errorf("taggings = %v (total %d)", got, p.TotalCount)
	}
}

// testProjectionKeepsStoredFields: a projection names what to load beyond
// the stored document (here the embedded key results); the stored fields of
// the goal and of its key results are returned whatever it says, and key
// results are embedded only when named.
func testProjectionKeepsStoredFields(t *testing.T, f *fixture) {
	s := f.session(t, "Q1")
	g := f.goal(t, upstream.GoalInput{Name: "g", SessionID: s.ID})
	kr, err := f.api.CreateMetric(f.admin, upstream.MetricInput{Name: "kr", GoalID: g.ID, Target: num(10), TargetOperator: "at_least"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := f.api.ListGoals(f.admin, upstream.ListQuery{Filter: query.Eq("id", g.ID),
		Fields: query.Projection{"id": nil, "metrics": query.Projection{"id": nil}}})
	if err != nil || len(p.Items) != 1 {
		t.Fatalf("ListGoals = %+v, %v", p, err)
	}
	got := p.Items[0]
	if got.Name != "g" || got.SessionID != s.ID || len(got.Metrics) != 1 || got.Metrics[0].ID != kr.ID || got.Metrics[0].Name != "kr" {
		t.Errorf("projected goal: name %q session %q metrics %+v", got.Name, got.SessionID, got.Metrics)
	}
	p, err = f.api.ListGoals(f.admin, upstream.ListQuery{Filter: query.Eq("id", g.ID), Fields: query.Projection{"id": nil}})
	if err != nil || len(p.Items) != 1 || p.Items[0].Name != "g" || len(p.Items[0].Metrics) != 0 {
		t.Errorf("goal projected to its id: %+v, %v", p.Items, err)
	}
}
