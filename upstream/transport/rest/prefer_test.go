package rest_test

import (
	"testing"
)

// TestPreferRepresentation: with Prefer: return=representation, updating a
// badge, rejecting an assignment and re-tagging a goal answer 200 with the
// item (and Preference-Applied) instead of 204 or 304; without it, the
// body-less answers stay.
func TestPreferRepresentation(t *testing.T) {
	e := newEnv(t)
	s := e.seed()
	prefer := map[string]string{"Prefer": "respond-async, return=representation; foo=bar"}
	applied := func(q req, want string) map[string]any {
		t.Helper()
		r := e.do(q)
		if r.status != 200 || r.header.Get("Preference-Applied") != "return=representation" {
			t.Fatalf("%s %s with Prefer: %d %q %s", q.method, q.path, r.status, r.header.Get("Preference-Applied"), r.body)
		}
		m := r.json(t)
		if want != "" && str(m, "name") != want && str(m, "status") != want && str(m, "title") != want {
			t.Errorf("%s %s with Prefer: %v, want %q", q.method, q.path, m, want)
		}
		return m
	}

	bdg := e.ok(req{method: "POST", path: "/api/v1/badges", body: map[string]any{"name": "Closer", "summary": "closed a deal", "icon": "star"}}, 201)
	bp := "/api/v1/badges/" + str(bdg, "id")
	e.ok(req{method: "PATCH", path: bp, body: map[string]any{"summary": "a"}}, 204)
	if b := applied(req{method: "PATCH", path: bp, body: map[string]any{"summary": "b"}, header: prefer}, "Closer"); str(b, "summary") != "b" {
		t.Errorf("badge after PATCH with Prefer: %v", b)
	}

	asg := e.ok(req{method: "POST", path: "/api/v1/badges/assign", body: map[string]any{"badgeId": str(bdg, "id"), "assigneeIds": []string{e.acct.UserID}}}, 200)
	applied(req{method: "DELETE", path: "/api/v1/badges/approve/" + str(asg, "id"), header: prefer}, "rejected")
	asg2 := e.ok(req{method: "POST", path: "/api/v1/badges/assign", body: map[string]any{"badgeId": str(bdg, "id"), "assigneeIds": []string{e.acct.UserID}}}, 200)
	e.ok(req{method: "DELETE", path: "/api/v1/badges/approve/" + str(asg2, "id")}, 204)

	tags := "/api/v2/integrations/goals/" + s.child + "/tags"
	e.ok(req{method: "POST", path: tags, body: map[string]any{"title": "Prefer"}, header: prefer}, 201)
	e.ok(req{method: "POST", path: tags, body: map[string]any{"title": "Prefer"}}, 304)
	applied(req{method: "POST", path: tags, body: map[string]any{"title": "Prefer"}, header: prefer}, "Prefer")
	// Other preferences are ignored (RFC 7240).
	e.ok(req{method: "POST", path: tags, body: map[string]any{"title": "Prefer"}, header: map[string]string{"Prefer": "return=minimal"}}, 304)
}
