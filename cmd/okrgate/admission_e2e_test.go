package main_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/okrgate/okrgate/upstream/infra/limit"
)

// treeQuery is the README's session tree.
const treeQuery = `query Tree($id: ID!) { session(id: $id) { id title goals(roots: true) { ...G children { ...G children { ...G } } } } }
fragment G on Goal { id name attainment owners { ... on User { id name } ... on Team { id name } } metrics { id name attainment checkins { id actual } } }`

// graphqlPost sends a GraphQL request and returns the status and body.
func graphqlPost(t *testing.T, base, token, query string, vars map[string]any, headers ...string) (int, []byte) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, _ := http.NewRequest("POST", base+"/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return 0, nil
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return res.StatusCode, raw
}

// TestAdmissionServesBursts runs the binary on a seeded account and sends
// bursts of 8, 16 and 32 concurrent session trees, each on a server idle
// for an admission interval (a pause: a burst right after a long one
// continues an overload): every request is answered, none refused, for a
// limit of requests at once refuses nothing by itself. The flags are the
// defaults but for --queue-burst, raised from 2 s to a minute so that the
// outcome does not depend on how busy the machine running the test is; the
// load program measures the default (docs/benchmarks/admission.md, "Admission
// control").
func TestAdmissionServesBursts(t *testing.T) {
	db := filepath.Join(t.TempDir(), "burst.db")
	boot := bootstrapDB(t, db, "Acme", "ann@acme.test")
	if out, err := exec.Command(binary, "seed", "--db", db, "--account", boot.AccountID, "--goals", "20", "--seed", "5").CombinedOutput(); err != nil {
		t.Fatalf("seed: %v: %s", err, out)
	}
	srv := startServer(t, db, "--queue-burst", "1m")
	c := client{t: t, hc: http.DefaultClient, base: srv.base, token: boot.Token, acct: boot.AccountID}
	sessions, _ := c.must("GET", "/api/v2/sessions", nil, 200)["items"].([]any)
	if len(sessions) == 0 {
		t.Fatal("no session seeded")
	}
	session, _ := sessions[0].(map[string]any)["id"].(string)
	for _, n := range []int{8, 16, 32} {
		time.Sleep(limit.DefaultInterval + 100*time.Millisecond)
		var wg sync.WaitGroup
		start := make(chan struct{})
		failures := make(chan string, n)
		for range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				status, raw := graphqlPost(t, srv.base, boot.Token, treeQuery, map[string]any{"id": session})
				if status != 200 || bytes.Contains(raw, []byte(`"errors"`)) {
					failures <- fmt.Sprintf("%d %.200s", status, raw)
				}
			}()
		}
		close(start)
		wg.Wait()
		close(failures)
		for f := range failures {
			t.Errorf("burst of %d: %s", n, f)
		}
	}
}

// admissions reads the admitted counters and the limits per lane from
// the server's metrics.
func admissions(t *testing.T, metrics string) map[string]float64 {
	t.Helper()
	res, err := http.Get(metrics)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), " ")
		if !ok || !strings.HasPrefix(name, "okrgate_admission_admitted_total") && !strings.HasPrefix(name, "okrgate_admission_limit") {
			continue
		}
		f, _ := strconv.ParseFloat(value, 64)
		out[name] = f
	}
	return out
}

// TestLiveHeadersGiveNoBypass runs the binary with --max-inflight-reads 1
// and --max-inflight-writes 1: REST requests carrying Upgrade: websocket or
// Accept: text/event-stream are admitted by the same limiter as those
// without, and so are GraphQL queries and mutations sent as event streams
// or over a websocket; only a subscription is not admitted.
func TestLiveHeadersGiveNoBypass(t *testing.T) {
	db := filepath.Join(t.TempDir(), "bypass.db")
	boot := bootstrapDB(t, db, "Acme", "ann@acme.test")
	srv := startServer(t, db, "--max-inflight-reads", "1", "--max-inflight-writes", "1")
	const (
		reads  = `okrgate_admission_admitted_total{lane="read"}`
		writes = `okrgate_admission_admitted_total{lane="write"}`
	)
	m := admissions(t, srv.metrics)
	if m[`okrgate_admission_limit{lane="read"}`] != 1 || m[`okrgate_admission_limit{lane="write"}`] != 1 {
		t.Fatalf("limits: %v", m)
	}
	rest := func(method, path string, headers ...string) func() {
		return func() {
			req, _ := http.NewRequest(method, srv.base+path, strings.NewReader(`{"name":"x"}`))
			req.Header.Set("Authorization", "Bearer "+boot.Token)
			req.Header.Set("service-accountId", boot.AccountID)
			req.Header.Set("Content-Type", "application/json")
			for i := 0; i+1 < len(headers); i += 2 {
				req.Header.Set(headers[i], headers[i+1])
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
		}
	}
	gql := func(query string, headers ...string) func() {
		return func() { graphqlPost(t, srv.base, boot.Token, query, nil, headers...) }
	}
	for _, tc := range []struct {
		name       string
		send       func()
		lane       string
		admissions float64
	}{
		{"REST read", rest("GET", "/api/v2/sessions"), reads, 1},
		{"REST read with Upgrade: websocket", rest("GET", "/api/v2/sessions", "Upgrade", "websocket", "Connection", "Upgrade"), reads, 1},
		{"REST read with Accept: text/event-stream", rest("GET", "/api/v2/sessions", "Accept", "text/event-stream"), reads, 1},
		{"REST write with Accept: text/event-stream", rest("POST", "/api/v2/sessions", "Accept", "text/event-stream"), writes, 1},
		{"REST write with Upgrade: websocket", rest("POST", "/api/v2/sessions", "Upgrade", "websocket", "Connection", "Upgrade"), writes, 1},
		{"GraphQL query", gql(`{ viewer { id } }`), reads, 1},
		{"GraphQL query as an event stream", gql(`{ viewer { id } }`, "Accept", "text/event-stream"), reads, 1},
		{"GraphQL mutation as an event stream", gql(`mutation { createSession(input: {title: "x", start: "2026-01-01", end: "2026-03-31"}) { id } }`, "Accept", "text/event-stream"), writes, 1},
		{"GraphQL query over a websocket", func() { wsQuery(t, srv.base, boot.Token, `{ viewer { id } }`) }, reads, 1},
	} {
		before := admissions(t, srv.metrics)
		tc.send()
		after := admissions(t, srv.metrics)
		if got := after[tc.lane] - before[tc.lane]; got != tc.admissions {
			t.Errorf("%s: %v admissions in %s, want %v", tc.name, got, tc.lane, tc.admissions)
		}
	}

	// A subscription (event stream) is not admitted: it lasts as long as
	// its connection.
	ctx, cancel := context.WithCancel(context.Background())
	before := admissions(t, srv.metrics)
	next := sseNext(t, ctx, srv.base, boot.Token, `subscription { goalChanged { id name } }`, nil)
	c := client{t: t, hc: http.DefaultClient, base: srv.base, token: boot.Token, acct: boot.AccountID}
	ss := c.must("POST", "/api/v1/sessions", map[string]any{"title": "Q1", "start": "2026-01-01T00:00:00.000Z", "end": "2026-03-31T00:00:00.000Z"}, 201)
	c.must("POST", "/api/v1/goals", map[string]any{"name": "live", "sessionId": ss["id"]}, 201)
	next() // the subscription runs
	cancel()
	after := admissions(t, srv.metrics)
	if r, w := after[reads]-before[reads], after[writes]-before[writes]; r != 0 || w != 2 {
		t.Errorf("a subscription, a session and a goal made %v read and %v write admissions; want 0 and 2", r, w)
	}
}

// wsQuery runs a query over graphql-transport-ws and waits for its answer.
func wsQuery(t *testing.T, base, token, query string) {
	t.Helper()
	ctx := context.Background()
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(base, "http")+"/graphql", &websocket.DialOptions{Subprotocols: []string{"graphql-transport-ws"}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	for _, m := range []map[string]any{
		{"type": "connection_init", "payload": map[string]any{"Authorization": "Bearer " + token}},
		{"id": "1", "type": "subscribe", "payload": map[string]any{"query": query}},
	} {
		b, _ := json.Marshal(m)
		if err := conn.Write(ctx, websocket.MessageText, b); err != nil {
			t.Fatal(err)
		}
	}
	for {
		_, b, err := conn.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var m struct{ Type string }
		_ = json.Unmarshal(b, &m)
		switch m.Type {
		case "complete":
			return
		case "error":
			t.Fatalf("websocket: %s", b)
		}
	}
}
