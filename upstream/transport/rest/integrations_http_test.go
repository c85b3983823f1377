package rest_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/okrgate/okrgate/upstream/transport/rest"
)

// walkIntegrations exercises the operations integrations call beyond the
// contract (integrations.go), each with valid input; TestContractWalk
// checks every route answered both ways.
func walkIntegrations(t *testing.T, e *env, s seed) {
	e.ok(req{method: "GET", path: "/api/v2/goals?take=5&sort=name"}, 200)
	e.ok(req{method: "GET", path: "/api/v2/tasks?limit=5"}, 200)
	u := e.ok(req{method: "POST", path: "/api/v1/users", body: map[string]any{"email": "walk@acme.test", "firstName": "Wal", "lastName": "Ker"}}, 201)
	e.problem(req{method: "POST", path: "/api/v1/users", body: map[string]any{"email": "not an address"}}, 400, "invalid_input")
	e.ok(req{method: "GET", path: "/api/v1/users?limit=1000&fields=id,name,email,firstName,lastName"}, 200)
	e.ok(req{method: "GET", path: "/api/v1/users/" + str(u, "id")}, 200)
	e.ok(req{method: "PATCH", path: "/api/v1/users/" + str(u, "id"), body: map[string]any{"lastName": "Kerr"}}, 200)
	task := e.ok(req{method: "POST", path: "/api/v1/tasks", body: map[string]any{"name": "Call", "parentId": s.metric, "parentType": "metric", "status": "todo"}}, 201)
	e.ok(req{method: "GET", path: "/api/v1/tasks/" + str(task, "id")}, 200)
	e.ok(req{method: "PATCH", path: "/api/v1/tasks/" + str(task, "id"), body: map[string]any{"status": "done"}}, 200)
	e.ok(req{method: "PUT", path: "/api/v1/tasks/" + str(task, "id"), body: map[string]any{"status": "inprogress", "id": str(task, "id")}}, 200)
	e.problem(req{method: "PUT", path: "/api/v1/tasks/" + str(task, "id"), body: map[string]any{"stauts": "done"}}, 400, "invalid_input")
	e.ok(req{method: "DELETE", path: "/api/v1/tasks/" + str(task, "id")}, 204)
	e.ok(req{method: "GET", path: "/api/v1/metrics/" + s.metric + "/values?from=2026-01-01"}, 200)
	e.problem(req{method: "GET", path: "/api/v1/metrics/" + s.metric + "/values?from=yesterday"}, 400, "invalid_input")
}

// TestV1Users: /api/v1/users lists, reads, creates and updates the same
// user documents as /api/v2/users; take pages like limit.
func TestV1Users(t *testing.T) {
	e := newEnv(t)
	u := e.ok(req{method: "POST", path: "/api/v1/users", body: map[string]any{"email": "ana@acme.test", "firstName": "Ana", "lastName": "Lee"}}, 201)
	id := str(u, "id")
	if r := e.do(req{method: "GET", path: "/api/v1/users/" + id}); r.status != 200 {
		t.Fatalf("read: %d %s", r.status, r.body)
	}
	v2 := e.ok(req{method: "GET", path: "/api/v2/users/" + id}, 200)
	v1 := e.ok(req{method: "GET", path: "/api/v1/users/" + id}, 200)
	if fmt.Sprint(v1) != fmt.Sprint(v2) {
		t.Errorf("v1 user %v\nv2 user %v", v1, v2)
	}
	e.ok(req{method: "PATCH", path: "/api/v1/users/" + id, body: map[string]any{"firstName": "Anna"}}, 200)
	if got := str(e.ok(req{method: "GET", path: "/api/v2/users/" + id}, 200), "firstName"); got != "Anna" {
		t.Errorf("firstName after the v1 update = %q", got)
	}
	page := e.ok(req{method: "GET", path: "/api/v1/users?take=1&sort=email&fields=id,email"}, 200)
	if len(items(page)) != 1 || num(page, "totalCount") < 2 {
		t.Errorf("take=1: %v", page)
	}
	all := e.ok(req{method: "GET", path: "/api/v1/users?limit=1000&filter=" + url.QueryEscape(`{email:"ana@acme.test"}`)}, 200)
	if len(items(all)) != 1 || str(items(all)[0], "id") != id {
		t.Errorf("filter by email: %v", all)
	}
	e.problem(req{method: "GET", path: "/api/v1/users?limit=5&take=5"}, 400, "invalid_input")
	e.problem(req{method: "GET", path: "/api/v1/users?take=1001"}, 400, "invalid_input")
	e.problem(req{method: "GET", path: "/api/v1/users/" + unknownID}, 404, "not_found")
}

// TestExporterRequests replays the report exporter's reads of users as its
// source builds them. Its bulk listing asks for displayName, which no user
// has: the projection leaves it out and names it in OKR-Ignored-Fields, as
// the platform leaves out a name its objects lack (the listing was a 400,
// and the exporter then read each owner one by one). A team that owns an
// objective is no user: /api/v1/users/{teamId} is 404, as on the platform,
// and the exporter names such an owner from the objective's assignee.
func TestExporterRequests(t *testing.T) {
	e := newEnv(t)
	s := e.seed()
	r := e.do(req{method: "GET", path: "/api/v1/users?limit=1000&fields=id,displayName,name,email,firstName,lastName"})
	if r.status != 200 || r.header.Get(rest.IgnoredFieldsHeader) != "fields.displayName" {
		t.Fatalf("the bulk listing: %d, %s %q: %s", r.status, rest.IgnoredFieldsHeader, r.header.Get(rest.IgnoredFieldsHeader), r.body)
	}
	us := items(r.json(t))
	if len(us) != 1 || str(us[0], "id") != e.acct.UserID || str(us[0], "email") == "" || str(us[0], "name") == "" || us[0]["displayName"] != nil || us[0]["language"] != nil {
		t.Errorf("the bulk listing's users: %v", us)
	}
	// Nested, and on a read: the path within the projection.
	r = e.do(req{method: "GET", path: "/api/v1/goals/" + s.child + "?fields=name,url,metrics{name,displayName},nosuch"})
	if got := r.header.Get(rest.IgnoredFieldsHeader); r.status != 200 || got != "fields.metrics.displayName, fields.nosuch" {
		t.Errorf("a read: %d, %s %q: %s", r.status, rest.IgnoredFieldsHeader, got, r.body)
	}
	if r := e.do(req{method: "GET", path: "/api/v1/users?fields=id,email"}); r.header.Get(rest.IgnoredFieldsHeader) != "" {
		t.Errorf("nothing ignored, yet %s %q", rest.IgnoredFieldsHeader, r.header.Get(rest.IgnoredFieldsHeader))
	}

	team := e.ok(req{method: "POST", path: "/api/v1/teams", body: map[string]any{"name": "Sales"}}, 201)
	g := e.ok(req{method: "POST", path: "/api/v1/goals", body: map[string]any{"name": "Grow", "sessionId": s.session, "ownerId": str(team, "id")}}, 201)
	e.problem(req{method: "GET", path: "/api/v1/users/" + str(g, "ownerId")}, 404, "not_found")
	if a, _ := g["assignee"].(map[string]any); str(a, "name") != "Sales" || str(a, "type") != "team" {
		t.Errorf("the team-owned objective's assignee: %v", g["assignee"])
	}
}

// TestPutTask: PUT /api/v1/tasks/{id} takes the task document as the
// platform's task connectors send it back — read, changed, with the
// platform's modifiedAt — updating the fields it takes, keeping those it
// leaves out, ignoring and naming the read-only ones; a typo is refused.
func TestPutTask(t *testing.T) {
	e := newEnv(t)
	s := e.seed()
	created := e.ok(req{method: "POST", path: "/api/v1/tasks", body: map[string]any{"name": "Call Acme", "description": "before Friday",
		"parentId": s.child, "parentType": "goal", "status": "todo", "ownerId": e.acct.UserID}}, 201)
	path := "/api/v1/tasks/" + str(created, "id")
	doc := e.ok(req{method: "GET", path: path}, 200)
	doc["name"], doc["status"], doc["priority"] = "Call Acme and Beta", "inprogress", 3
	doc["modifiedAt"], doc["customFields"] = "2026-01-01T00:00:00Z", map[string]any{"x": 1}
	r := e.do(req{method: "PUT", path: path, body: doc})
	if r.status != 200 {
		t.Fatalf("PUT the document as read: %d %s", r.status, r.body)
	}
	ignored := r.header.Get(rest.IgnoredFieldsHeader)
	for _, f := range []string{"id", "accountId", "dateCreated", "modifiedAt", "customFields", "assignee", "sessionId"} {
		if !slices.Contains(strings.Split(ignored, ", "), f) {
			t.Errorf("%s %q lacks %s", rest.IgnoredFieldsHeader, ignored, f)
		}
	}
	got := e.ok(req{method: "GET", path: path}, 200)
	if str(got, "name") != "Call Acme and Beta" || str(got, "status") != "inprogress" || num(got, "priority") != 3 || str(got, "description") != "before Friday" {
		t.Errorf("after the PUT: %v", got)
	}
	// A field left out keeps its value.
	e.ok(req{method: "PUT", path: path, body: map[string]any{"status": "done"}}, 200)
	if got := e.ok(req{method: "GET", path: path}, 200); str(got, "status") != "done" || str(got, "name") != "Call Acme and Beta" || str(got, "ownerId") != e.acct.UserID {
		t.Errorf("after a partial PUT: %v", got)
	}
	e.problem(req{method: "PUT", path: path, body: map[string]any{"stauts": "todo"}}, 400, "invalid_input")
	e.problem(req{method: "PUT", path: path, body: map[string]any{"status": "later"}}, 400, "invalid_input")
	e.problem(req{method: "PUT", path: "/api/v1/tasks/" + unknownID, body: map[string]any{"status": "done"}}, 404, "not_found")
	if got := e.ok(req{method: "GET", path: path}, 200); str(got, "status") != "done" {
		t.Errorf("a refused PUT changed the task: %v", got)
	}
}

// TestMetricTasksAndValues: a key result read with expand=tasks, or with a
// projection naming tasks, carries exactly its tasks (and no ETag); its
// value history lists its check-ins within from and to.
func TestMetricTasksAndValues(t *testing.T) {
	e := newEnv(t)
	s := e.seed()
	mine := e.ok(req{method: "POST", path: "/api/v1/tasks", body: map[string]any{"name": "Call Acme", "parentId": s.metric, "parentType": "metric"}}, 201)
	e.ok(req{method: "POST", path: "/api/v1/tasks", body: map[string]any{"name": "Other", "parentId": s.child, "parentType": "goal"}}, 201)

	r := e.do(req{method: "GET", path: "/api/v1/metrics/" + s.metric + "?expand=tasks"})
	if r.status != 200 || r.header.Get("ETag") != "" {
		t.Fatalf("expand=tasks: %d, ETag %q: %s", r.status, r.header.Get("ETag"), r.body)
	}
	m := e.ok(req{method: "GET", path: "/api/v1/metrics/" + s.metric + "?expand=tasks"}, 200)
	ts, _ := m["tasks"].([]any)
	if len(ts) != 1 || str(ts[0].(map[string]any), "id") != str(mine, "id") {
		t.Errorf("expand=tasks: tasks = %v", m["tasks"])
	}
	p := e.ok(req{method: "GET", path: "/api/v1/metrics/" + s.metric + "?fields=name,tasks{name,status}"}, 200)
	if ts, _ := p["tasks"].([]any); len(ts) != 1 || str(ts[0].(map[string]any), "name") != "Call Acme" {
		t.Errorf("fields=name,tasks{…}: %v", p)
	}
	plain := e.do(req{method: "GET", path: "/api/v1/metrics/" + s.metric})
	if plain.header.Get("ETag") == "" || jsonHas(t, plain.body, "tasks") {
		t.Errorf("a plain read has an ETag and no tasks: ETag %q, %s", plain.header.Get("ETag"), plain.body)
	}
	listed := e.ok(req{method: "GET", path: "/api/v2/metrics?fields=name,tasks{name}"}, 200)
	if ts, _ := items(listed)[0]["tasks"].([]any); len(ts) != 1 {
		t.Errorf("the listing with fields=…,tasks: %v", listed)
	}
	e.problem(req{method: "GET", path: "/api/v1/metrics/" + s.metric + "?expand=owners"}, 400, "invalid_input")

	// Value history: two check-ins today, one dated last year.
	today := time.Now().UTC()
	e.ok(req{method: "POST", path: "/api/v1/metrics/" + s.metric + "/checkin", body: map[string]any{"actual": 10, "checkInDate": today.AddDate(-1, 0, 0).Format(time.RFC3339)}}, 201)
	e.ok(req{method: "POST", path: "/api/v1/metrics/" + s.metric + "/checkin", body: map[string]any{"actual": 20}}, 201)
	e.ok(req{method: "POST", path: "/api/v1/metrics/" + s.metric + "/checkin", body: map[string]any{"actual": 30}}, 201)
	day := today.Format("2006-01-02")
	h := e.ok(req{method: "GET", path: "/api/v1/metrics/" + s.metric + "/values?from=" + today.AddDate(0, 0, -30).Format("2006-01-02") + "&to=" + day}, 200)
	var vals []float64
	for _, it := range items(h) {
		vals = append(vals, num(it, "value"))
	}
	if fmt.Sprint(vals) != "[20 30]" || num(h, "totalCount") != 2 {
		t.Errorf("the last 30 days: %v", h)
	}
	if all := e.ok(req{method: "GET", path: "/api/v1/metrics/" + s.metric + "/values"}, 200); num(all, "totalCount") != 3 || num(items(all)[0], "value") != 10 {
		t.Errorf("unbounded: %v", all)
	}
	e.problem(req{method: "GET", path: "/api/v1/metrics/" + s.metric + "/values?from=" + day + "&to=2001-01-01"}, 400, "invalid_input")
	e.problem(req{method: "GET", path: "/api/v1/metrics/" + unknownID + "/values"}, 404, "not_found")
}

// TestGoalReadCarriesMetrics: GET /api/v1/goals/{id} carries metrics, []
// for an objective without key results.
func TestGoalReadCarriesMetrics(t *testing.T) {
	e := newEnv(t)
	s := e.seed()
	g := e.ok(req{method: "GET", path: "/api/v1/goals/" + s.parent}, 200)
	if ms, ok := g["metrics"].([]any); !ok || len(ms) != 0 {
		t.Errorf("an objective without key results: metrics = %#v", g["metrics"])
	}
	g = e.ok(req{method: "GET", path: "/api/v1/goals/" + s.child}, 200)
	if ms, ok := g["metrics"].([]any); !ok || len(ms) != 1 {
		t.Errorf("an objective with one key result: metrics = %#v", g["metrics"])
	}
}

// jsonHas reports whether the JSON object body has the key k.
func jsonHas(t *testing.T, body []byte, k string) bool {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("not a JSON object: %s", body)
	}
	_, ok := m[k]
	return ok
}
