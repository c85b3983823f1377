package rest_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/okrgate/okrgate/upstream"
)

// TestTextLimits: a 250,000-character goal description — created or
// patched — and an over-long check-in comment are refused with a 400 naming
// the field and the limit, and nothing is written; text at its limit is
// accepted and can be filtered with $regex.
func TestTextLimits(t *testing.T) {
	e := newEnv(t)
	s := e.seed()
	before := e.counts(s)
	huge := strings.Repeat("a", 250000)
	for _, q := range []req{
		{method: "POST", path: "/api/v1/goals", body: map[string]any{"name": "Huge", "sessionId": s.session, "description": huge}},
		{method: "PATCH", path: "/api/v1/goals/" + s.child, body: map[string]any{"description": huge}},
		{method: "POST", path: "/api/v1/goals", body: map[string]any{"name": strings.Repeat("n", upstream.MaxNameLength+1), "sessionId": s.session}},
		{method: "POST", path: "/api/v1/metrics/" + s.metric + "/checkin", body: map[string]any{"actual": 5, "comment": strings.Repeat("c", upstream.MaxCommentLength+1)}},
	} {
		p := e.problem(q, 400, "invalid_input")
		errs, _ := p["errors"].([]any)
		first, _ := errs[0].(map[string]any)
		msg, _ := first["message"].(string)
		if len(errs) != 1 || !strings.Contains(msg, "must be at most") {
			t.Errorf("%s %s: %v, want the field and its limit", q.method, q.path, p)
		}
	}
	if after := e.counts(s); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("refused writes wrote: %v, then %v", before, after)
	}
	atLimit := strings.Repeat("a", upstream.MaxDescriptionLength)
	g := e.ok(req{method: "POST", path: "/api/v1/goals", body: map[string]any{"name": "Long", "sessionId": s.session, "description": atLimit}}, 201)
	list := e.ok(req{method: "GET", path: "/api/v2/integrations/goals?fields=id&filter=" + url.QueryEscape(`{"description":{"$regex":"^a{20}"}}`)}, 200)
	if got := items(list); len(got) != 1 || got[0]["id"] != g["id"] {
		t.Errorf("regex over a description at the limit: %v", list)
	}
}
