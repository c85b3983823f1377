package rest_test

import (
	"strings"
	"testing"
)

// walkComments comments on the seed's key result, lists the comment,
// refuses a comment without text and one on no key result, and deletes it
// (TestContractWalk).
func walkComments(t *testing.T, e *env, s seed) {
	t.Helper()
	c := e.ok(req{method: "POST", path: "/api/v1/comments", body: map[string]any{
		"targetType": "metric", "targetId": s.metric, "text": "Shipped the EMEA pilot"}}, 201)
	id := str(c, "id")
	if id == "" || str(c, "text") != "Shipped the EMEA pilot" {
		t.Errorf("walk: created comment %v", c)
	}
	list := e.ok(req{method: "GET", path: "/api/v1/comments?filter=" + `{"targetId":"` + s.metric + `"}`}, 200)
	if !strings.Contains(string(mustJSON(t, list)), id) {
		t.Errorf("walk: the listing of the key result's comments lacks %s: %v", id, list)
	}
	e.problem(req{method: "POST", path: "/api/v1/comments", body: map[string]any{
		"targetType": "metric", "targetId": s.metric, "text": ""}}, 400, "invalid_input")
	e.problem(req{method: "DELETE", path: "/api/v1/comments/" + unknownID}, 404, "not_found")
	e.ok(req{method: "DELETE", path: "/api/v1/comments/" + id}, 204)
}
