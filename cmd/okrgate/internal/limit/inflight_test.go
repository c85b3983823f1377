package limit

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// blocking is a handler that holds every request until release is closed,
// telling entered about each one that started.
type blocking struct {
	entered chan string
	release chan struct{}
}

func (b *blocking) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body) // the body must arrive intact after classify
	b.entered <- r.Method + " " + r.URL.Path + " " + string(body)
	<-b.release
	w.WriteHeader(http.StatusOK)
}

type answer struct {
	status int
	header http.Header
	body   map[string]any
}

func send(t *testing.T, url, method, path, body string) answer {
	t.Helper()
	req, err := http.NewRequest(method, url+path, strings.NewReader(body))
	if err != nil {
		t.Error(err)
		return answer{}
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

// TestInflightSheds: with every read and write slot held, the next read and
// the next write are answered 503 with Retry-After and a problem (REST) or
// GraphQL (/graphql) body; once the slots free up, requests pass again.
// The test waits on channels, never on time.
func TestInflightSheds(t *testing.T) {
	b := &blocking{entered: make(chan string, 10), release: make(chan struct{})}
	srv := httptest.NewServer(NewInflight(2, 1, 0).Handler(b))
	defer srv.Close()

	var wg sync.WaitGroup
	hold := func(method, path, body string) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if a := send(t, srv.URL, method, path, body); a.status != 200 {
				t.Errorf("held %s %s: %d", method, path, a.status)
			}
		}()
		if got, want := <-b.entered, method+" "+path+" "+body; got != want {
			t.Errorf("handler saw %q, want %q", got, want)
		}
	}
	hold("GET", "/api/v2/sessions", "")
	hold("POST", "/graphql", `{"query":"{ sessions(first: 1) { totalCount } }"}`) // a read
	hold("POST", "/graphql", `{"query":"mutation { createTeam(input: {name: \"x\"}) { id } }"}`)

	for _, tc := range []struct {
		method, path, body, code string
	}{
		{"GET", "/api/v2/goals", "", CodeOverloaded},
		{"PATCH", "/api/v1/goals/x", `{}`, CodeOverloaded},
		{"POST", "/graphql", `{"query":"query { goals(first: 1) { totalCount } }"}`, GQLCodeOverloaded},
		{"POST", "/graphql", `{"query":"mutation M { deleteTeam(id: \"x\") }"}`, GQLCodeOverloaded},
	} {
		a := send(t, srv.URL, tc.method, tc.path, tc.body)
		if a.status != http.StatusServiceUnavailable || a.header.Get("Retry-After") != "1" {
			t.Errorf("%s %s: %d, Retry-After %q; want 503 with Retry-After", tc.method, tc.path, a.status, a.header.Get("Retry-After"))
		}
		var code any
		if tc.path == "/graphql" {
			if errs, _ := a.body["errors"].([]any); len(errs) == 1 {
				code = errs[0].(map[string]any)["extensions"].(map[string]any)["code"]
			}
		} else {
			code = a.body["code"]
			if a.header.Get("Content-Type") != "application/problem+json" {
				t.Errorf("%s %s: Content-Type %q", tc.method, tc.path, a.header.Get("Content-Type"))
			}
		}
		if code != tc.code {
			t.Errorf("%s %s: code %v, want %s (%v)", tc.method, tc.path, code, tc.code, a.body)
		}
	}

	close(b.release)
	wg.Wait()
	go func() {
		for range b.entered {
		}
	}()
	if a := send(t, srv.URL, "GET", "/api/v2/goals", ""); a.status != 200 {
		t.Errorf("after release: %d", a.status)
	}
	if a := send(t, srv.URL, "DELETE", "/api/v1/goals/x", ""); a.status != 200 {
		t.Errorf("write after release: %d", a.status)
	}
}

// TestInflightWaitsForASlot: a request that finds the slots full waits up
// to the queue wait and runs when a slot frees within it.
func TestInflightWaitsForASlot(t *testing.T) {
	b := &blocking{entered: make(chan string, 10), release: make(chan struct{})}
	srv := httptest.NewServer(NewInflight(1, 1, time.Minute).Handler(b))
	defer srv.Close()
	done := make(chan answer, 2)
	go func() { done <- send(t, srv.URL, "GET", "/a", "") }()
	<-b.entered
	go func() { done <- send(t, srv.URL, "GET", "/b", "") }()
	close(b.release) // the first finishes; the second gets its slot
	<-b.entered
	for range 2 {
		if a := <-done; a.status != 200 {
			t.Errorf("status %d, want 200", a.status)
		}
	}
}

func TestHasMutation(t *testing.T) {
	for _, tc := range []struct {
		body string
		want bool
	}{
		{`{"query":"{ goals { nodes { id } } }"}`, false},
		{`{"query":"query Q { goals { nodes { mutationCount: id } } }"}`, false},
		{`{"query":"{ goals(filter: {name: {eq: \"mutation\"}}) { totalCount } }"}`, false},
		{`{"query":"# mutation\n{ goals { totalCount } }"}`, false},
		{`{"query":"mutation { deleteGoal(id: \"x\") }"}`, true},
		{`{"query":"query A { viewer { id } } mutation B { deleteGoal(id: \"x\") }","operationName":"A"}`, true},
		{`{"query":"mutation`, true}, // not JSON: counted as a write
		{`{"query":"{ \"unterminated }"} mutation`, true},
	} {
		if got := hasMutation([]byte(tc.body)); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.body, got, tc.want)
		}
	}
}
