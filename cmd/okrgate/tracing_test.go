package main_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/okrgate/okrgate/resolvers/transport/graphqlhttp"
	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
	"github.com/okrgate/okrgate/upstream/infra/instrument"
	"github.com/okrgate/okrgate/upstream/infra/observe"
	"github.com/okrgate/okrgate/upstream/transport/rest"
)

// traced is the server's handler as serve builds it (the observe stack in
// front of REST and GraphQL over the instrumented store), tracing into an
// in-memory exporter.
type traced struct {
	exp     *tracetest.InMemoryExporter
	srv     *httptest.Server
	token   string
	session string
}

func newTraced(t *testing.T) *traced {
	t.Helper()
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, filepath.Join(t.TempDir(), "trace.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	boot, err := st.Bootstrap(ctx, sqlstore.BootstrapInput{AccountName: "Acme", Email: "ann@acme.test"})
	if err != nil {
		t.Fatal(err)
	}
	caller, err := st.Authenticate(ctx, boot.Token)
	if err != nil {
		t.Fatal(err)
	}
	cctx := upstream.NewContext(ctx, caller)
	sess, err := st.CreateSession(cctx, upstream.SessionInput{Title: "2027", Start: "2027-01-01", End: "2027-12-31"})
	if err != nil {
		t.Fatal(err)
	}
	// A tree: one root, three children with two key results (one check-in
	// each) and one grandchild each.
	root, err := st.CreateGoal(cctx, upstream.GoalInput{Name: "Root", SessionID: sess.ID})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		child, err := st.CreateGoal(cctx, upstream.GoalInput{Name: fmt.Sprint("Child ", i), SessionID: sess.ID, ParentID: root.ID})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.CreateGoal(cctx, upstream.GoalInput{Name: fmt.Sprint("Grandchild ", i), SessionID: sess.ID, ParentID: child.ID}); err != nil {
			t.Fatal(err)
		}
		for j := range 2 {
			target := 10.0
			m, err := st.CreateMetric(cctx, upstream.MetricInput{Name: fmt.Sprint("KR ", i, j), GoalID: child.ID, Target: &target})
			if err != nil {
				t.Fatal(err)
			}
			actual := float64(j + 1)
			if _, err := st.CheckIn(cctx, m.ID, upstream.CheckInInput{Actual: &actual}); err != nil {
				t.Fatal(err)
			}
		}
	}

	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t.Cleanup(func() { tp.Shutdown(context.Background()) })
	api := instrument.New(st, instrument.NewCounter())
	mux := http.NewServeMux()
	mux.Handle("/api/", rest.New(api, rest.Options{Auth: api}))
	mux.Handle("/graphql", graphqlhttp.NewHandler(graphqlhttp.Config{API: api, Auth: api}))
	srv := httptest.NewServer(observe.Stack(observe.Config{Tracer: tp})(mux))
	t.Cleanup(srv.Close)
	return &traced{exp: exp, srv: srv, token: boot.Token, session: sess.ID}
}

// do sends one request and returns the spans of its trace, once the server
// span (ended after the answer is written) has been exported.
func (tr *traced) do(t *testing.T, method, path, body string, header map[string]string) []tracetest.SpanStub {
	t.Helper()
	tr.exp.Reset()
	h := map[string]string{"Authorization": "Bearer " + tr.token, "Content-Type": "application/json"}
	for k, v := range header {
		h[k] = v
	}
	if code, b := get(t, method, tr.srv.URL+path, body, h); code != 200 || strings.Contains(b, `"errors"`) {
		t.Fatalf("%s %s: %d %s", method, path, code, b)
	}
	deadline := time.Now().Add(20 * time.Second) // bounds a failure; asserts no timing
	for time.Now().Before(deadline) {
		for _, s := range tr.exp.GetSpans() {
			if s.SpanKind == trace.SpanKindServer {
				return tr.exp.GetSpans()
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("the server span was never exported")
	return nil
}

// oneTrace checks that spans form one trace under one server span and
// returns that span.
func oneTrace(t *testing.T, spans []tracetest.SpanStub, name string) tracetest.SpanStub {
	t.Helper()
	traces := map[trace.TraceID]bool{}
	var roots []tracetest.SpanStub
	ids := map[trace.SpanID]bool{}
	for _, s := range spans {
		traces[s.SpanContext.TraceID()] = true
		ids[s.SpanContext.SpanID()] = true
	}
	for _, s := range spans {
		if !ids[s.Parent.SpanID()] {
			roots = append(roots, s)
		}
	}
	if len(traces) != 1 || len(roots) != 1 {
		t.Fatalf("%d traces, %d roots (want 1 and 1): %v", len(traces), len(roots), names(spans))
	}
	if roots[0].Name != name || roots[0].SpanKind != trace.SpanKindServer {
		t.Errorf("root span %q (%v), want the server span %q", roots[0].Name, roots[0].SpanKind, name)
	}
	return roots[0]
}

func names(spans []tracetest.SpanStub) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Name)
	}
	sort.Strings(out)
	return out
}

func attr(s tracetest.SpanStub, key string) string {
	for _, a := range s.Attributes {
		if string(a.Key) == key {
			return a.Value.String()
		}
	}
	return ""
}

// TestTraceOfRESTRequest: a REST request is one trace: the server span
// named by its route, the upstream calls under it, the SQL statements under
// those.
func TestTraceOfRESTRequest(t *testing.T) {
	tr := newTraced(t)
	spans := tr.do(t, "GET", "/api/v2/sessions", "", nil)
	root := oneTrace(t, spans, "GET /api/v2/sessions")
	byID := map[trace.SpanID]tracetest.SpanStub{}
	for _, s := range spans {
		byID[s.SpanContext.SpanID()] = s
	}
	var upstreams, sqls int
	for _, s := range spans {
		switch {
		case strings.HasPrefix(s.Name, "upstream."):
			upstreams++
			if s.Parent.SpanID() != root.SpanContext.SpanID() {
				t.Errorf("%s is not under the server span", s.Name)
			}
		case strings.HasPrefix(s.Name, "sql "):
			sqls++
			if p := byID[s.Parent.SpanID()]; !strings.HasPrefix(p.Name, "upstream.") {
				t.Errorf("%s is under %q, not an upstream call", s.Name, p.Name)
			}
		}
	}
	if upstreams != 2 || sqls == 0 { // Authenticate, ListSessions
		t.Errorf("%d upstream spans (want 2), %d SQL spans: %v", upstreams, sqls, names(spans))
	}
}

// TestTraceOfNestedTree: the GraphQL tree query is one trace; under the
// operation span, each level of the tree is one batch span with exactly
// one upstream span, whatever the number of parents at the level.
func TestTraceOfNestedTree(t *testing.T) {
	tr := newTraced(t)
	q := `{"query":"query Tree($id: ID!) { session(id: $id) { title goals(roots: true) { name children { name metrics { name checkins { actual } } children { name } } } } }","variables":{"id":"` + tr.session + `"}}`
	spans := tr.do(t, "POST", "/graphql", q, nil)
	root := oneTrace(t, spans, "POST /graphql")
	byID := map[trace.SpanID]tracetest.SpanStub{}
	for _, s := range spans {
		byID[s.SpanContext.SpanID()] = s
	}
	var op tracetest.SpanStub
	children := map[trace.SpanID][]tracetest.SpanStub{}
	for _, s := range spans {
		children[s.Parent.SpanID()] = append(children[s.Parent.SpanID()], s)
		if s.Name == "graphql.operation Tree" {
			op = s
		}
	}
	if op.Parent.SpanID() != root.SpanContext.SpanID() {
		t.Fatalf("no operation span under the server span: %v", names(spans))
	}
	levels := map[string]bool{}
	var batches, upstreams int
	for _, s := range spans {
		switch {
		case strings.HasPrefix(s.Name, "graphql.batch "):
			batches++
			level := attr(s, "graphql.level")
			if levels[level] {
				t.Errorf("two batches at level %s", level)
			}
			levels[level] = true
			var calls []string
			for _, c := range children[s.SpanContext.SpanID()] {
				if strings.HasPrefix(c.Name, "upstream.") {
					calls = append(calls, c.Name)
				}
			}
			if len(calls) != 1 {
				t.Errorf("batch %s at %s made %d upstream calls %v, want 1", s.Name, level, len(calls), calls)
			}
		case strings.HasPrefix(s.Name, "upstream.") && s.Name != "upstream.Authenticate":
			upstreams++
			if p := byID[s.Parent.SpanID()]; !strings.HasPrefix(p.Name, "graphql.batch ") {
				t.Errorf("%s is under %q, not a batch", s.Name, p.Name)
			}
		}
	}
	// session, its root goals, their children, the children's key results,
	// their check-ins, and the grandchildren: six levels.
	if batches != 6 || upstreams != 6 {
		t.Errorf("%d batches and %d upstream calls, want 6 levels with one each: %v", batches, upstreams, names(spans))
	}
}

// TestTraceparentContinued: a request carrying a W3C traceparent continues
// that trace: the server span has its trace id and the caller's span as
// its remote parent.
func TestTraceparentContinued(t *testing.T) {
	tr := newTraced(t)
	const traceID, parentID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	for _, path := range []string{"/api/v2/sessions", "/graphql"} {
		method, body := "GET", ""
		if path == "/graphql" {
			method, body = "POST", `{"query":"{ viewer { id } }"}`
		}
		spans := tr.do(t, method, path, body, map[string]string{"traceparent": "00-" + traceID + "-" + parentID + "-01"})
		root := oneTrace(t, spans, method+" "+path)
		if root.SpanContext.TraceID().String() != traceID || root.Parent.SpanID().String() != parentID || !root.Parent.IsRemote() {
			t.Errorf("%s: server span in trace %s under %s (remote %v), want trace %s under %s",
				path, root.SpanContext.TraceID(), root.Parent.SpanID(), root.Parent.IsRemote(), traceID, parentID)
		}
	}
}
