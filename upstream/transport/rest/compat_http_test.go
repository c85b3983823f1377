package rest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/okrgate/okrgate/upstream/transport/rest"
)

// TestAccountHeaderAlias: gtmhub-accountId, the real platform's account
// header, in any letter case, behaves exactly like service-accountId — the
// same status and the same body (but for the request id) for a read, a
// listing that requires the header, a write, another account's id and a
// malformed one; and when neither is sent an operation that requires one
// answers 400 account_header_missing.
func TestAccountHeaderAlias(t *testing.T) {
	e := newEnv(t)
	s := e.seed()
	none := ptr("")
	cases := []struct {
		name   string
		q      req
		acct   string // the value of the account header
		status int
	}{
		{"listing", req{method: "GET", path: "/api/v2/metrics?fields=name,actual"}, e.acct.AccountID, 200},
		{"read", req{method: "GET", path: "/api/v1/goals/" + s.child}, e.acct.AccountID, 200},
		{"v1 listing", req{method: "GET", path: "/api/v1/sessions?filter=past&status=open"}, e.acct.AccountID, 200},
		{"write", req{method: "PATCH", path: "/api/v1/goals/" + s.child, body: map[string]any{"description": "same"}}, e.acct.AccountID, 200},
		{"another account", req{method: "GET", path: "/api/v2/metrics"}, e.other.AccountID, 403},
		{"another account, write", req{method: "POST", path: "/api/v1/metrics/" + s.metric + "/checkin", body: map[string]any{"actual": 1}}, e.other.AccountID, 403},
		{"not an account", req{method: "GET", path: "/api/v2/integrations/tasks"}, "nope", 403},
	}
	for _, c := range cases {
		c.q.acct = none
		c.q.header = map[string]string{"service-accountId": c.acct}
		want := e.do(c.q)
		if want.status != c.status {
			t.Fatalf("%s with service-accountId: %d, want %d: %s", c.name, want.status, c.status, want.body)
		}
		for _, name := range []string{"gtmhub-accountId", "gtmhub-accountid", "Gtmhub-AccountId", "GTMHUB-ACCOUNTID"} {
			c.q.header = nil
			c.q.rawHeader = map[string]string{name: c.acct}
			got := e.do(c.q)
			// A write's answer carries its own modification time: reads
			// and refusals are compared whole, writes by status.
			same := got.status == want.status
			if c.q.method == http.MethodGet || want.status >= 400 {
				same = same && bytes.Equal(withoutRequestID(t, got.body), withoutRequestID(t, want.body))
			}
			if !same {
				t.Errorf("%s with %s: %d %s\nwith service-accountId: %d %s", c.name, name, got.status, got.body, want.status, want.body)
			}
		}
	}
	// Neither header: the operations the contract marks Acct refuse.
	e.problem(req{method: "GET", path: "/api/v2/metrics", acct: none}, 400, "account_header_missing")
	e.ok(req{method: "GET", path: "/api/v2/metrics", acct: none, rawHeader: map[string]string{"gtmhub-accountid": e.acct.AccountID}}, 200)
}

// withoutRequestID returns body with a problem's requestId removed (it
// differs on every request).
func withoutRequestID(t *testing.T, body []byte) []byte {
	t.Helper()
	var m map[string]any
	if json.Unmarshal(body, &m) != nil || m["requestId"] == nil {
		return body
	}
	delete(m, "requestId")
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestV1Listings: the v1 listings the real platform's clients call answer
// the v2 listing's page, narrowed by their named filters and property
// parameters; relaxed filters (unquoted keys, single quotes, "+" for a
// space) work; bad values are 400 naming the parameter.
func TestV1Listings(t *testing.T) {
	e := newEnv(t)
	s := e.seed() // its session is 2026 H1
	year := time.Now().UTC().Year()
	mk := func(title string, from, to int, status string) string {
		body := map[string]any{"title": title, "start": fmt.Sprintf("%d-01-01", from), "end": fmt.Sprintf("%d-12-31", to)}
		ss := e.ok(req{method: "POST", path: "/api/v1/sessions", body: body}, 201)
		if status != "open" {
			e.ok(req{method: "PATCH", path: "/api/v1/sessions/" + str(ss, "id"), body: map[string]any{"status": status}}, 200)
		}
		return str(ss, "id")
	}
	past := mk("Long ago", 2001, 2001, "open")
	current := mk("This year", year-1, year+1, "open")
	currentLocked := mk("This year, locked", year-1, year+1, "locked")
	future := mk("Far ahead", 2998, 2999, "open")

	titles := func(path string) []string {
		t.Helper()
		var out []string
		for _, it := range items(e.ok(req{method: "GET", path: path}, 200)) {
			out = append(out, str(it, "title"))
		}
		return out
	}
	ids := func(path string) string {
		t.Helper()
		var out []string
		for _, it := range items(e.ok(req{method: "GET", path: path}, 200)) {
			out = append(out, str(it, "id"))
		}
		return strings.Join(out, ",")
	}
	if got := ids("/api/v1/sessions?filter=current&status=open&sort=title"); got != current {
		t.Errorf("current open sessions: %s, want %s (%v)", got, current, titles("/api/v1/sessions?filter=current&status=open"))
	}
	if got := ids("/api/v1/sessions?filter=current&sort=title"); got != current+","+currentLocked {
		t.Errorf("current sessions: %s, want %s,%s", got, current, currentLocked)
	}
	if got := ids("/api/v1/sessions?filter=future"); got != future {
		t.Errorf("future sessions: %s, want %s", got, future)
	}
	if got := ids("/api/v1/sessions?filter=past&sort=start"); !strings.HasPrefix(got, past) || strings.Contains(got, current) || strings.Contains(got, future) {
		t.Errorf("past sessions: %s, want %s first, not %s nor %s", got, past, current, future)
	}
	if got := ids("/api/v1/sessions?status=locked,closed"); got != currentLocked {
		t.Errorf("locked or closed sessions: %s, want %s", got, currentLocked)
	}
	// A filter in the filter language, relaxed: single quotes, unquoted
	// keys, "+" for the space in the title.
	if got := ids("/api/v1/sessions?filter={title:'Far+ahead'}"); got != future {
		t.Errorf("relaxed filter: %s, want %s", got, future)
	}
	e.problem(req{method: "GET", path: "/api/v1/sessions?status=archived"}, 400, "invalid_input")
	e.problem(req{method: "GET", path: "/api/v1/sessions?filter=soon"}, 400, "invalid_filter")

	// Objectives, key results and tasks by property parameters.
	if got := ids("/api/v1/goals?sessionId=" + s.session + "&sort=name"); got != s.parent+","+s.child {
		t.Errorf("goals of the session: %s, want %s,%s", got, s.parent, s.child)
	}
	if got := ids("/api/v1/goals?parentId=" + s.parent); got != s.child {
		t.Errorf("children: %s, want %s", got, s.child)
	}
	if got := ids("/api/v1/goals?sessionId=" + future); got != "" {
		t.Errorf("goals of an empty session: %s", got)
	}
	if got := ids("/api/v1/metrics?goalId=" + s.child + "&fields=name"); got != s.metric {
		t.Errorf("key results of the goal: %s, want %s", got, s.metric)
	}
	task := e.ok(req{method: "POST", path: "/api/v2/integrations/tasks", body: map[string]any{"name": "Call Bo", "parentId": s.child, "parentType": "goal", "status": "todo"}}, 201)
	if got := ids("/api/v1/tasks?filter=" + url.QueryEscape(`{parentId:'`+s.child+`', status:{$in:['todo','inprogress']}}`)); got != str(task, "id") {
		t.Errorf("tasks by filter: %s, want %s", got, str(task, "id"))
	}
	if got := ids("/api/v1/tasks?status=done"); got != "" {
		t.Errorf("done tasks: %s", got)
	}
	p := e.problem(req{method: "GET", path: "/api/v1/metrics?goalId=" + s.child + "&bogus=1"}, 400, "unknown_parameter")
	if !strings.Contains(str(p, "detail"), "bogus") {
		t.Errorf("unknown parameter not named: %v", p)
	}
}

// TestPlatformCLIRequests replays, over real HTTP, the requests of the real
// platform's command-line client (its public source, gtmhub_client/*.go:
// the account in a lower-case gtmhub-accountid header, filters built with
// fmt and url.QueryEscape, a check-in body without a Content-Type), for its
// everyday commands: "status" and "get krs" (the current open sessions,
// then the caller's key results in them) and "update" (a check-in).
func TestPlatformCLIRequests(t *testing.T) {
	e := newEnv(t)
	year := time.Now().UTC().Year()
	ss := e.ok(req{method: "POST", path: "/api/v1/sessions", body: map[string]any{
		"title": "Now", "start": fmt.Sprintf("%d-01-01", year-1), "end": fmt.Sprintf("%d-12-31", year+1)}}, 201)
	g := e.ok(req{method: "POST", path: "/api/v1/goals", body: map[string]any{"name": "Ship", "sessionId": str(ss, "id"), "ownerId": e.acct.UserID}}, 201)
	m := e.ok(req{method: "POST", path: "/api/v1/metrics", body: map[string]any{"name": "Releases", "goalId": str(g, "id"), "target": 4, "ownerId": e.acct.UserID}}, 201)

	cli := func(method, path string, body []byte) []byte {
		t.Helper()
		r, err := http.NewRequest(method, e.srv.URL+path, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		r.Header.Add("Authorization", "Bearer "+e.acct.Token)
		r.Header["gtmhub-accountid"] = []string{e.acct.AccountID} // as http.Header.Add would not spell it
		res, err := e.srv.Client().Do(r)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode > 300 { // the client's own test of success
			t.Fatalf("%s %s: %d %s", method, path, res.StatusCode, b)
		}
		return b
	}
	// GetActiveSessionsIDs.
	var sessions struct{ Items []struct{ ID string } }
	if err := json.Unmarshal(cli(http.MethodGet, "/api/v1/sessions?filter=current&status=open", nil), &sessions); err != nil || len(sessions.Items) != 1 || sessions.Items[0].ID != str(ss, "id") {
		t.Fatalf("current open sessions: %+v %v", sessions, err)
	}
	// GetMetricsInCurrentSession: the filter as the client formats it.
	filter := url.QueryEscape(fmt.Sprintf("{sessionId:{$in:%s}, ownerId:\"%s\"}", `["`+sessions.Items[0].ID+`"]`, e.acct.UserID))
	var metrics struct {
		Items []struct {
			ID, Name        string
			Actual, Target  float64
			LastCheckInDate time.Time
		}
	}
	if err := json.Unmarshal(cli(http.MethodGet, "/api/v2/metrics?filter="+filter, nil), &metrics); err != nil || len(metrics.Items) != 1 || metrics.Items[0].ID != str(m, "id") || metrics.Items[0].Target != 4 {
		t.Fatalf("my key results: %+v %v", metrics, err)
	}
	// UpdateMetric: json.Marshal of its request type, no Content-Type.
	now := time.Now()
	body, _ := json.Marshal(struct {
		Actual      float64    `json:"actual"`
		CheckInDate *time.Time `json:"checkInDate"`
		Comment     string     `json:"comment"`
		Confidence  *float64   `json:"confidence"`
	}{Actual: 2, CheckInDate: &now, Comment: "two out"})
	cli(http.MethodPost, "/api/v1/metrics/"+str(m, "id")+"/checkin", body)
	if got := e.ok(req{method: "GET", path: "/api/v1/metrics/" + str(m, "id") + "?fields=actual"}, 200); num(got, "actual") != 2 {
		t.Errorf("after the check-in: %v", got)
	}
}

// walkLegacy calls the v1 listings with valid input, for the contract walk.
func walkLegacy(t *testing.T, e *env, s seed) {
	for _, path := range []string{
		"/api/v1/sessions?filter=current&status=open",
		"/api/v1/goals?sessionId=" + s.session,
		"/api/v1/metrics?goalId=" + s.child,
		"/api/v1/tasks?filter=" + url.QueryEscape(`{status:'todo'}`),
	} {
		e.ok(req{method: "GET", path: path}, 200)
	}
}

// walkProjections asks every GET operation that takes fields= for a
// projection — a top-level field, and nested ones where the resource embeds
// others — so that the conformance transport validates each projected
// answer against the document as it is (no relaxed copy of it).
func walkProjections(t *testing.T, e *env, s seed) {
	kpi := str(e.ok(req{method: "POST", path: "/api/v1/kpis", body: map[string]any{"name": "Churn"}}, 201), "id")
	task := str(e.ok(req{method: "POST", path: "/api/v1/tasks", body: map[string]any{"name": "Call", "parentId": s.metric}}, 201), "id")
	pathOf := func(pattern string) string {
		switch pattern {
		case "/api/v1/goals/{id}":
			return "/api/v1/goals/" + s.child
		case "/api/v1/metrics/{id}":
			return "/api/v1/metrics/" + s.metric
		case "/api/v2/users/{id}", "/api/v1/users/{id}":
			return strings.Replace(pattern, "{id}", e.acct.UserID, 1)
		case "/api/v1/tasks/{taskId}":
			return "/api/v1/tasks/" + task
		case "/api/v1/kpis/{kpiId}":
			return "/api/v1/kpis/" + kpi
		}
		if pattern == "/api/v2/integrations/tags" {
			return pattern + "?name=" // its name parameter is required
		}
		if strings.Contains(pattern, "{") {
			t.Fatalf("%s takes fields=: walkProjections needs an id for it", pattern)
		}
		return pattern
	}
	for _, rt := range rest.Routes() {
		if rt.Method != http.MethodGet || !slices.Contains(rt.Params, "fields") {
			continue
		}
		path := pathOf(rt.Pattern)
		var last resp
		for _, f := range []string{"name", "title", "comment", "tagName", "status", "email", "itemType", "action"} {
			sep := "?"
			if strings.Contains(path, "?") {
				sep = "&"
			}
			if last = e.do(req{method: "GET", path: path + sep + "fields=" + f}); last.status == http.StatusOK {
				break
			}
		}
		if last.status != http.StatusOK {
			t.Errorf("GET %s: no projection of a usual field answered 200; the last: %d %s", path, last.status, last.body)
		}
	}
	// Nested projections: embedded key results, a dotted field.
	for _, path := range []string{
		"/api/v1/goals/" + s.child + "?fields=name,metrics{name,attainment},closedStatus.status",
		"/api/v2/integrations/goals?fields=metrics{id,actual}&limit=5",
		"/api/v1/goals?fields=assignee.name,tags&sessionId=" + s.session,
		"/api/v1/metrics/" + s.metric + "?fields=format,goalId",
	} {
		e.ok(req{method: "GET", path: path}, 200)
	}
}
