package resolvers_test

import (
	"testing"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/infra/instrument"
)

// TestIfMatch: etag is the stored version of a goal, key result, task or
// session; an update with ifMatch of the current etag writes and yields a
// new etag, one with a stale etag fails with PRECONDITION_FAILED and
// changes nothing.
func TestIfMatch(t *testing.T) {
	o := newOrgFixture(t, "ifmatch")
	st, ctx := o.store, o.ctx
	g, err := st.CreateGoal(ctx, upstream.GoalInput{Name: "Grow", SessionID: o.sessionID})
	if err != nil {
		t.Fatal(err)
	}
	tgt := 10.0
	m, err := st.CreateMetric(ctx, upstream.MetricInput{Name: "ARR", GoalID: g.ID, Target: &tgt})
	if err != nil {
		t.Fatal(err)
	}
	tk, err := st.CreateTask(ctx, upstream.TaskInput{Name: "Call", ParentID: g.ID})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ typ, id, mutation, field string }{
		{"goal", g.ID, "updateGoal", "name"},
		{"metric", m.ID, "updateMetric", "name"},
		{"task", tk.ID, "updateTask", "name"},
		{"session", o.sessionID, "updateSession", "title"},
	} {
		read := func() (string, string) {
			var d map[string]map[string]string
			o.do(t, `query($id: ID!) { x: `+c.typ+`(id: $id) { etag v: `+c.field+` } }`, map[string]any{"id": c.id}).mustData(t, &d)
			return d["x"]["etag"], d["x"]["v"]
		}
		write := func(value string, ifMatch any) gqlResponse {
			return o.do(t, `mutation($id: ID!, $v: String, $m: String) { x: `+c.mutation+`(id: $id, input: {`+c.field+`: $v}, ifMatch: $m) { etag `+c.field+` } }`,
				map[string]any{"id": c.id, "v": value, "m": ifMatch})
		}
		e1, _ := read()
		if len(e1) < 3 || e1[0] != '"' {
			t.Fatalf("%s: etag %q, want a quoted entity tag", c.typ, e1)
		}
		var d map[string]map[string]string
		write("second", e1).mustData(t, &d)
		e2 := d["x"]["etag"]
		if d["x"][c.field] != "second" || e2 == e1 || e2 == "" {
			t.Fatalf("%s: update with the current etag: %v (etag before %s)", c.typ, d, e1)
		}
		if r := write("third", e1); r.code() != "PRECONDITION_FAILED" {
			t.Fatalf("%s: update with a stale etag: code %q, errors %+v", c.typ, r.code(), r.Errors)
		}
		if e, v := read(); v != "second" || e != e2 {
			t.Fatalf("%s: after the refused update: %q %q, want %q %q", c.typ, v, e, "second", e2)
		}
		// Without ifMatch an update is unconditional.
		if write("fourth", nil).mustData(t, &d); d["x"][c.field] != "fourth" {
			t.Fatalf("%s: unconditional update: %v", c.typ, d)
		}
	}
}

// TestETagsBatch: the etag fields of a level cost one read of versions for
// the level (VersionsOf), not one per object, and each is the version REST
// would send (Version).
func TestETagsBatch(t *testing.T) {
	f := seeded(t, 10, 1)
	before := f.calls.Snapshot()
	var d struct {
		Goals struct {
			Nodes []struct {
				ID, Etag string
				Metrics  []struct{ ID, Etag string }
			}
		}
	}
	f.do(t, `{ goals(first: 20) { nodes { id etag metrics { id etag } } } }`, nil).mustData(t, &d)
	calls := instrument.Diff(before, f.calls.Snapshot())
	if calls["VersionsOf"] != 2 || calls["Version"] != 0 {
		t.Errorf("calls %v: want VersionsOf twice (goals, key results) and no Version", calls)
	}
	metrics := 0
	for _, g := range d.Goals.Nodes {
		if want, err := f.store.Version(f.ctx, upstream.KindGoal, g.ID); err != nil || g.Etag != want {
			t.Errorf("goal %s: etag %q, Version %q (%v)", g.ID, g.Etag, want, err)
		}
		for _, m := range g.Metrics {
			metrics++
			if want, err := f.store.Version(f.ctx, upstream.KindMetric, m.ID); err != nil || m.Etag != want {
				t.Errorf("key result %s: etag %q, Version %q (%v)", m.ID, m.Etag, want, err)
			}
		}
	}
	if len(d.Goals.Nodes) < 5 || metrics < 5 {
		t.Fatalf("%d goals, %d key results: too few for the test", len(d.Goals.Nodes), metrics)
	}
}
