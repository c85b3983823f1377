package limit

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/okrgate/okrgate/upstream"
)

type answer struct {
	status int
	header http.Header
	body   map[string]any
}

// send makes one request with the headers given as name, value, ...
func send(t *testing.T, url, method, path string, headers ...string) answer {
	t.Helper()
	req, err := http.NewRequest(method, url+path, strings.NewReader("{}"))
	if err != nil {
		t.Error(err)
		return answer{}
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return answer{}
	}
	defer res.Body.Close()
	a := answer{status: res.StatusCode, header: res.Header}
	raw, _ := io.ReadAll(res.Body)
	_ = json.Unmarshal(raw, &a.body)
	return a
}

// TestHandlerIgnoresLiveHeaders: with one read and one write slot, both
// held, REST requests carrying Upgrade: websocket or Accept:
// text/event-stream queue exactly like those without, and are refused with
// 503, Retry-After and a problem body once they have waited the allowance;
// /graphql passes to the GraphQL server, which admits its operations
// itself. The test waits on channels and a controlled clock, never on time.
func TestHandlerIgnoresLiveHeaders(t *testing.T) {
	clock := newFakeClock()
	a := NewAdmission(Config{MaxReads: 1, MaxWrites: 1}, clock, nil)
	entered, release := make(chan string, 10), make(chan struct{})
	srv := httptest.NewServer(a.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		entered <- r.Method + " " + r.URL.Path
		if r.URL.Path != graphqlPath {
			<-release
		}
	})))
	defer srv.Close()
	defer close(release)
	for _, m := range []string{"GET", "POST"} {
		go send(t, srv.URL, m, "/api/v2/goals")
		<-entered
	}
	if a := send(t, srv.URL, "POST", graphqlPath, "Content-Type", "application/json"); a.status != 200 || <-entered != "POST /graphql" {
		t.Fatalf("/graphql: %d, want it passed to the GraphQL server", a.status)
	}

	for _, tc := range []struct {
		method  string
		headers []string
	}{
		{"GET", nil},
		{"GET", []string{"Upgrade", "websocket", "Connection", "Upgrade"}},
		{"GET", []string{"Accept", "text/event-stream"}},
		{"POST", nil},
		{"POST", []string{"Accept", "text/event-stream", "Content-Type", "application/json"}},
		{"POST", []string{"Upgrade", "websocket", "Connection", "Upgrade"}},
	} {
		l := a.reads
		if tc.method == "POST" {
			l = a.writes
		}
		got := make(chan answer, 1)
		go func() { got <- send(t, srv.URL, tc.method, "/api/v2/goals", tc.headers...) }()
		waitFor(t, "queued", func() bool { _, _, q := l.state(); return q == 1 })
		clock.Advance(DefaultBurst)
		res := <-got
		if res.status != 503 || res.header.Get("Retry-After") == "" || res.body["code"] != string(upstream.CodeOverloaded) ||
			res.header.Get("Content-Type") != "application/problem+json" {
			t.Errorf("%s %v: %d Retry-After %q %v; want queued, then 503 with a problem body", tc.method, tc.headers,
				res.status, res.header.Get("Retry-After"), res.body)
		}
		select {
		case e := <-entered:
			t.Errorf("%s %v executed (%s) while every slot was held", tc.method, tc.headers, e)
		default:
		}
	}
}

// TestRestClass: identifiers and page sizes are folded into classes.
func TestRestClass(t *testing.T) {
	for _, tc := range []struct{ target, want string }{
		{"/api/v1/goals/6b075fa8e52f0e278f41a14a", "GET /api/v1/goals/{id}"},
		{"/api/v1/goals/42?fields=name", "GET /api/v1/goals/{id}"},
		{"/api/v2/integrations/goals?limit=20", "GET /api/v2/integrations/goals limit~32"},
		{"/api/v2/integrations/goals?limit=1000", "GET /api/v2/integrations/goals limit~1024"},
	} {
		r := httptest.NewRequest("GET", tc.target, nil)
		if got := restClass(r); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.target, got, tc.want)
		}
	}
	if CostClass(1) == CostClass(10_000) || CostClass(9_000) != CostClass(10_000) {
		t.Errorf("cost classes: %s %s %s", CostClass(1), CostClass(9_000), CostClass(10_000))
	}
}
