package resolvers

import (
	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/query"
)

// The fetches of the nested edges that take arguments (see nested.go): the
// same upstream list operations and $in filters as the plain edges in
// NewLoaders, with the argument filter ANDed.

func goalIDOf(g *upstream.Goal) string       { return g.ID }
func metricIDOf(m *upstream.Metric) string   { return m.ID }
func sessionIDOf(s *upstream.Session) string { return s.ID }
func teamIDOf(t *upstream.Team) string       { return t.ID }

// goalChildrenFetch loads child objectives by parentId.
func goalChildrenFetch(api upstream.API) nestedFetch[upstream.Goal, upstream.Goal] {
	return byKeys[upstream.Goal](func(f *query.Expr) fetcher[upstream.Goal] {
		return byField(api.ListGoals, "parentId", f, key(func(g *upstream.Goal) string { return g.ParentID }), goalIDOf)
	})
}

// goalMetricsFetch loads key results by goalId.
func goalMetricsFetch(api upstream.API) nestedFetch[upstream.Goal, upstream.Metric] {
	return byKeys[upstream.Goal](func(f *query.Expr) fetcher[upstream.Metric] {
		return byField(api.ListMetrics, "goalId", f, key(func(m *upstream.Metric) string { return m.GoalID }), metricIDOf)
	})
}

// tasksFetch loads tasks by parentId (under objectives or key results).
func tasksFetch[P any](api upstream.API) nestedFetch[P, upstream.Task] {
	return byKeys[P](func(f *query.Expr) fetcher[upstream.Task] {
		return byField(api.ListTasks, "parentId", f, key(func(t *upstream.Task) string { return t.ParentID }), func(t *upstream.Task) string { return t.ID })
	})
}

// checkinsFetch loads check-ins by metricId.
func checkinsFetch(api upstream.API) nestedFetch[upstream.Metric, upstream.CheckIn] {
	return byKeys[upstream.Metric](func(f *query.Expr) fetcher[upstream.CheckIn] {
		return byField(api.ListCheckIns, "metricId", f, key(func(c *upstream.CheckIn) string { return c.MetricID }), func(c *upstream.CheckIn) string { return c.ID })
	})
}

// sessionGoalsFetch loads a session's objectives by sessionId; roots keeps
// those without a parent.
func sessionGoalsFetch(api upstream.API, roots bool) nestedFetch[upstream.Session, upstream.Goal] {
	return byKeys[upstream.Session](func(f *query.Expr) fetcher[upstream.Goal] {
		if roots {
			f = query.And(query.Eq("parentId", ""), f)
		}
		return byField(api.ListGoals, "sessionId", f, key(func(g *upstream.Goal) string { return g.SessionID }), goalIDOf)
	})
}
