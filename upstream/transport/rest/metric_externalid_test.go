package rest_test

import "testing"

// TestMetricExternalID: a key result's externalId (its id in another
// system) is written on create and patch, read back, filtered and sorted on
// over REST, on SQLite and, when enabled, PostgreSQL; changing it is a
// change of structure, so a locked session refuses it.
func TestMetricExternalID(t *testing.T) {
	e := newEnv(t)
	s := e.seed()
	m := e.ok(req{method: "POST", path: "/api/v1/metrics", body: map[string]any{
		"name": "Signed deals", "goalId": s.child, "initialValue": 0, "target": 10, "externalId": "CRM-7"}}, 201)
	if str(m, "externalId") != "CRM-7" {
		t.Fatalf("created key result externalId %q, want CRM-7", str(m, "externalId"))
	}
	id := str(m, "id")
	if got := e.ok(req{method: "GET", path: "/api/v1/metrics/" + id}, 200); str(got, "externalId") != "CRM-7" {
		t.Fatalf("read externalId %q, want CRM-7", str(got, "externalId"))
	}
	e.ok(req{method: "PATCH", path: "/api/v1/metrics/" + id, body: map[string]any{"externalId": "CRM-8"}}, 200)
	e.ok(req{method: "PATCH", path: "/api/v1/metrics/" + id, body: map[string]any{"name": "Signed deals (EMEA)"}}, 200)
	page := e.ok(req{method: "GET", path: "/api/v2/metrics?fields=externalId,name&filter=" +
		filterQ(`{externalId: {$regex: "^CRM-"}}`)}, 200)
	if its := items(page); num(page, "totalCount") != 1 || len(its) != 1 || str(its[0], "id") != id ||
		str(its[0], "externalId") != "CRM-8" || str(its[0], "name") != "Signed deals (EMEA)" {
		t.Fatalf("filtered on externalId: %v, want the one key result with CRM-8 (a patch without it keeps it)", page)
	}
	page = e.ok(req{method: "GET", path: "/api/v2/metrics?sort=-externalId&limit=1"}, 200)
	if its := items(page); len(its) != 1 || str(its[0], "id") != id {
		t.Fatalf("sorted on -externalId: %v, want %s first", page, id)
	}
	e.ok(req{method: "PATCH", path: "/api/v1/sessions/" + s.session, body: map[string]any{"status": "locked"}}, 200)
	e.problem(req{method: "PATCH", path: "/api/v1/metrics/" + id, body: map[string]any{"externalId": "CRM-9"}}, 403, "session_locked")
	if got := e.ok(req{method: "GET", path: "/api/v1/metrics/" + id}, 200); str(got, "externalId") != "CRM-8" {
		t.Fatalf("a refused patch changed externalId to %q", str(got, "externalId"))
	}
}
