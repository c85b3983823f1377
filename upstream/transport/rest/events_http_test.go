package rest_test

import (
	"fmt"
	"testing"
)

// walkEvents exercises the event feed with valid and invalid input (part
// of TestContractWalk: every answer is checked against the OpenAPI
// document).
func walkEvents(t *testing.T, e *env) {
	t.Helper()
	feed := e.ok(req{method: "GET", path: "/api/v2/events?after=0&limit=5"}, 200)
	if len(items(feed)) == 0 || num(feed, "head") < num(items(feed)[len(items(feed))-1], "position") {
		t.Errorf("the feed after the walk's writes: %v", feed)
	}
	if head := e.ok(req{method: "GET", path: "/api/v2/events?limit=0"}, 200); len(items(head)) != 0 || num(head, "head") == 0 {
		t.Errorf("limit=0: %v, want the head only", head)
	}
	for _, q := range []string{"limit=501", "limit=-1", "after=-1", "after=x"} {
		e.problem(req{method: "GET", path: "/api/v2/events?" + q}, 400, "invalid_input")
	}
}

// TestEventFeedAsTheCallerSeesIt: a viewer's feed hides the events of a
// private goal (only their positions remain) and of a deleted goal, and
// otherwise has the admin's events at the same positions; after and
// limit page through it, and head is the log's last position.
func TestEventFeedAsTheCallerSeesIt(t *testing.T) {
	e := newAuthzEnv(t)
	ss := e.ok(req{method: "POST", path: "/api/v1/sessions", body: map[string]any{"title": "Q1", "start": "2027-01-01", "end": "2027-03-31"}}, 201)
	start := num(e.ok(req{method: "GET", path: "/api/v2/events?limit=0"}, 200), "head")
	open := e.ok(req{method: "POST", path: "/api/v1/goals", body: map[string]any{"name": "Open", "sessionId": str(ss, "id")}}, 201)
	secret := e.ok(req{method: "POST", path: "/api/v1/goals", body: map[string]any{"name": "Secret", "sessionId": str(ss, "id"), "private": true}}, 201)
	gone := e.ok(req{method: "POST", path: "/api/v1/goals", body: map[string]any{"name": "Gone", "sessionId": str(ss, "id")}}, 201)
	e.ok(req{method: "DELETE", path: "/api/v1/goals/" + str(gone, "id")}, 204)

	read := func(as *string, after float64, limit int) map[string]any {
		return e.ok(req{method: "GET", path: fmt.Sprintf("/api/v2/events?after=%v&limit=%d", after, limit), token: as}, 200)
	}
	admin, viewer := read(nil, start, 100), read(&e.viewer.Token, start, 100)
	a, v := items(admin), items(viewer)
	if len(a) == 0 || len(a) != len(v) || num(admin, "head") != num(viewer, "head") || num(admin, "head") != num(a[len(a)-1], "position") {
		t.Fatalf("admin's feed %v\nviewer's feed %v: want the same positions and head", admin, viewer)
	}
	seen := map[string]string{} // item → what the viewer saw of it
	hiddenToAll := 0
	for i := range a {
		if a[i]["position"] != v[i]["position"] || (i > 0 && num(a[i], "position") <= num(a[i-1], "position")) {
			t.Fatalf("position %d: admin %v, viewer %v", i, a[i], v[i])
		}
		item := str(a[i], "itemId")
		switch {
		case a[i]["hidden"] == true:
			// The deleted goal's events: who could read it is no longer known.
			if v[i]["hidden"] != true || len(a[i]) != 2 {
				t.Errorf("position %v: admin %v, viewer %v; want both hidden", a[i]["position"], a[i], v[i])
			}
			hiddenToAll++
		case v[i]["hidden"] == true:
			if len(v[i]) != 2 {
				t.Errorf("a hidden event tells more than its position: %v", v[i])
			}
			seen[item] = "hidden"
		default:
			if v[i]["itemId"] != item || v[i]["type"] != a[i]["type"] {
				t.Errorf("position %v: the viewer sees %v, the admin %v", a[i]["position"], v[i], a[i])
			}
			seen[item] = str(v[i], "type")
		}
	}
	if seen[str(open, "id")] != "goal.created" || seen[str(secret, "id")] != "hidden" || seen[str(gone, "id")] != "" || hiddenToAll < 2 {
		t.Errorf("what the viewer saw, by item: %v, and %d events hidden to both; want the open goal, neither the private nor the deleted one (created and deleted: hidden to both)", seen, hiddenToAll)
	}
	for _, it := range a {
		if it["type"] == "goal.deleted" {
			t.Errorf("a deletion is shown: %v", it)
		}
	}

	// Paging: after the first event, one at a time.
	page := read(&e.viewer.Token, num(a[0], "position"), 1)
	if got := items(page); len(got) != 1 || got[0]["position"] != a[1]["position"] {
		t.Errorf("after=%v&limit=1: %v, want position %v", a[0]["position"], page, a[1]["position"])
	}
	if rest := read(nil, num(admin, "head"), 100); len(items(rest)) != 0 {
		t.Errorf("after the head: %v", rest)
	}
	// Another account's log is its own.
	if other := e.ok(req{method: "GET", path: "/api/v2/events?after=0", token: &e.other.Token, acct: ptr("")}, 200); len(items(other)) != 0 {
		t.Errorf("another account's feed holds Acme's events: %v", other)
	}
}
