package rest_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
	"github.com/okrgate/okrgate/upstream/transport/rest"
)

// TestConditionalRequests: ETag on reads and updates, 304 on a matching
// If-None-Match, 412 on a stale If-Match (nothing written), and a
// conditional write that commits answers the ETag a later read shows.
func TestConditionalRequests(t *testing.T) {
	e := newEnv(t)
	s := e.seed()
	for _, tc := range []struct{ get, patch string }{
		{"/api/v1/goals/" + s.child, `{"name":"Win EMEA 2"}`},
		{"/api/v1/metrics/" + s.metric, `{"name":"Deals 2"}`},
		{"/api/v1/sessions/" + s.session, `{"title":"2026 H1 bis"}`},
	} {
		r := e.do(req{method: "GET", path: tc.get})
		etag := r.header.Get("ETag")
		if r.status != 200 || !strings.HasPrefix(etag, `"`) {
			t.Fatalf("GET %s: %d, ETag %q", tc.get, r.status, etag)
		}
		// The same version gives the same tag; a matching If-None-Match is 304.
		if again := e.do(req{method: "GET", path: tc.get}).header.Get("ETag"); again != etag {
			t.Errorf("GET %s twice: ETag %q then %q", tc.get, etag, again)
		}
		nm := e.do(req{method: "GET", path: tc.get, header: map[string]string{"If-None-Match": `"other", ` + etag}})
		if nm.status != 304 || len(nm.body) != 0 || nm.header.Get("ETag") != etag {
			t.Errorf("GET %s If-None-Match: %d %q ETag %q", tc.get, nm.status, nm.body, nm.header.Get("ETag"))
		}
		e.ok(req{method: "GET", path: tc.get, header: map[string]string{"If-None-Match": `"other"`}}, 200)

		// A stale If-Match is 412 and writes nothing.
		e.problem(req{method: "PATCH", path: tc.get, raw: ptr(tc.patch), header: map[string]string{"If-Match": `"0123"`}}, 412, "precondition_failed")
		if now := e.do(req{method: "GET", path: tc.get}).header.Get("ETag"); now != etag {
			t.Errorf("PATCH %s with a stale If-Match changed the version", tc.get)
		}
		// The current one writes and answers the new version.
		up := e.do(req{method: "PATCH", path: tc.get, raw: ptr(tc.patch), header: map[string]string{"If-Match": etag}})
		newTag := up.header.Get("ETag")
		if up.status != 200 || newTag == "" || newTag == etag {
			t.Fatalf("PATCH %s If-Match current: %d ETag %q (was %q): %s", tc.get, up.status, newTag, etag, up.body)
		}
		if got := e.do(req{method: "GET", path: tc.get}).header.Get("ETag"); got != newTag {
			t.Errorf("PATCH %s answered ETag %q, GET shows %q", tc.get, newTag, got)
		}
		// The old tag is now stale; "*" matches any existing version.
		e.problem(req{method: "PATCH", path: tc.get, raw: ptr(tc.patch), header: map[string]string{"If-Match": etag}}, 412, "precondition_failed")
		e.ok(req{method: "PATCH", path: tc.get, raw: ptr(tc.patch), header: map[string]string{"If-Match": "*"}}, 200)
	}

	// A check-in changes the version of its key result and of its goal.
	mTag := e.do(req{method: "GET", path: "/api/v1/metrics/" + s.metric}).header.Get("ETag")
	gTag := e.do(req{method: "GET", path: "/api/v1/goals/" + s.child}).header.Get("ETag")
	e.ok(req{method: "POST", path: "/api/v1/metrics/" + s.metric + "/checkin", body: map[string]any{"actual": 40}}, 201)
	e.problem(req{method: "PATCH", path: "/api/v1/metrics/" + s.metric, body: map[string]any{"name": "x"}, header: map[string]string{"If-Match": mTag}}, 412, "precondition_failed")
	e.problem(req{method: "DELETE", path: "/api/v1/goals/" + s.child, header: map[string]string{"If-Match": gTag}}, 412, "precondition_failed")
	e.ok(req{method: "GET", path: "/api/v1/goals/" + s.child}, 200)

	// A task: DELETE with the current tag deletes.
	task := e.ok(req{method: "POST", path: "/api/v2/integrations/tasks", body: map[string]any{"name": "t"}}, 201)
	tPath := "/api/v2/integrations/tasks/" + str(task, "id")
	tTag := e.do(req{method: "GET", path: tPath}).header.Get("ETag")
	e.ok(req{method: "DELETE", path: tPath, header: map[string]string{"If-Match": tTag}}, 204)
	e.problem(req{method: "GET", path: tPath}, 404, "not_found")
	// An unknown resource stays 404 (the write's own error comes first).
	e.problem(req{method: "PATCH", path: tPath, body: map[string]any{"name": "x"}, header: map[string]string{"If-Match": tTag}}, 404, "not_found")
}

// TestConcurrentIfMatch: of writers racing with one If-Match, exactly one
// wins; the others get 412 (checked in the write's transaction).
func TestConcurrentIfMatch(t *testing.T) {
	e := newEnv(t)
	s := e.seed()
	path := "/api/v1/goals/" + s.child
	etag := e.do(req{method: "GET", path: path}).header.Get("ETag")
	const n = 6
	statuses := make(chan int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := e.do(req{method: "PATCH", path: path, body: map[string]any{"name": fmt.Sprintf("writer %d", i)}, header: map[string]string{"If-Match": etag}})
			statuses <- r.status
		}()
	}
	wg.Wait()
	close(statuses)
	count := map[int]int{}
	for st := range statuses {
		count[st]++
	}
	if count[200] != 1 || count[412] != n-1 {
		t.Errorf("statuses %v, want one 200 and %d × 412", count, n-1)
	}
}

// TestIdempotencyKey: a retried check-in with the same key answers the
// first answer and records one check-in; another body with the key is 422;
// concurrent duplicates never both write; keys are scoped per path and user.
func TestIdempotencyKey(t *testing.T) {
	e := newEnv(t)
	s := e.seed()
	path := "/api/v1/metrics/" + s.metric + "/checkin"
	checkins := func() float64 {
		return num(e.ok(req{method: "GET", path: "/api/v1/metrics/" + s.metric + "/checkins"}, 200), "totalCount")
	}
	key := map[string]string{"Idempotency-Key": "retry-1"}
	first := e.do(req{method: "POST", path: path, raw: ptr(`{"actual":25}`), header: key})
	second := e.do(req{method: "POST", path: path, raw: ptr(`{"actual":25}`), header: key})
	if first.status != 201 || second.status != 201 || string(first.body) != string(second.body) {
		t.Fatalf("retry: %d %s / %d %s", first.status, first.body, second.status, second.body)
	}
	if first.header.Get("Idempotent-Replayed") != "" || second.header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("Idempotent-Replayed: %q then %q", first.header.Get("Idempotent-Replayed"), second.header.Get("Idempotent-Replayed"))
	}
	if second.header.Get("Location") != first.header.Get("Location") || second.header.Get("Content-Type") != "application/json; charset=utf-8" {
		t.Errorf("replayed headers: %v", second.header)
	}
	if n := checkins(); n != 1 {
		t.Errorf("%v check-ins after a retried POST, want 1", n)
	}
	// The same key with another body.
	e.problem(req{method: "POST", path: path, raw: ptr(`{"actual":26}`), header: key}, 422, "idempotency_key_reused")
	// The same key on another resource, or from another user, is another key.
	other := e.ok(req{method: "POST", path: "/api/v1/metrics", body: map[string]any{"name": "Other", "goalId": s.child, "target": 10}}, 201)
	e.ok(req{method: "POST", path: "/api/v1/metrics/" + str(other, "id") + "/checkin", raw: ptr(`{"actual":25}`), header: key}, 201)
	// A refused request leaves the key free: the corrected retry runs.
	bad := map[string]string{"Idempotency-Key": "fix-me"}
	e.problem(req{method: "POST", path: path, raw: ptr(`{"actual":1e300}`), header: bad}, 400, "invalid_input")
	e.ok(req{method: "POST", path: path, raw: ptr(`{"actual":2}`), header: bad}, 201)
	if n := checkins(); n != 2 {
		t.Errorf("%v check-ins, want 2", n)
	}

	// Concurrent duplicates: one writes, the others replay or are told the
	// key is in use.
	const n = 8
	results := make(chan resp, n)
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results <- e.do(req{method: "POST", path: path, raw: ptr(`{"actual":30}`), header: map[string]string{"Idempotency-Key": "burst"}})
		}()
	}
	wg.Wait()
	close(results)
	created := 0
	for r := range results {
		switch {
		case r.status == 201 && r.header.Get("Idempotent-Replayed") == "":
			created++
		case r.status == 201, r.status == 409:
		default:
			t.Errorf("concurrent duplicate: %d %s", r.status, r.body)
		}
	}
	if created != 1 {
		t.Errorf("%d concurrent duplicates wrote, want 1", created)
	}
	if n := checkins(); n != 3 {
		t.Errorf("%v check-ins after a burst of duplicates, want 3", n)
	}
}

// TestDeclaredLengthTooLarge: a request declaring a body over the limit is
// answered 413 with a problem body at once, without its body being sent; a
// chunked body over the limit is cut while read, also 413.
func TestDeclaredLengthTooLarge(t *testing.T) {
	e := newEnv(t)
	conn, err := net.Dial("tcp", strings.TrimPrefix(e.srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// The deadline only stops a hang from blocking the suite; the server
	// answers before any body byte is sent.
	_ = conn.SetDeadline(time.Now().Add(20 * time.Second))
	fmt.Fprintf(conn, "POST /api/v1/goals HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: 10000000000\r\n\r\n", e.acct.Token)
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer before the body: %v", err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	checkProblem(t, resp{status: res.StatusCode, header: res.Header, body: body}, 413, "request_too_large")
	if res.StatusCode != 413 || !res.Close {
		t.Errorf("status %d, close %v", res.StatusCode, res.Close)
	}

	// Chunked: the length is unknown until read.
	pr, pw := io.Pipe()
	go func() {
		_, _ = pw.Write([]byte(`{"name":"`))
		chunk := []byte(strings.Repeat("x", 64<<10))
		for i := 0; i < (rest.MaxBodyBytes/len(chunk))+2; i++ {
			if _, err := pw.Write(chunk); err != nil {
				return
			}
		}
		pw.Close()
	}()
	r, err := http.NewRequest("POST", e.srv.URL+"/api/v1/goals", pr)
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("Authorization", "Bearer "+e.acct.Token)
	r.Header.Set("Content-Type", "application/json")
	res, err = e.srv.Client().Do(r)
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(res.Body)
	res.Body.Close()
	pr.CloseWithError(io.ErrClosedPipe)
	if r.ContentLength != 0 || res.StatusCode != 413 { // length 0 with a body: sent chunked
		t.Fatalf("chunked: length %d, status %d: %s", r.ContentLength, res.StatusCode, body)
	}
	checkProblem(t, resp{status: res.StatusCode, header: res.Header, body: body}, 413, "request_too_large")
}

// stalled delays a check-in until its client has gone away, then runs it
// on the real store, which fails on the canceled context — a client that
// disconnects mid-write.
type stalled struct {
	*sqlstore.Store
	entered chan struct{}
}

func (s stalled) CheckIn(ctx context.Context, id string, in upstream.CheckInInput) (upstream.CheckIn, error) {
	close(s.entered)
	<-ctx.Done()
	return s.Store.CheckIn(ctx, id, in)
}

// TestClientClosedLogged: a request whose client goes away mid-write is
// logged as "client closed" with status 499, not as an internal error.
func TestClientClosedLogged(t *testing.T) {
	entered := make(chan struct{})
	e := newEnvWith(t, func(s *sqlstore.Store) upstream.API { return stalled{Store: s, entered: entered} })
	s := e.seed()
	ctx, cancel := context.WithCancel(context.Background())
	r, err := http.NewRequestWithContext(ctx, "POST", e.srv.URL+"/api/v1/metrics/"+s.metric+"/checkin", strings.NewReader(`{"actual":5}`))
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("Authorization", "Bearer "+e.acct.Token)
	errc := make(chan error, 1)
	go func() {
		res, err := http.DefaultClient.Do(r)
		if err == nil {
			res.Body.Close()
		}
		errc <- err
	}()
	<-entered
	cancel()
	if err := <-errc; err == nil {
		t.Fatal("the canceled request got an answer")
	}
	// One access line, written when the handler returns: status 499 at
	// level INFO, with the cause; no internal error, no second line.
	access := `"route":"/api/v1/metrics/{id}/checkin"`
	deadline := time.Now().Add(20 * time.Second) // bounds a failure; asserts no timing
	for !strings.Contains(e.logs.String(), access) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	logs := e.logs.String()
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(logs), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil && m["route"] == "/api/v1/metrics/{id}/checkin" {
			lines = append(lines, m)
		}
	}
	if len(lines) != 1 || lines[0]["status"] != float64(499) || lines[0]["level"] != "INFO" || !strings.Contains(fmt.Sprint(lines[0]["error"]), "canceled") {
		t.Errorf("want one INFO line with status 499 and the cause:\n%s", logs)
	}
	if strings.Contains(logs, "internal error") || strings.Contains(logs, `"status":500`) || strings.Contains(logs, `"level":"ERROR"`) {
		t.Errorf("a client that went away is logged as an internal error:\n%s", logs)
	}
	if n := num(e.ok(req{method: "GET", path: "/api/v1/metrics/" + s.metric + "/checkins"}, 200), "totalCount"); n != 0 {
		t.Errorf("the abandoned check-in was written (%v)", n)
	}
}

// TestSecretRoutesTakeNoIdempotencyKey: an answer holding a credential is
// never recorded, so every POST under a tokens path must be Secret (not
// Idempotent); every other POST is Idempotent.
func TestSecretRoutesTakeNoIdempotencyKey(t *testing.T) {
	for _, r := range rest.Routes() {
		tokens := strings.Contains(strings.ToLower(r.Pattern), "token")
		switch {
		case r.Method == http.MethodPost && tokens && (r.Idempotent || !r.Secret):
			t.Errorf("%s %s mints a credential: it must be Secret and take no Idempotency-Key", r.Method, r.Pattern)
		case r.Method == http.MethodPost && !r.Secret && !r.Idempotent:
			t.Errorf("%s %s: a POST takes an Idempotency-Key", r.Method, r.Pattern)
		case r.Method != http.MethodPost && r.Idempotent:
			t.Errorf("%s %s: only POSTs take an Idempotency-Key", r.Method, r.Pattern)
		}
	}
}
