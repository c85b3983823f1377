package rest_test

import "testing"

// TestGoalExternalID: an objective's externalId (its id in another system)
// is written on create and patch, read back, filtered and sorted on over
// REST, on SQLite and, when enabled, PostgreSQL; changing it is a change of
// structure, so a locked session refuses it.
func TestGoalExternalID(t *testing.T) {
	e := newEnv(t)
	s := e.seed()
	g := e.ok(req{method: "POST", path: "/api/v1/goals", body: map[string]any{
		"name": "Ship v2", "sessionId": s.session, "externalId": "JIRA-42"}}, 201)
	if str(g, "externalId") != "JIRA-42" {
		t.Fatalf("created goal externalId %q, want JIRA-42", str(g, "externalId"))
	}
	id := str(g, "id")
	if got := e.ok(req{method: "GET", path: "/api/v1/goals/" + id}, 200); str(got, "externalId") != "JIRA-42" {
		t.Fatalf("read externalId %q, want JIRA-42", str(got, "externalId"))
	}
	e.ok(req{method: "PATCH", path: "/api/v1/goals/" + id, body: map[string]any{"externalId": "JIRA-43"}}, 200)
	e.ok(req{method: "PATCH", path: "/api/v1/goals/" + id, body: map[string]any{"name": "Ship v2.1"}}, 200)
	page := e.ok(req{method: "GET", path: "/api/v2/integrations/goals?fields=externalId,name&filter=" +
		filterQ(`{externalId: {$regex: "^JIRA-"}}`)}, 200)
	if its := items(page); num(page, "totalCount") != 1 || len(its) != 1 || str(its[0], "id") != id ||
		str(its[0], "externalId") != "JIRA-43" || str(its[0], "name") != "Ship v2.1" {
		t.Fatalf("filtered on externalId: %v, want the one goal with JIRA-43 (a patch without it keeps it)", page)
	}
	page = e.ok(req{method: "GET", path: "/api/v2/integrations/goals?sort=-externalId&limit=1"}, 200)
	if its := items(page); len(its) != 1 || str(its[0], "id") != id {
		t.Fatalf("sorted on -externalId: %v, want %s first", page, id)
	}
	e.ok(req{method: "PATCH", path: "/api/v1/sessions/" + s.session, body: map[string]any{"status": "locked"}}, 200)
	e.problem(req{method: "PATCH", path: "/api/v1/goals/" + id, body: map[string]any{"externalId": "JIRA-44"}}, 403, "session_locked")
	if got := e.ok(req{method: "GET", path: "/api/v1/goals/" + id}, 200); str(got, "externalId") != "JIRA-43" {
		t.Fatalf("a refused patch changed externalId to %q", str(got, "externalId"))
	}
}
