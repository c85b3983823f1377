package resolvers_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/okrgate/okrgate/resolvers"
	"github.com/okrgate/okrgate/resolvers/infra/limits"
	"github.com/okrgate/okrgate/resolvers/live"
	"github.com/okrgate/okrgate/resolvers/transport/graphqlhttp"
	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
)

// admitted is one call of an Admitter.
type admitted struct {
	write      bool
	key, class string
}

// recorder is an Admitter that records its calls and admits, or refuses
// with Retry-After 3 s while refuse is set.
type recorder struct {
	mu       sync.Mutex
	calls    []admitted
	released int
	refuse   bool
}

type busy struct{}

func (busy) Error() string                { return "busy" }
func (busy) RetryAfter() time.Duration    { return 3 * time.Second }
func (r *recorder) setRefuse(refuse bool) { r.mu.Lock(); r.refuse = refuse; r.mu.Unlock() }
func (r *recorder) snapshot() ([]admitted, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]admitted(nil), r.calls...), r.released
}

func (r *recorder) Admit(_ context.Context, write bool, key, class string) (func(), error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, admitted{write, key, class})
	if r.refuse {
		return nil, busy{}
	}
	return func() { r.mu.Lock(); r.released++; r.mu.Unlock() }, nil
}

// admissionEnv is a store with a session behind the GraphQL handler with
// subscriptions and an Admitter.
type admissionEnv struct {
	t       *testing.T
	store   *sqlstore.Store
	boot    sqlstore.BootstrapResult
	ctx     context.Context
	session string
	base    string
}

func newAdmissionEnv(t *testing.T, adm limits.Admitter, timeout time.Duration) *admissionEnv {
	t.Helper()
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, filepath.Join(t.TempDir(), "admission.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	boot, err := st.Bootstrap(ctx, sqlstore.BootstrapInput{AccountName: "Acme", Email: "admin@acme.test"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := st.Authenticate(ctx, boot.Token)
	if err != nil {
		t.Fatal(err)
	}
	cctx := upstream.NewContext(ctx, c)
	ss, err := st.CreateSession(cctx, upstream.SessionInput{Title: "Q1", Start: "2026-01-01", End: "2026-03-31"})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(graphqlhttp.NewHandler(graphqlhttp.Config{API: st, Auth: st, Live: &live.Hub{Log: st, Classes: st},
		Admission: adm, CostClass: func(cost int) string { return "cost " + strconv.Itoa(cost) }, Timeout: timeout}))
	t.Cleanup(srv.Close)
	return &admissionEnv{t: t, store: st, boot: boot, ctx: cctx, session: ss.ID, base: srv.URL}
}

// post sends a GraphQL request, as an event stream if sse, and returns the
// status, the Retry-After header and the first answer (the first "next"
// event of a stream).
func (e *admissionEnv) post(ctx context.Context, query string, sse bool) (int, string, gqlResponse) {
	e.t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": map[string]any{"s": e.session}})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, e.base, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+e.boot.Token)
	if sse {
		req.Header.Set("Accept", "text/event-stream")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	var out gqlResponse
	if !sse {
		if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
			e.t.Fatal(err)
		}
		return res.StatusCode, res.Header.Get("Retry-After"), out
	}
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			if err := json.Unmarshal([]byte(data), &out); err != nil {
				e.t.Fatalf("event %q: %v", data, err)
			}
			return res.StatusCode, res.Header.Get("Retry-After"), out
		}
	}
	e.t.Fatalf("stream ended without an event: %v", sc.Err())
	return 0, "", out
}

// wsQuery runs a query over graphql-transport-ws and returns its answer.
func (e *admissionEnv) wsQuery(query string) gqlResponse {
	e.t.Helper()
	ctx := context.Background()
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(e.base, "http"), &websocket.DialOptions{Subprotocols: []string{"graphql-transport-ws"}})
	if err != nil {
		e.t.Fatal(err)
	}
	defer conn.CloseNow()
	for _, m := range []map[string]any{
		{"type": "connection_init", "payload": map[string]any{"Authorization": "Bearer " + e.boot.Token}},
		{"id": "1", "type": "subscribe", "payload": map[string]any{"query": query}},
	} {
		b, _ := json.Marshal(m)
		if err := conn.Write(ctx, websocket.MessageText, b); err != nil {
			e.t.Fatal(err)
		}
	}
	for {
		_, b, err := conn.Read(ctx)
		if err != nil {
			e.t.Fatal(err)
		}
		var m struct {
			Type    string          `json:"type"`
			Payload json.RawMessage `json:"payload"`
		}
		_ = json.Unmarshal(b, &m)
		if m.Type == "next" {
			var out gqlResponse
			_ = json.Unmarshal(m.Payload, &out)
			return out
		}
		if m.Type == "error" {
			e.t.Fatalf("websocket error: %s", m.Payload)
		}
	}
}

// TestAdmissionCoversEveryTransport: queries and mutations are admitted
// whether they come over POST, server-sent events or a websocket, in the
// lane of their kind, under their account's key and the class of their
// estimated cost, and released once answered; a refusal is HTTP 503 with
// Retry-After over POST and an OVERLOADED error in the stream over SSE;
// a subscription is never admitted and runs while queries are refused.
func TestAdmissionCoversEveryTransport(t *testing.T) {
	rec := &recorder{}
	e := newAdmissionEnv(t, rec, 0)
	ctx := context.Background()
	key := "account " + e.boot.AccountID
	for _, tc := range []struct {
		name, query string
		sse, ws     bool
		write       bool
	}{
		{"POST query", `query($s: ID!) { session(id: $s) { goals { id } } }`, false, false, false},
		{"POST mutation", `mutation($s: ID!) { createGoal(input: {name: "a", sessionId: $s}) { id } }`, false, false, true},
		{"SSE query", `query($s: ID!) { session(id: $s) { goals { id } } }`, true, false, false},
		{"SSE mutation", `mutation($s: ID!) { createGoal(input: {name: "b", sessionId: $s}) { id } }`, true, false, true},
		{"websocket query", `{ viewer { id } }`, false, true, false},
	} {
		before, _ := rec.snapshot()
		var out gqlResponse
		if tc.ws {
			out = e.wsQuery(tc.query)
		} else {
			_, _, out = e.post(ctx, tc.query, tc.sse)
		}
		if len(out.Errors) > 0 {
			t.Fatalf("%s: %v", tc.name, out.Errors)
		}
		calls, released := rec.snapshot()
		if len(calls) != len(before)+1 {
			t.Fatalf("%s: %d admissions, want 1", tc.name, len(calls)-len(before))
		}
		c := calls[len(calls)-1]
		if c.write != tc.write || c.key != key || !strings.HasPrefix(c.class, "cost ") || c.class == "cost 0" {
			t.Errorf("%s: admitted %+v; want write=%v, key %q and a cost class", tc.name, c, tc.write, key)
		}
		if tc.ws {
			continue // the answer may be sent before the release
		}
		if released != len(calls) {
			t.Errorf("%s: %d released of %d admitted", tc.name, released, len(calls))
		}
	}

	rec.setRefuse(true)
	status, retry, out := e.post(ctx, `{ viewer { id } }`, false)
	if status != 503 || retry != "3" || out.code() != limits.CodeOverloaded || out.Errors[0].Extensions["retryAfter"] != 3.0 {
		t.Errorf("refused POST: %d Retry-After %q %+v", status, retry, out.Errors)
	}
	if _, _, out := e.post(ctx, `{ viewer { id } }`, true); out.code() != limits.CodeOverloaded {
		t.Errorf("refused SSE query: %+v", out.Errors)
	}

	// A subscription is not admitted: it runs while everything else is
	// refused, and delivers the goal created after it started.
	before, _ := rec.snapshot()
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	got := make(chan gqlResponse, 1)
	go func() {
		_, _, out := e.post(sctx, `subscription($s: ID) { goalChanged(sessionId: $s) { name } }`, true)
		got <- out
	}()
	for i := 0; ; i++ {
		if _, err := e.store.CreateGoal(e.ctx, upstream.GoalInput{Name: "live " + strconv.Itoa(i), SessionID: e.session}); err != nil {
			t.Fatal(err)
		}
		select {
		case out := <-got:
			if len(out.Errors) > 0 || !strings.Contains(string(out.Data), "live ") {
				t.Fatalf("subscription: %s %+v", out.Data, out.Errors)
			}
			if calls, _ := rec.snapshot(); len(calls) != len(before) {
				t.Errorf("the subscription was admitted: %+v", calls[len(before):])
			}
			return
		case <-time.After(50 * time.Millisecond): // the stream may not have started yet
		}
	}
}

// TestTimeoutAppliesOverSSE: a query over server-sent events runs under
// the request timeout like one over POST.
func TestTimeoutAppliesOverSSE(t *testing.T) {
	e := newAdmissionEnv(t, nil, time.Nanosecond)
	_, _, out := e.post(context.Background(), `query($s: ID!) { session(id: $s) { goals { id } } }`, true)
	if out.code() != resolvers.CodeTimeout {
		t.Fatalf("a query over SSE past a 1 ns timeout: %s %+v, want TIMEOUT", out.Data, out.Errors)
	}
}
