package sqlstore

import (
	"context"
	"reflect"
	"testing"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/query"
)

// TestDecodeReadsOnlyItsKeys: a list that names the keys it reads
// (ListQuery.Decode) returns the same items as a whole-document list, with
// those keys and the store's own (visibility, the rows' keys) filled in and
// every other field zero, as an admin and as a member (whose goals include
// an obfuscated stub of a private goal), on either database.
func TestDecodeReadsOnlyItsKeys(t *testing.T) {
	f := newPlanFixture(t)
	for _, who := range []struct {
		name string
		c    context.Context
	}{{"admin", f.admin}, {"member", f.member}} {
		name, c := who.name, who.c
		sort := []query.SortKey{{Field: "id"}}
		whole, err := f.s.ListGoals(c, upstream.ListQuery{All: true, Sort: sort})
		if err != nil {
			t.Fatal(err)
		}
		narrow, err := f.s.ListGoals(c, upstream.ListQuery{All: true, Sort: sort, Fields: query.Projection{"id": nil}, Decode: []string{"id", "name", "attainment"}})
		if err != nil {
			t.Fatal(err)
		}
		if len(whole.Items) < 3 || len(narrow.Items) != len(whole.Items) {
			t.Fatalf("%s: %d goals whole, %d narrow", name, len(whole.Items), len(narrow.Items))
		}
		for i, g := range whole.Items {
			want := upstream.Goal{ID: g.ID, AccountID: g.AccountID, SessionID: g.SessionID, ParentID: g.ParentID,
				ParentType: g.ParentType, ParentGoalSessionID: g.ParentGoalSessionID, OwnerID: g.OwnerID, OwnerIDs: g.OwnerIDs,
				Private: g.Private, Obfuscated: g.Obfuscated, Name: g.Name, Attainment: g.Attainment}
			if g.Obfuscated { // a stub is the same whatever was read
				want = g
			}
			if !reflect.DeepEqual(narrow.Items[i], want) {
				t.Errorf("%s: goal %d decoded as\n%+v\nwant\n%+v", name, i, narrow.Items[i], want)
			}
		}
		ms, err := f.s.ListMetrics(c, upstream.ListQuery{All: true, Sort: sort, Fields: query.Projection{"id": nil}, Decode: []string{"id", "name"}})
		if err != nil {
			t.Fatal(err)
		}
		wm, err := f.s.ListMetrics(c, upstream.ListQuery{All: true, Sort: sort})
		if err != nil {
			t.Fatal(err)
		}
		if len(ms.Items) == 0 || len(ms.Items) != len(wm.Items) {
			t.Fatalf("%s: %d key results whole, %d narrow", name, len(wm.Items), len(ms.Items))
		}
		for i, m := range wm.Items {
			want := upstream.Metric{ID: m.ID, AccountID: m.AccountID, GoalID: m.GoalID, SessionID: m.SessionID,
				OwnerID: m.OwnerID, OwnerIDs: m.OwnerIDs, Name: m.Name}
			if !reflect.DeepEqual(ms.Items[i], want) {
				t.Errorf("%s: key result %d decoded as\n%+v\nwant\n%+v", name, i, ms.Items[i], want)
			}
		}
	}
}
