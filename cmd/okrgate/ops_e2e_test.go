package main_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// logBuffer collects a server's stderr; safe for concurrent use.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// lines returns the JSON log lines whose request_id is id.
func (l *logBuffer) lines(id string) []map[string]any {
	var out []map[string]any
	for _, line := range strings.Split(l.String(), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil && m["request_id"] == id {
			out = append(out, m)
		}
	}
	return out
}

// waitLine waits until the access line of request id is logged (the line
// is written when the handler returns, after the client has its answer).
func (l *logBuffer) waitLine(t *testing.T, id string) []map[string]any {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second) // bounds a failure; asserts no timing
	for len(l.lines(id)) == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	return l.lines(id)
}

// get fetches url with the given headers and returns the status and body.
func get(t *testing.T, method, url, body string, header map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestRequestLogLinesAndMetrics: on the built binary with --log-format
// json, a REST request and a GraphQL request each produce exactly one log
// line carrying the request id, the trace id, the caller, the route or
// operation, the status, duration, size, upstream calls and SQL statements;
// the metrics listener shows both; the main address shows no metrics.
func TestRequestLogLinesAndMetrics(t *testing.T) {
	db := filepath.Join(t.TempDir(), "ops.db")
	boot := bootstrapDB(t, db, "Acme", "admin@acme.test")
	srv := startServer(t, db, "--log-format", "json")
	auth := map[string]string{"Authorization": "Bearer " + boot.Token, "Content-Type": "application/json"}
	with := func(extra map[string]string) map[string]string {
		h := map[string]string{}
		for k, v := range auth {
			h[k] = v
		}
		for k, v := range extra {
			h[k] = v
		}
		return h
	}

	if code, body := get(t, "GET", srv.base+"/api/v2/sessions", "", with(map[string]string{"X-Request-Id": "ops-rest-1"})); code != 200 {
		t.Fatalf("REST: %d %s", code, body)
	}
	const traceID = "0af7651916cd43dd8448eb211c80319c"
	if code, body := get(t, "POST", srv.base+"/graphql", `{"query":"query Me { viewer { id email } }","operationName":"Me"}`,
		with(map[string]string{"X-Request-Id": "ops-gql-1", "traceparent": "00-" + traceID + "-b7ad6b7169203331-01"})); code != 200 || strings.Contains(body, "errors") {
		t.Fatalf("GraphQL: %d %s", code, body)
	}

	for _, tc := range []struct {
		id   string
		want map[string]any
	}{
		{"ops-rest-1", map[string]any{"route": "/api/v2/sessions", "facade": "rest", "method": "GET"}},
		{"ops-gql-1", map[string]any{"route": "/graphql", "facade": "graphql", "operation": "Me", "trace_id": traceID}},
	} {
		lines := srv.logs.waitLine(t, tc.id)
		if len(lines) != 1 {
			t.Errorf("%s: %d log lines, want 1:\n%s", tc.id, len(lines), srv.logs)
			continue
		}
		l := lines[0]
		for k, v := range tc.want {
			if l[k] != v {
				t.Errorf("%s: %s = %v, want %v", tc.id, k, l[k], v)
			}
		}
		if l["msg"] != "request" || l["level"] != "INFO" || l["status"] != 200.0 || l["account"] != boot.AccountID || l["user"] != boot.UserID {
			t.Errorf("%s: line %v", tc.id, l)
		}
		for _, k := range []string{"trace_id", "duration_ms", "bytes", "upstream_calls", "sql_statements"} {
			if _, ok := l[k]; !ok {
				t.Errorf("%s: no %s in %v", tc.id, k, l)
			}
		}
		if n, _ := l["bytes"].(float64); n <= 0 {
			t.Errorf("%s: bytes %v", tc.id, l["bytes"])
		}
		if n, _ := l["upstream_calls"].(float64); n < 1 {
			t.Errorf("%s: upstream_calls %v", tc.id, l["upstream_calls"])
		}
		if n, _ := l["sql_statements"].(float64); n < 1 {
			t.Errorf("%s: sql_statements %v", tc.id, l["sql_statements"])
		}
	}

	code, metrics := get(t, "GET", srv.metrics, "", nil)
	if code != 200 {
		t.Fatalf("metrics listener: %d", code)
	}
	for _, want := range []string{
		`okrgate_http_requests_total{code="200",facade="rest",method="get",route="/api/v2/sessions"} 1`,
		`okrgate_http_requests_total{code="200",facade="graphql",method="post",route="/graphql"} 1`,
		`okrgate_http_request_duration_seconds_count{code="200",facade="rest",method="get",route="/api/v2/sessions"} 1`,
		`okrgate_http_response_size_bytes_count{code="200",facade="graphql",method="post",route="/graphql"} 1`,
		`okrgate_graphql_requests_total{operation="Me",outcome="ok"} 1`,
		`okrgate_upstream_calls_total{facade="rest",method="ListSessions"} 1`,
		`okrgate_upstream_calls_total{facade="graphql",method="Authenticate"} 1`,
		`okrgate_build_info{`,
		`go_sql_open_connections{db_name="read"}`,
		`okrgate_store_queries_total`,
		`okrgate_db_write_groups_total`,
		`okrgate_db_grouped_writes_total`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if code, _ := get(t, "GET", srv.base+"/metrics", "", nil); code != 404 {
		t.Errorf("/metrics on the main address: %d, want 404", code)
	}
	srv.stop(t)
}

// TestMetricsToken: with --metrics-token, the main address serves /metrics
// to that bearer token only.
func TestMetricsToken(t *testing.T) {
	db := filepath.Join(t.TempDir(), "tok.db")
	bootstrapDB(t, db, "Acme", "admin@acme.test")
	srv := startServer(t, db, "--metrics-token", "s3cret-scrape")
	if code, _ := get(t, "GET", srv.base+"/metrics", "", nil); code != 401 {
		t.Errorf("no token: %d, want 401", code)
	}
	if code, _ := get(t, "GET", srv.base+"/metrics", "", map[string]string{"Authorization": "Bearer wrong"}); code != 401 {
		t.Errorf("wrong token: %d, want 401", code)
	}
	code, body := get(t, "GET", srv.base+"/metrics", "", map[string]string{"Authorization": "Bearer s3cret-scrape"})
	if code != 200 || !strings.Contains(body, "okrgate_build_info") {
		t.Errorf("metrics token: %d %.200s", code, body)
	}
	srv.stop(t)
}

// TestProfilesOptIn: the metrics listener serves Go's heap profile with
// --pprof only; the main address never does.
func TestProfilesOptIn(t *testing.T) {
	db := filepath.Join(t.TempDir(), "prof.db")
	bootstrapDB(t, db, "Acme", "admin@acme.test")
	off := startServer(t, db)
	if code, _ := get(t, "GET", strings.TrimSuffix(off.metrics, "/metrics")+"/debug/pprof/heap", "", nil); code != 404 {
		t.Errorf("heap profile without --pprof: %d, want 404", code)
	}
	off.stop(t)
	on := startServer(t, db, "--pprof")
	code, body := get(t, "GET", strings.TrimSuffix(on.metrics, "/metrics")+"/debug/pprof/heap?debug=1", "", nil)
	if code != 200 || !strings.Contains(body, "heap profile:") {
		t.Errorf("heap profile with --pprof: %d %.200s", code, body)
	}
	if code, _ := get(t, "GET", on.base+"/debug/pprof/heap", "", nil); code == 200 {
		t.Errorf("heap profile on the main address: %d", code)
	}
	on.stop(t)
}

// TestMetricsListenerNotPublicByDefault: without --metrics-addr, metrics
// listen on a loopback address apart from the API's (or, when that port is
// taken on this machine, serve warns, naming the loopback address, and
// serves the API without metrics); the main address answers /metrics 404.
func TestMetricsListenerNotPublicByDefault(t *testing.T) {
	db := filepath.Join(t.TempDir(), "def.db")
	bootstrapDB(t, db, "Acme", "admin@acme.test")
	cmd := exec.Command(binary, "serve", "--db", db, "--addr", "127.0.0.1:0")
	var out, errOut logBuffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() { cmd.Process.Kill() })
	deadline := time.Now().Add(30 * time.Second) // bounds a failure; asserts no timing
	var metricsURL, base string
	busy := false
	for time.Now().Before(deadline) && (base == "" || metricsURL == "" && !busy) {
		select {
		case <-done:
			t.Fatalf("serve exited: %s", errOut.String())
		case <-time.After(10 * time.Millisecond):
		}
		for _, l := range strings.Split(out.String(), "\n") {
			if r, ok := strings.CutPrefix(l, "okrgate listening on "); ok {
				base = strings.Fields(r)[0]
			}
			if r, ok := strings.CutPrefix(l, "okrgate metrics on "); ok {
				metricsURL = strings.TrimSpace(r)
			}
		}
		busy = strings.Contains(errOut.String(), "metrics listener not started")
	}
	if code, _ := get(t, "GET", base+"/metrics", "", nil); code != 404 {
		t.Errorf("/metrics on the main address: %d, want 404", code)
	}
	if busy {
		// The default port is in use here: the warning names it.
		if !strings.Contains(errOut.String(), "127.0.0.1:9090") {
			t.Errorf("warning without the default address: %s", errOut.String())
		}
		return
	}
	u, err := url.Parse(metricsURL)
	if err != nil || u.Host != "127.0.0.1:9090" {
		t.Fatalf("metrics at %q, want the loopback default 127.0.0.1:9090", metricsURL)
	}
	if b, _ := url.Parse(base); b == nil || b.Host == u.Host {
		t.Fatalf("metrics share the API's address %q", base)
	}
}

// TestChosenMetricsAddressMustBind: an address the operator chose that is
// taken stops serve with an error naming it.
func TestChosenMetricsAddressMustBind(t *testing.T) {
	taken := httptest.NewServer(http.NotFoundHandler())
	defer taken.Close()
	addr := strings.TrimPrefix(taken.URL, "http://")
	db := filepath.Join(t.TempDir(), "busy.db")
	bootstrapDB(t, db, "Acme", "admin@acme.test")
	_, errOut, code := runBinary(t, "", []string{"OKRGATE_METRICS_ADDR=" + addr}, "serve", "--db", db, "--addr", "127.0.0.1:0")
	if code != 1 || !strings.Contains(errOut, addr) {
		t.Errorf("exit %d, stderr %q: want 1 and the address", code, errOut)
	}
}
