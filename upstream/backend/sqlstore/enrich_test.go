package sqlstore

import (
	"context"
	"reflect"
	"testing"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/query"
)

// statements runs fn and returns how many statements the store ran.
func statements(t *testing.T, s *Store, fn func() error) int64 {
	t.Helper()
	before := s.QueryCount()
	if err := fn(); err != nil {
		t.Fatal(err)
	}
	return s.QueryCount() - before
}

// TestProjectionSkipsJoins: a listing whose projection shows neither owners
// (assignee, assignees), tags nor currentUserAllowedActions runs fewer
// statements than the full shape and returns the same scalar fields; a
// projection naming one of them gets exactly that one.
func TestProjectionSkipsJoins(t *testing.T) {
	f := newPlanFixture(t)
	scalars := query.Projection{"id": nil, "name": nil, "ownerIds": nil, "attainment": nil}
	for _, who := range []struct {
		name string
		ctx  context.Context
	}{{"admin", f.admin}, {"member", f.member}} {
		// Each listing in a request of its own whose memo already holds the
		// caller's scope (ListSessions derives it), so that only the listing's
		// own statements count.
		req := func() context.Context {
			ctx := upstream.WithMemo(who.ctx)
			if _, err := f.s.ListSessions(ctx, upstream.ListQuery{}, true); err != nil {
				t.Fatal(err)
			}
			return ctx
		}
		var full, lean upstream.Page[upstream.Goal]
		nFull := statements(t, f.s, func() (err error) { full, err = f.s.ListGoals(req(), upstream.ListQuery{}); return })
		nLean := statements(t, f.s, func() (err error) { lean, err = f.s.ListGoals(req(), upstream.ListQuery{Fields: scalars}); return })
		if nLean >= nFull {
			t.Errorf("%s: goals with %v ran %d statements, the full shape %d", who.name, scalars, nLean, nFull)
		}
		if len(full.Items) == 0 || len(full.Items) != len(lean.Items) {
			t.Fatalf("%s: %d goals in the full shape, %d in the lean one", who.name, len(full.Items), len(lean.Items))
		}
		for i, g := range full.Items {
			l := lean.Items[i]
			if g.ID != l.ID || g.Name != l.Name || g.Attainment != l.Attainment || !reflect.DeepEqual(g.OwnerIDs, l.OwnerIDs) {
				t.Errorf("%s: goal %d: lean %+v differs from full %+v", who.name, i, l, g)
			}
			if len(l.Assignees) != 0 || len(l.Tags) != 0 || len(l.CurrentUserAllowedActions) != 0 {
				t.Errorf("%s: lean goal %q has owners %v, tags %v, actions %v", who.name, l.Name, l.Assignees, l.Tags, l.CurrentUserAllowedActions)
			}
		}
		root := func(p upstream.Page[upstream.Goal]) upstream.Goal {
			for _, g := range p.Items {
				if g.ID == f.root.ID {
					return g
				}
			}
			t.Fatalf("%s: no root goal in %v", who.name, p.Items)
			return upstream.Goal{}
		}
		if g := root(full); len(g.Assignees) != 2 || len(g.Tags) != 1 || len(g.CurrentUserAllowedActions) == 0 {
			t.Fatalf("%s: full root goal: owners %v, tags %v, actions %v", who.name, g.Assignees, g.Tags, g.CurrentUserAllowedActions)
		}
		tagsOnly, err := f.s.ListGoals(req(), upstream.ListQuery{Fields: query.Projection{"name": nil, "tags": nil}})
		if err != nil {
			t.Fatal(err)
		}
		if g := root(tagsOnly); len(g.Tags) != 1 || len(g.Assignees) != 0 || len(g.CurrentUserAllowedActions) != 0 {
			t.Errorf("%s: tags only: tags %v, owners %v, actions %v", who.name, g.Tags, g.Assignees, g.CurrentUserAllowedActions)
		}
		owners, err := f.s.ListGoals(req(), upstream.ListQuery{Fields: query.Projection{"assignees": query.Projection{"name": nil}}})
		if err != nil {
			t.Fatal(err)
		}
		if g := root(owners); len(g.Assignees) != 2 || len(g.Tags) != 0 {
			t.Errorf("%s: owners only: owners %v, tags %v", who.name, g.Assignees, g.Tags)
		}

		var fullM, leanM upstream.Page[upstream.Metric]
		nFull = statements(t, f.s, func() (err error) { fullM, err = f.s.ListMetrics(req(), upstream.ListQuery{}); return })
		nLean = statements(t, f.s, func() (err error) {
			leanM, err = f.s.ListMetrics(req(), upstream.ListQuery{Fields: query.Projection{"name": nil, "actual": nil}})
			return
		})
		if nLean >= nFull {
			t.Errorf("%s: key results without owners and actions ran %d statements, the full shape %d", who.name, nLean, nFull)
		}
		if len(fullM.Items) == 0 || len(fullM.Items) != len(leanM.Items) {
			t.Fatalf("%s: %d key results in the full shape, %d in the lean one", who.name, len(fullM.Items), len(leanM.Items))
		}
		for i, m := range leanM.Items {
			full := fullM.Items[i]
			if m.ID != full.ID || m.Name != full.Name || m.Actual != full.Actual {
				t.Errorf("%s: key result %d: lean %q %v, full %q %v", who.name, i, m.Name, m.Actual, full.Name, full.Actual)
			}
			if len(m.Assignees) != 0 || len(m.CurrentUserAllowedActions) != 0 || len(full.Assignees) != 1 || len(full.CurrentUserAllowedActions) == 0 {
				t.Errorf("%s: key result %q: lean owners %v, actions %v; full owners %v, actions %v", who.name, m.Name,
					m.Assignees, m.CurrentUserAllowedActions, full.Assignees, full.CurrentUserAllowedActions)
			}
		}

		var fullT, leanT upstream.Page[upstream.Task]
		nFull = statements(t, f.s, func() (err error) { fullT, err = f.s.ListTasks(req(), upstream.ListQuery{}); return })
		nLean = statements(t, f.s, func() (err error) {
			leanT, err = f.s.ListTasks(req(), upstream.ListQuery{Fields: query.Projection{"name": nil}})
			return
		})
		if nLean >= nFull || len(fullT.Items) != len(leanT.Items) || len(leanT.Items) == 0 {
			t.Errorf("%s: tasks: %d statements lean, %d full; %d vs %d tasks", who.name, nLean, nFull, len(leanT.Items), len(fullT.Items))
		}
	}
}
