package resolvers_test

import (
	"fmt"
	"maps"
	"strings"
	"testing"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/infra/instrument"
)

// readCase is a query of reads by id, the store calls it must cost and the
// id each response key must hold.
type readCase struct {
	name  string
	query string
	vars  map[string]any
	want  map[string]int64
	ids   map[string]string
}

// TestAliasedReadsBatch: reads by id that no level knows in advance — N
// aliased node(id:) and goal(id:) fields, ids inline or in variables, and
// nodes(ids:) — cost one batched store call per kind, whatever the
// scheduling of the fields (run with -count=5 -cpu 1,2,4), and each field
// gets its own object.
func TestAliasedReadsBatch(t *testing.T) {
	f := seeded(t, 10, 1)
	gp, err := f.store.ListGoals(f.ctx, upstream.ListQuery{Limit: 8})
	if err != nil {
		t.Fatal(err)
	}
	mp, err := f.store.ListMetrics(f.ctx, upstream.ListQuery{Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(gp.Items) < 8 || len(mp.Items) < 3 {
		t.Fatalf("fixture too small: %d goals, %d key results", len(gp.Items), len(mp.Items))
	}
	var goals, metrics []string
	for _, g := range gp.Items {
		goals = append(goals, g.ID)
	}
	for _, m := range mp.Items {
		metrics = append(metrics, m.ID)
	}
	var cases []readCase
	// Eight aliased node(id:) over goals, half of the ids in variables.
	{
		var b strings.Builder
		vars, ids := map[string]any{}, map[string]string{}
		var decl []string
		for i, id := range goals {
			if i%2 == 0 {
				fmt.Fprintf(&b, "n%d: node(id: %q) { id } ", i, id)
			} else {
				decl = append(decl, fmt.Sprintf("$v%d: ID!", i))
				vars[fmt.Sprintf("v%d", i)] = id
				fmt.Fprintf(&b, "n%d: node(id: $v%d) { id } ", i, i)
			}
			ids[fmt.Sprintf("n%d", i)] = id
		}
		cases = append(cases, readCase{"node", "query(" + strings.Join(decl, ", ") + ") { " + b.String() + "}", vars, map[string]int64{"ListGoals": 1}, ids})
	}
	// Aliased goal(id:) and a nodes(ids:) over goals and key results: one
	// call per kind the ids turn out to be.
	{
		var b strings.Builder
		ids := map[string]string{}
		for i, id := range goals[:5] {
			fmt.Fprintf(&b, "g%d: goal(id: %q) { id } ", i, id)
			ids[fmt.Sprintf("g%d", i)] = id
		}
		fmt.Fprintf(&b, "m: node(id: %q) { id } all: nodes(ids: [%q, %q, %q]) { id }", metrics[0], goals[6], metrics[1], metrics[2])
		ids["m"] = metrics[0]
		cases = append(cases, readCase{"mixed", "{ " + b.String() + " }", nil, map[string]int64{"ListGoals": 2, "ListMetrics": 1}, ids})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := f.calls.Snapshot()
			resp := f.do(t, c.query, c.vars)
			calls := instrument.Diff(before, f.calls.Snapshot())
			delete(calls, "Authenticate")
			var got map[string]any
			resp.mustData(t, &got)
			for key, id := range c.ids {
				obj, _ := got[key].(map[string]any)
				if obj == nil || obj["id"] != id {
					t.Errorf("%s = %v, want id %s", key, got[key], id)
				}
			}
			if !maps.Equal(calls, c.want) {
				t.Errorf("calls %v, want %v", calls, c.want)
			}
		})
	}
}
