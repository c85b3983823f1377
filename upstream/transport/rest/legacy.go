package rest

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/query"
)

// The v1 listings. The contract lists objectives, key results, tasks and
// sessions only through its v2 listings, but the real platform's public
// clients still call the v1 ones: its command-line client lists the open
// sessions of the current period with GET /api/v1/sessions?filter=current&status=open,
// chat bots and exporters list objectives with GET /api/v1/goals?sessionId=…,
// key results with GET /api/v1/metrics?goalId=… and tasks with
// GET /api/v1/tasks?filter=… (docs/rest.md, "Clients of the real platform").
// They are designed routes in the contract's style: the v2 listing's
// parameters (filter in the filter language, relaxed JSON included; sort,
// fields, skip, limit) plus the property parameters v1 clients send, each an
// equality condition (a comma list: any of the values) added to the filter
// with AND. Answers are the v2 listing's page.

// legacyTable holds the v1 listings.
func legacyTable() []entry {
	const get, ok = http.MethodGet, http.StatusOK
	return []entry{
		{Route{Method: get, Pattern: "/api/v1/goals", Params: append(listParamsOf(), "sessionId", "ownerId", "parentId"), Success: ok, Designed: true}, (*server).listGoalsV1},
		{Route{Method: get, Pattern: "/api/v1/metrics", Params: append(listParamsOf(), "goalId", "sessionId", "ownerId"), Success: ok, Designed: true}, (*server).listMetricsV1},
		{Route{Method: get, Pattern: "/api/v1/tasks", Params: append(listParamsOf(), "parentId", "ownerId", "status"), Success: ok, Designed: true}, (*server).listTasksV1},
		{Route{Method: get, Pattern: "/api/v1/sessions", Params: []string{"fields", "filter", "status", "parentId", "skip", "limit", "take", "includeDemo", "sort"}, Success: ok, Designed: true}, (*server).listSessionsV1},
	}
}

// listParamsOf returns a fresh copy of listParams, safe to append to.
func listParamsOf() []string { return append([]string(nil), listParams...) }

// SessionPeriods are the named filters of GET /api/v1/sessions: the sessions
// whose period holds now (current), has ended (past) or has not begun
// (future).
var SessionPeriods = []string{"current", "past", "future"}

// periodFilter is the filter source of a named session period at now.
func periodFilter(period string, now time.Time) string {
	ts := upstream.FormatTime(now)
	switch period {
	case "current":
		return jsonFilter(`{"start":{"$lte":%s},"end":{"$gte":%s}}`, ts, ts)
	case "past":
		return jsonFilter(`{"end":{"$lt":%s}}`, ts)
	}
	return jsonFilter(`{"start":{"$gt":%s}}`, ts)
}

// propertyFilter turns the property parameters props of q into a filter:
// each one sent is field = value, or field ∈ values for a comma list.
// Values are validated against reg like a filter's (errors name the
// parameter).
func propertyFilter(reg *query.Registry, q url.Values, props []string) (*query.Expr, error) {
	var all []*query.Expr
	for _, name := range props {
		if !q.Has(name) {
			continue
		}
		vals := CommaList(q.Get(name))
		if len(vals) == 0 {
			return nil, upstream.Invalid(name, "give a value, or a comma-separated list of values")
		}
		src := jsonFilter(`{"`+name+`":{"$in":[`+strings.TrimSuffix(strings.Repeat("%s,", len(vals)), ",")+`]}}`, vals...)
		e, err := query.ParseFilter(reg, src)
		if err != nil {
			return nil, renameParam(err, name)
		}
		all = append(all, e)
	}
	return query.And(all...), nil
}

// renameParam makes a filter error of a derived condition name the query
// parameter that gave it.
func renameParam(err error, param string) error {
	var qe *query.Error
	if errors.As(err, &qe) {
		return upstream.Invalid(param, "%s", qe.Message)
	}
	return err
}

// legacyListed is listed with the property parameters props (and any extra
// condition) added to the filter with AND.
func legacyListed[T any](r *http.Request, reg *query.Registry, props []string, extra *query.Expr, list func(upstream.ListQuery) (upstream.Page[T], error)) (any, error) {
	lq, vw, err := parseList(r, reg, "limit")
	if err != nil {
		return nil, err
	}
	pf, err := propertyFilter(reg, r.URL.Query(), props)
	if err != nil {
		return nil, err
	}
	lq.Filter = query.And(lq.Filter, pf, extra)
	p, err := list(lq)
	if err != nil {
		return nil, err
	}
	return shaped{v: nonNil(p), view: vw, list: true}, nil
}

func (s *server) listGoalsV1(w http.ResponseWriter, r *http.Request) (any, error) {
	return legacyListed(r, upstream.GoalFields, []string{"sessionId", "ownerId", "parentId"}, nil,
		func(q upstream.ListQuery) (upstream.Page[upstream.Goal], error) {
			return s.api.ListGoals(r.Context(), q)
		})
}

func (s *server) listMetricsV1(w http.ResponseWriter, r *http.Request) (any, error) {
	return legacyListed(r, upstream.MetricFields, []string{"goalId", "sessionId", "ownerId"}, nil,
		func(q upstream.ListQuery) (upstream.Page[upstream.Metric], error) {
			return s.api.ListMetrics(r.Context(), q)
		})
}

func (s *server) listTasksV1(w http.ResponseWriter, r *http.Request) (any, error) {
	return legacyListed(r, upstream.TaskFields, []string{"parentId", "ownerId", "status"}, nil,
		func(q upstream.ListQuery) (upstream.Page[upstream.Task], error) {
			return s.api.ListTasks(r.Context(), q)
		})
}

// listSessionsV1 is GET /api/v1/sessions: its filter is a named period
// (SessionPeriods) or a filter in the filter language; status is a session
// status or a comma list of them.
func (s *server) listSessionsV1(w http.ResponseWriter, r *http.Request) (any, error) {
	q := r.URL.Query()
	demo, err := ParseBool(q, "includeDemo")
	if err != nil {
		return nil, err
	}
	var period *query.Expr
	if f := strings.TrimSpace(q.Get("filter")); isPeriod(f) {
		if period, err = query.ParseFilter(upstream.SessionFields, periodFilter(f, time.Now())); err != nil {
			return nil, err
		}
		r = withoutParam(r, "filter")
	}
	for _, st := range CommaList(q.Get("status")) {
		switch st {
		case upstream.SessionOpen, upstream.SessionLocked, upstream.SessionClosed:
		default:
			return nil, upstream.Invalid("status", "%q is not a session status; use open, locked or closed (or a comma list of them)", st)
		}
	}
	return legacyListed(r, upstream.SessionFields, []string{"status", "parentId"}, period,
		func(q upstream.ListQuery) (upstream.Page[upstream.Session], error) {
			return s.api.ListSessions(r.Context(), q, demo)
		})
}

func isPeriod(f string) bool { return slices.Contains(SessionPeriods, f) }

// withoutParam returns a shallow copy of r without the query parameter name.
func withoutParam(r *http.Request, name string) *http.Request {
	u := *r.URL
	q := u.Query()
	q.Del(name)
	u.RawQuery = q.Encode()
	r2 := *r
	r2.URL = &u
	return &r2
}
