package rest

import (
	"net/http"
	"reflect"

	"github.com/go-chi/chi/v5"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/query"
)

// Query parameter sets.
var (
	listParams    = []string{"fields", "include", "sort", "filter", "skip", "limit", "take", "formatting"}
	groupByParams = []string{"filter", "ids", "ownerIds", "metricOwnerId", "confidence", "attainment",
		"metricBefore", "metricAfter", "metricAttainment", "sort", "includeMetrics", "skip", "take"}
	viewParams = []string{"fields", "formatting"}
)

// coreTable holds the OKR core: goals, key results, tasks and sessions.
func coreTable() []entry {
	const (
		get, post, patch, del  = http.MethodGet, http.MethodPost, http.MethodPatch, http.MethodDelete
		ok, created, noContent = http.StatusOK, http.StatusCreated, http.StatusNoContent
	)
	return []entry{
		// Objectives (goals).
		{Route{Method: get, Pattern: "/api/v2/integrations/goals", Operation: "ListGoals", Account: true, Params: listParams, Success: ok, Enriched: true}, (*server).listGoals},
		{Route{Method: get, Pattern: "/api/v2/integrations/goals/groupBy/owners", Account: true, Params: groupByParams, Success: ok}, (*server).goalsGroupedByOwners},
		{Route{Method: post, Pattern: "/api/v2/integrations/goals/{id}/tags", Success: created}, (*server).addGoalTag},
		{Route{Method: post, Pattern: "/api/v1/goals", Operation: "CreateGoal", Success: created, Designed: true}, (*server).createGoal},
		{Route{Method: get, Pattern: "/api/v1/goals/{id}", Operation: "GetGoal", Params: viewParams, Success: ok, Designed: true, Versioned: upstream.KindGoal}, (*server).getGoal},
		{Route{Method: patch, Pattern: "/api/v1/goals/{id}", Operation: "UpdateGoal", Success: ok, Designed: true, Versioned: upstream.KindGoal}, (*server).updateGoal},
		{Route{Method: del, Pattern: "/api/v1/goals/{id}", Operation: "DeleteGoal", Success: noContent, Designed: true, Versioned: upstream.KindGoal}, (*server).deleteGoal},

		// Key results (metrics).
		{Route{Method: get, Pattern: "/api/v2/metrics", Operation: "ListMetrics", Account: true, Params: listParams, Success: ok, Enriched: true}, (*server).listMetrics},
		{Route{Method: get, Pattern: "/api/v1/metrics/checkin/{checkinId}", Operation: "GetCheckInSnapshot", Account: true, Success: ok}, (*server).getCheckInSnapshot},
		{Route{Method: get, Pattern: "/api/v1/metrics/owner/{ownerId}", Account: true, Deprecated: true, Successor: "/api/v2/metrics", Params: []string{"formatting"}, Success: ok}, (*server).metricsByOwner},
		{Route{Method: post, Pattern: "/api/v1/metrics", Operation: "CreateMetric", Success: created, Designed: true}, (*server).createMetric},
		{Route{Method: get, Pattern: "/api/v1/metrics/{id}", Operation: "GetMetric", Params: []string{"fields", "formatting", "expand"}, Success: ok, Designed: true, Versioned: upstream.KindMetric}, (*server).getMetric},
		{Route{Method: patch, Pattern: "/api/v1/metrics/{id}", Operation: "UpdateMetric", Success: ok, Designed: true, Versioned: upstream.KindMetric}, (*server).updateMetric},
		{Route{Method: del, Pattern: "/api/v1/metrics/{id}", Operation: "DeleteMetric", Success: noContent, Designed: true, Versioned: upstream.KindMetric}, (*server).deleteMetric},
		{Route{Method: post, Pattern: "/api/v1/metrics/{id}/checkin", Operation: "CheckIn", Success: created, Designed: true}, (*server).checkIn},
		{Route{Method: get, Pattern: "/api/v1/metrics/{id}/checkins", Params: []string{"skip", "limit", "sort"}, Success: ok, Designed: true}, (*server).listCheckIns},

		// Tasks.
		{Route{Method: get, Pattern: "/api/v2/integrations/tasks", Operation: "ListTasks", Account: true, Params: listParams, Success: ok, Enriched: true}, (*server).listTasks},
		{Route{Method: get, Pattern: "/api/v2/integrations/tasks/{taskId}", Operation: "GetTask", Account: true, Params: []string{"formatting"}, Success: ok, Versioned: upstream.KindTask}, (*server).getTask},
		{Route{Method: post, Pattern: "/api/v2/integrations/tasks", Operation: "CreateTask", Account: true, Success: created}, (*server).createTask},
		{Route{Method: patch, Pattern: "/api/v2/integrations/tasks/{taskId}", Operation: "UpdateTask", Success: ok, Designed: true, Versioned: upstream.KindTask}, (*server).updateTask},
		{Route{Method: del, Pattern: "/api/v2/integrations/tasks/{taskId}", Operation: "DeleteTask", Success: noContent, Designed: true, Versioned: upstream.KindTask}, (*server).deleteTask},

		// Sessions.
		{Route{Method: get, Pattern: "/api/v2/sessions", Params: []string{"fields", "filter", "skip", "limit", "take", "includeDemo", "sort"}, Success: ok}, (*server).listSessions},
		{Route{Method: get, Pattern: "/api/v1/sessions/{id}/stats/goalsMet", Account: true, Params: []string{"tags"}, Success: ok}, (*server).goalsMet},
		{Route{Method: post, Pattern: "/api/v1/sessions", Operation: "CreateSession", Success: created, Designed: true}, (*server).createSession},
		{Route{Method: get, Pattern: "/api/v1/sessions/{id}", Operation: "GetSession", Success: ok, Designed: true, Versioned: upstream.KindSession}, (*server).getSession},
		{Route{Method: patch, Pattern: "/api/v1/sessions/{id}", Operation: "UpdateSession", Success: ok, Designed: true, Versioned: upstream.KindSession}, (*server).updateSession},
		{Route{Method: del, Pattern: "/api/v1/sessions/{id}", Operation: "DeleteSession", Success: noContent, Designed: true, Versioned: upstream.KindSession}, (*server).deleteSession},
	}
}

// table is the route table: every operation with its handler, in the order
// of the contract's sections.
func table() []entry {
	t := coreTable()
	t = append(t, orgTable()...)
	t = append(t, tokenTable()...)
	t = append(t, webhookTable()...)
	t = append(t, eventTable()...)
	t = append(t, contentTable()...)
	t = append(t, commentTable()...)
	t = append(t, gatewayTable()...)
	t = append(t, legacyTable()...)
	t = append(t, integrationTable()...)
	t = append(t, avatarTable()...)
	for i := range t {
		t[i].Idempotent = t[i].Method == http.MethodPost && !t[i].Secret
	}
	return t
}

func urlParam(r *http.Request, name string) string { return chi.URLParam(r, name) }

// nonNil makes an empty page encode its items as [] rather than null.
func nonNil[T any](p upstream.Page[T]) upstream.Page[T] {
	if p.Items == nil {
		p.Items = []T{}
	}
	return p
}

// listed runs a list operation with the parameters of r and shapes the page.
func listed[T any](r *http.Request, reg *query.Registry, list func(upstream.ListQuery) (upstream.Page[T], error)) (any, error) {
	lq, vw, err := parseList(r, reg, "limit")
	if err != nil {
		return nil, err
	}
	p, err := list(lq)
	if err != nil {
		return nil, err
	}
	return shaped{v: nonNil(p), view: vw, list: true}, nil
}

// one reads the resource whose id is the path parameter param and shapes it
// with the fields/formatting of r (reg nil: no projection offered).
func one[T any](r *http.Request, param, kind string, reg *query.Registry, get func(string) (T, error)) (any, error) {
	id, err := pathID(r, param, kind)
	if err != nil {
		return nil, err
	}
	vw, err := parseView(r, reg)
	if err != nil {
		return nil, err
	}
	v, err := get(id)
	if err != nil {
		return nil, err
	}
	return shaped{v: v, view: vw}, nil
}

// create decodes the body into an In — a field of Out that In does not take
// is ignored (decodeInput) — and calls the create operation; the Location
// header points at the new resource.
func create[In, Out any](w http.ResponseWriter, r *http.Request, location func(Out) string, op func(In) (Out, error)) (any, error) {
	var in In
	if err := decodeInput(w, r, &in, reflect.TypeFor[Out]()); err != nil {
		return nil, err
	}
	out, err := op(in)
	if err != nil {
		return nil, err
	}
	if location != nil {
		w.Header().Set("Location", location(out))
	}
	return out, nil
}

// update decodes the body into a Patch, strictly (a field it does not take
// is refused: an update that silently kept a field the client asked to
// change would lose its intent), and calls the update operation on the
// path id.
func update[P, Out any](w http.ResponseWriter, r *http.Request, param, kind string, op func(string, P) (Out, error)) (any, error) {
	id, err := pathID(r, param, kind)
	if err != nil {
		return nil, err
	}
	var p P
	if err := decodeBody(w, r, &p); err != nil {
		return nil, err
	}
	return op(id, p)
}

// remove calls the delete operation on the path id; the answer is 204.
func remove(r *http.Request, param, kind string, op func(string) error) (any, error) {
	id, err := pathID(r, param, kind)
	if err != nil {
		return nil, err
	}
	return nil, op(id)
}

// Goals.

func (s *server) listGoals(w http.ResponseWriter, r *http.Request) (any, error) {
	return listed(r, upstream.GoalFields, func(q upstream.ListQuery) (upstream.Page[upstream.Goal], error) {
		return s.api.ListGoals(r.Context(), q)
	})
}

func (s *server) goalsGroupedByOwners(w http.ResponseWriter, r *http.Request) (any, error) {
	q, err := ParseGroupByOwners(r.URL.Query())
	if err != nil {
		return nil, err
	}
	g, err := s.api.GoalsGroupedByOwners(r.Context(), q)
	if err != nil {
		return nil, err
	}
	if g.Items == nil {
		g.Items = []upstream.OwnerGoals{}
	}
	return g, nil
}

// addGoalTag answers 201 with the tag, or 304 (no body; the message in the
// X-Message header) when the goal already carried it — 200 with the tag
// under Prefer: return=representation (prefer.go).
func (s *server) addGoalTag(w http.ResponseWriter, r *http.Request) (any, error) {
	id, err := pathID(r, "id", "goal")
	if err != nil {
		return nil, err
	}
	var in struct {
		Title *string `json:"title"`
	}
	if err := decodeBody(w, r, &in); err != nil {
		return nil, err
	}
	if in.Title == nil {
		return nil, upstream.Invalid("title", "is required")
	}
	tag, added, err := s.api.AddGoalTag(r.Context(), id, *in.Title)
	if err != nil {
		return nil, err
	}
	switch {
	case added:
		return tag, nil
	case prefersRepresentation(r):
		return represented(w, tag), nil
	}
	return notModified("the goal already carries the tag"), nil
}

func (s *server) createGoal(w http.ResponseWriter, r *http.Request) (any, error) {
	return create(w, r, func(g goalRead) string { return "/api/v1/goals/" + g.ID },
		func(in upstream.GoalInput) (goalRead, error) { return readGoal(s.api.CreateGoal(r.Context(), in)) })
}

// getGoal reads an objective; the answer always carries metrics (also []
// for an objective without key results), as the real platform's does.
func (s *server) getGoal(w http.ResponseWriter, r *http.Request) (any, error) {
	return one(r, "id", "goal", upstream.GoalFields, func(id string) (goalRead, error) {
		return readGoal(s.api.GetGoal(r.Context(), id))
	})
}

// goalRead is an objective as GET /api/v1/goals/{id} (and the create and
// update that answer what it would) answers it: its metrics are written
// even when empty (upstream.Goal leaves an empty list out).
type goalRead struct {
	upstream.Goal
	Metrics []upstream.Metric `json:"metrics"`
}

// readGoal is g as a goalRead.
func readGoal(g upstream.Goal, err error) (goalRead, error) {
	if err != nil {
		return goalRead{}, err
	}
	if g.Metrics == nil {
		g.Metrics = []upstream.Metric{}
	}
	return goalRead{Goal: g, Metrics: g.Metrics}, nil
}

func (s *server) updateGoal(w http.ResponseWriter, r *http.Request) (any, error) {
	return update(w, r, "id", "goal", func(id string, p upstream.GoalPatch) (goalRead, error) {
		return readGoal(s.api.UpdateGoal(r.Context(), id, p))
	})
}

func (s *server) deleteGoal(w http.ResponseWriter, r *http.Request) (any, error) {
	return remove(r, "id", "goal", func(id string) error { return s.api.DeleteGoal(r.Context(), id) })
}

// Metrics.

func (s *server) listMetrics(w http.ResponseWriter, r *http.Request) (any, error) {
	return listed(r, upstream.MetricFields, func(q upstream.ListQuery) (upstream.Page[upstream.Metric], error) {
		return s.api.ListMetrics(r.Context(), q)
	})
}

func (s *server) getCheckInSnapshot(w http.ResponseWriter, r *http.Request) (any, error) {
	return one(r, "checkinId", "check-in", upstream.MetricFields, func(id string) (upstream.Metric, error) {
		return s.api.GetCheckInSnapshot(r.Context(), id)
	})
}

// metricsByOwner is the deprecated key-results-by-owner operation: the v2
// listing with the filter ownerId = id OR ownerIds ∋ id, all pages, answered
// as {items} only.
func (s *server) metricsByOwner(w http.ResponseWriter, r *http.Request) (any, error) {
	owner, err := pathID(r, "ownerId", "owner")
	if err != nil {
		return nil, err
	}
	vw, err := parseView(r, upstream.MetricFields)
	if err != nil {
		return nil, err
	}
	f, err := query.ParseFilter(upstream.MetricFields, jsonFilter(`{"$or":[{"ownerId":%s},{"ownerIds":%s}]}`, owner, owner))
	if err != nil {
		return nil, err
	}
	lq := upstream.ListQuery{Filter: f, Limit: upstream.MaxLimit}
	items := []upstream.Metric{}
	for {
		p, err := s.api.ListMetrics(r.Context(), lq)
		if err != nil {
			return nil, err
		}
		items = append(items, p.Items...)
		if len(p.Items) == 0 || len(items) >= p.TotalCount {
			break
		}
		lq.Skip += len(p.Items)
	}
	return shaped{v: struct {
		Items []upstream.Metric `json:"items"`
	}{items}, view: vw}, nil
}

func (s *server) createMetric(w http.ResponseWriter, r *http.Request) (any, error) {
	return create(w, r, func(m upstream.Metric) string { return "/api/v1/metrics/" + m.ID },
		func(in upstream.MetricInput) (upstream.Metric, error) { return s.api.CreateMetric(r.Context(), in) })
}

func (s *server) updateMetric(w http.ResponseWriter, r *http.Request) (any, error) {
	return update(w, r, "id", "metric", func(id string, p upstream.MetricPatch) (upstream.Metric, error) {
		return s.api.UpdateMetric(r.Context(), id, p)
	})
}

func (s *server) deleteMetric(w http.ResponseWriter, r *http.Request) (any, error) {
	return remove(r, "id", "metric", func(id string) error { return s.api.DeleteMetric(r.Context(), id) })
}

func (s *server) checkIn(w http.ResponseWriter, r *http.Request) (any, error) {
	id, err := pathID(r, "id", "metric")
	if err != nil {
		return nil, err
	}
	return create(w, r, func(c upstream.CheckIn) string { return "/api/v1/metrics/checkin/" + c.ID },
		func(in upstream.CheckInInput) (upstream.CheckIn, error) { return s.api.CheckIn(r.Context(), id, in) })
}

// listCheckIns lists the check-ins of one key result; an unknown key result
// is 404 rather than an empty list.
func (s *server) listCheckIns(w http.ResponseWriter, r *http.Request) (any, error) {
	id, err := pathID(r, "id", "metric")
	if err != nil {
		return nil, err
	}
	lq, vw, err := parseList(r, upstream.CheckInFields, "limit")
	if err != nil {
		return nil, err
	}
	if _, err := s.api.GetMetric(r.Context(), id); err != nil {
		return nil, err
	}
	if lq.Filter, err = query.ParseFilter(upstream.CheckInFields, jsonFilter(`{"metricId":%s}`, id)); err != nil {
		return nil, err
	}
	p, err := s.api.ListCheckIns(r.Context(), lq)
	if err != nil {
		return nil, err
	}
	return shaped{v: nonNil(p), view: vw, list: true}, nil
}

// Tasks.

func (s *server) listTasks(w http.ResponseWriter, r *http.Request) (any, error) {
	return listed(r, upstream.TaskFields, func(q upstream.ListQuery) (upstream.Page[upstream.Task], error) {
		return s.api.ListTasks(r.Context(), q)
	})
}

func (s *server) getTask(w http.ResponseWriter, r *http.Request) (any, error) {
	return one(r, "taskId", "task", upstream.TaskFields, func(id string) (upstream.Task, error) {
		return s.api.GetTask(r.Context(), id)
	})
}

func (s *server) createTask(w http.ResponseWriter, r *http.Request) (any, error) {
	return create(w, r, func(t upstream.Task) string { return "/api/v2/integrations/tasks/" + t.ID },
		func(in upstream.TaskInput) (upstream.Task, error) { return s.api.CreateTask(r.Context(), in) })
}

func (s *server) updateTask(w http.ResponseWriter, r *http.Request) (any, error) {
	return update(w, r, "taskId", "task", func(id string, p upstream.TaskPatch) (upstream.Task, error) {
		return s.api.UpdateTask(r.Context(), id, p)
	})
}

func (s *server) deleteTask(w http.ResponseWriter, r *http.Request) (any, error) {
	return remove(r, "taskId", "task", func(id string) error { return s.api.DeleteTask(r.Context(), id) })
}

// Sessions.

func (s *server) listSessions(w http.ResponseWriter, r *http.Request) (any, error) {
	demo, err := ParseBool(r.URL.Query(), "includeDemo")
	if err != nil {
		return nil, err
	}
	return listed(r, upstream.SessionFields, func(q upstream.ListQuery) (upstream.Page[upstream.Session], error) {
		return s.api.ListSessions(r.Context(), q, demo)
	})
}

func (s *server) goalsMet(w http.ResponseWriter, r *http.Request) (any, error) {
	id, err := pathID(r, "id", "session")
	if err != nil {
		return nil, err
	}
	goals, err := s.api.GoalsMet(r.Context(), id, CommaList(r.URL.Query().Get("tags")))
	if err != nil {
		return nil, err
	}
	if goals == nil {
		goals = []upstream.Goal{}
	}
	return struct {
		Items []upstream.Goal `json:"items"`
	}{goals}, nil
}

func (s *server) createSession(w http.ResponseWriter, r *http.Request) (any, error) {
	return create(w, r, func(x upstream.Session) string { return "/api/v1/sessions/" + x.ID },
		func(in upstream.SessionInput) (upstream.Session, error) { return s.api.CreateSession(r.Context(), in) })
}

func (s *server) getSession(w http.ResponseWriter, r *http.Request) (any, error) {
	return one(r, "id", "session", upstream.SessionFields, func(id string) (upstream.Session, error) {
		return s.api.GetSession(r.Context(), id)
	})
}

func (s *server) updateSession(w http.ResponseWriter, r *http.Request) (any, error) {
	return update(w, r, "id", "session", func(id string, p upstream.SessionPatch) (upstream.Session, error) {
		return s.api.UpdateSession(r.Context(), id, p)
	})
}

func (s *server) deleteSession(w http.ResponseWriter, r *http.Request) (any, error) {
	return remove(r, "id", "session", func(id string) error { return s.api.DeleteSession(r.Context(), id) })
}

// Teams and users.
