package rest_test

import "testing"

// TestSessionsFilteredOnCadenceType: a session's cadenceType is in the
// session registry, so the listing filters and sorts on it.
func TestSessionsFilteredOnCadenceType(t *testing.T) {
	e := newEnv(t)
	monthly := e.ok(req{method: "POST", path: "/api/v1/sessions", body: map[string]any{
		"title": "May", "start": "2026-05-01T00:00:00.000Z", "end": "2026-05-31T00:00:00.000Z", "cadenceType": "MONTHLY"}}, 201)
	e.ok(req{method: "POST", path: "/api/v1/sessions", body: map[string]any{
		"title": "2026", "start": "2026-01-01T00:00:00.000Z", "end": "2026-12-31T00:00:00.000Z", "cadenceType": "YEARLY"}}, 201)
	page := e.ok(req{method: "GET", path: "/api/v2/sessions?filter=" + filterQ(`{cadenceType: "MONTHLY"}`)}, 200)
	if its := items(page); len(its) != 1 || str(its[0], "id") != str(monthly, "id") {
		t.Fatalf("sessions with cadenceType MONTHLY: %v, want only %s", page, str(monthly, "id"))
	}
	page = e.ok(req{method: "GET", path: "/api/v2/sessions?sort=cadenceType&fields=cadenceType"}, 200)
	if its := items(page); len(its) < 2 || str(its[0], "cadenceType") > str(its[len(its)-1], "cadenceType") {
		t.Fatalf("sessions sorted on cadenceType: %v", page)
	}
}
