package rest_test

import "testing"

// TestGoalExternalSystem: an objective's externalSystem (the system its
// externalId belongs to, as on tasks) is written on create and patch, read
// back, projected, filtered and sorted on over REST, on SQLite and, when
// enabled, PostgreSQL; changing it is a change of structure (it carries no
// session:"progress" tag), so a locked session refuses it.
func TestGoalExternalSystem(t *testing.T) {
	e := newEnv(t)
	s := e.seed()
	g := e.ok(req{method: "POST", path: "/api/v1/goals", body: map[string]any{
		"name": "Ship v2", "sessionId": s.session, "externalId": "OPS-1", "externalSystem": "jira"}}, 201)
	if str(g, "externalSystem") != "jira" {
		t.Fatalf("created goal externalSystem %q, want jira", str(g, "externalSystem"))
	}
	id := str(g, "id")
	if got := e.ok(req{method: "GET", path: "/api/v1/goals/" + id}, 200); str(got, "externalSystem") != "jira" {
		t.Fatalf("read externalSystem %q, want jira", str(got, "externalSystem"))
	}
	e.ok(req{method: "PATCH", path: "/api/v1/goals/" + id, body: map[string]any{"externalSystem": "linear"}}, 200)
	e.ok(req{method: "PATCH", path: "/api/v1/goals/" + id, body: map[string]any{"name": "Ship v2.1"}}, 200)
	page := e.ok(req{method: "GET", path: "/api/v2/integrations/goals?fields=externalSystem,name&filter=" +
		filterQ(`{externalSystem: "linear"}`)}, 200)
	if its := items(page); num(page, "totalCount") != 1 || len(its) != 1 || str(its[0], "id") != id ||
		str(its[0], "externalSystem") != "linear" || str(its[0], "name") != "Ship v2.1" {
		t.Fatalf("filtered on externalSystem: %v, want the one goal with linear (a patch without it keeps it)", page)
	}
	page = e.ok(req{method: "GET", path: "/api/v2/integrations/goals?sort=-externalSystem&limit=1"}, 200)
	if its := items(page); len(its) != 1 || str(its[0], "id") != id {
		t.Fatalf("sorted on -externalSystem: %v, want %s first", page, id)
	}
	e.ok(req{method: "PATCH", path: "/api/v1/sessions/" + s.session, body: map[string]any{"status": "locked"}}, 200)
	e.problem(req{method: "PATCH", path: "/api/v1/goals/" + id, body: map[string]any{"externalSystem": "asana"}}, 403, "session_locked")
	if got := e.ok(req{method: "GET", path: "/api/v1/goals/" + id}, 200); str(got, "externalSystem") != "linear" {
		t.Fatalf("a refused patch changed externalSystem to %q", str(got, "externalSystem"))
	}
}
