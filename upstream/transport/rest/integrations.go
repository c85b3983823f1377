package rest

import (
	"net/http"
	"reflect"
	"slices"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/query"
)

// The operations the real platform's integrations call that the contract
// leaves out (docs/rest.md, "Clients of the real platform"): an exporter
// lists users with GET /api/v1/users?limit=1000&fields=… and reads them with
// GET /api/v1/users/{id}, reads a key result with its tasks
// (GET /api/v1/metrics/{id}?expand=tasks) and its value history
// (GET /api/v1/metrics/{id}/values?from=&to=); importers create users and
// tasks at /api/v1/users and /api/v1/tasks; migration scripts list through
// /api/v2/goals and /api/v2/tasks. They are designed routes served by the
// handlers of their v2 counterparts, so a v1 user or task is the same
// document as its v2 one.

// integrationTable holds those operations.
func integrationTable() []entry {
	const (
		get, post, put, patch  = http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch
		del                    = http.MethodDelete
		ok, created, noContent = http.StatusOK, http.StatusCreated, http.StatusNoContent
	)
	return []entry{
		{Route{Method: get, Pattern: "/api/v2/goals", Params: listParams, Success: ok, Designed: true}, (*server).listGoals},
		{Route{Method: get, Pattern: "/api/v2/tasks", Params: listParams, Success: ok, Designed: true}, (*server).listTasks},

		{Route{Method: get, Pattern: "/api/v1/users", Params: []string{"fields", "sort", "filter", "skip", "limit", "take"}, Success: ok, Designed: true}, (*server).listUsers},
		{Route{Method: get, Pattern: "/api/v1/users/{id}", Params: viewParams, Success: ok, Designed: true}, (*server).getUser},
		{Route{Method: post, Pattern: "/api/v1/users", Success: created, Designed: true}, (*server).createUserV1},
		{Route{Method: patch, Pattern: "/api/v1/users/{id}", Success: ok, Designed: true}, (*server).updateUser},

		{Route{Method: post, Pattern: "/api/v1/tasks", Success: created, Designed: true}, (*server).createTaskV1},
		{Route{Method: get, Pattern: "/api/v1/tasks/{taskId}", Params: viewParams, Success: ok, Designed: true, Versioned: upstream.KindTask}, (*server).getTask},
		{Route{Method: patch, Pattern: "/api/v1/tasks/{taskId}", Success: ok, Designed: true, Versioned: upstream.KindTask}, (*server).updateTask},
		{Route{Method: put, Pattern: "/api/v1/tasks/{taskId}", Success: ok, Designed: true, Versioned: upstream.KindTask}, (*server).putTask},
		{Route{Method: del, Pattern: "/api/v1/tasks/{taskId}", Success: noContent, Designed: true, Versioned: upstream.KindTask}, (*server).deleteTask},

		{Route{Method: get, Pattern: "/api/v1/metrics/{id}/values", Params: []string{"from", "to"}, Success: ok, Designed: true}, (*server).metricValues},
	}
}

func (s *server) createUserV1(w http.ResponseWriter, r *http.Request) (any, error) {
	return create(w, r, func(u upstream.User) string { return "/api/v1/users/" + u.ID },
		func(in upstream.UserInput) (upstream.User, error) { return s.api.CreateUser(r.Context(), in) })
}

func (s *server) createTaskV1(w http.ResponseWriter, r *http.Request) (any, error) {
	return create(w, r, func(t upstream.Task) string { return "/api/v1/tasks/" + t.ID },
		func(in upstream.TaskInput) (upstream.Task, error) { return s.api.CreateTask(r.Context(), in) })
}

// putTask is the platform's task update, PUT /api/v1/tasks/{id}, as its
// task integrations send it: the task document as they read it, changed.
// The fields it takes are updated as PATCH does, and a field it leaves out
// keeps its value (a PUT that cleared what a connector does not map would
// lose data); the document's read-only fields are ignored and named in the
// IgnoredFieldsHeader, as on a create (docs/platform-clients.md, "Compatibility").
func (s *server) putTask(w http.ResponseWriter, r *http.Request) (any, error) {
	id, err := pathID(r, "taskId", "task")
	if err != nil {
		return nil, err
	}
	var p upstream.TaskPatch
	if err := decodeInput(w, r, &p, reflect.TypeFor[upstream.Task]()); err != nil {
		return nil, err
	}
	return s.api.UpdateTask(r.Context(), id, p)
}

// MetricExpansions are the values of the expand parameter of
// GET /api/v1/metrics/{id}: tasks embeds the key result's tasks (those
// whose parent it is) in its tasks field, as fields=…,tasks does. Any other
// value is refused: an expansion silently left out would read as "none".
var MetricExpansions = []string{"tasks"}

// getMetric reads a key result; with expand=tasks, or a projection that
// names tasks, it carries its tasks.
func (s *server) getMetric(w http.ResponseWriter, r *http.Request) (any, error) {
	expand := CommaList(r.URL.Query().Get("expand"))
	for _, x := range expand {
		if !slices.Contains(MetricExpansions, x) {
			return nil, upstream.Invalid("expand", "%q cannot be expanded; use tasks", x)
		}
	}
	if r.URL.Query().Has("expand") && len(expand) == 0 {
		return nil, upstream.Invalid("expand", "give tasks")
	}
	v, err := one(r, "id", "metric", upstream.MetricFields, func(id string) (upstream.Metric, error) {
		return s.api.GetMetric(r.Context(), id)
	})
	if err != nil {
		return nil, err
	}
	sh := v.(shaped)
	m := sh.v.(upstream.Metric)
	sub, named := sh.view.proj["tasks"]
	if m.Obfuscated || !named && len(expand) == 0 {
		return sh, nil
	}
	f, err := query.ParseFilter(upstream.TaskFields, jsonFilter(`{"parentId":%s}`, m.ID))
	if err != nil {
		return nil, err
	}
	ts, err := listAll(upstream.ListQuery{Filter: f, Fields: sub, All: true}, func(q upstream.ListQuery) (upstream.Page[upstream.Task], error) {
		return s.api.ListTasks(r.Context(), q)
	})
	if err != nil {
		return nil, err
	}
	m.Tasks = ts
	sh.v = m
	return sh, nil
}

// metricValues is a key result's value history: one point per check-in
// whose date lies within from and to (each optional; a date-only to covers
// its day), oldest first, as {items, totalCount}. An unknown key result is
// 404 rather than an empty history.
func (s *server) metricValues(w http.ResponseWriter, r *http.Request) (any, error) {
	id, err := pathID(r, "id", "metric")
	if err != nil {
		return nil, err
	}
	q := r.URL.Query()
	lo, hi, toExclusive, err := upstream.ValueRange(q.Get("from"), q.Get("to"))
	if err != nil {
		return nil, err
	}
	if _, err := s.api.GetMetric(r.Context(), id); err != nil {
		return nil, err
	}
	conds := []string{jsonFilter(`{"metricId":%s}`, id)}
	if lo != "" {
		conds = append(conds, jsonFilter(`{"checkInDate":{"$gte":%s}}`, lo))
	}
	if hi != "" {
		op := "$lte"
		if toExclusive {
			op = "$lt"
		}
		conds = append(conds, jsonFilter(`{"checkInDate":{"`+op+`":%s}}`, hi))
	}
	var all []*query.Expr
	for _, c := range conds {
		e, err := query.ParseFilter(upstream.CheckInFields, c)
		if err != nil {
			return nil, err
		}
		all = append(all, e)
	}
	sort, err := query.ParseSort(upstream.CheckInFields, "checkInDate,dateCreated")
	if err != nil {
		return nil, err
	}
	cs, err := listAll(upstream.ListQuery{Filter: query.And(all...), Sort: sort, All: true}, func(q upstream.ListQuery) (upstream.Page[upstream.CheckIn], error) {
		return s.api.ListCheckIns(r.Context(), q)
	})
	if err != nil {
		return nil, err
	}
	vs := upstream.MetricValues(cs)
	return upstream.Page[upstream.MetricValue]{Items: vs, TotalCount: len(vs)}, nil
}

// listAll reads every match of q, paging on while the backend answers one
// page at a time (upstream.Complete); never nil.
func listAll[T any](q upstream.ListQuery, list func(upstream.ListQuery) (upstream.Page[T], error)) ([]T, error) {
	out := []T{}
	for {
		p, err := list(q)
		if err != nil {
			return nil, err
		}
		out = append(out, p.Items...)
		if upstream.Complete(q, p) {
			return out, nil
		}
		q.Skip += len(p.Items)
	}
}
