package sqlstore_test

import (
	"strings"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore/sqlstoretest"
	"github.com/okrgate/okrgate/upstream/infra/observe"
)

// TestStatementsObserved: every statement the store counts is counted in
// the request's record too, a read and a write (with its prepared
// statements) alike, and, when the request is traced, has a span of its own
// with its text and never its arguments.
func TestStatementsObserved(t *testing.T) {
	e := newEnv(t)
	s := e.session(upstream.SessionInput{})
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	rec := &observe.Record{}
	ctx, span := tp.Tracer("test").Start(observe.NewContext(e.ctx, rec), "request")
	before := e.store.QueryCount()
	if _, err := e.store.ListGoals(ctx, upstream.ListQuery{}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.CreateGoal(ctx, upstream.GoalInput{Name: "secret-name-42", SessionID: s.ID}); err != nil {
		t.Fatal(err)
	}
	span.End()
	n := e.store.QueryCount() - before
	if rec.SQLStatements() != n || n == 0 {
		t.Errorf("record counted %d statements, the store %d", rec.SQLStatements(), n)
	}
	var sqls int
	for _, s := range exp.GetSpans() {
		if !strings.HasPrefix(s.Name, "sql ") {
			continue
		}
		sqls++
		for _, a := range s.Attributes {
			if strings.Contains(a.Value.String(), "secret-name-42") {
				t.Errorf("span %s carries an argument: %s", s.Name, a.Value.String())
			}
		}
	}
	// On SQLite BEGIN is counted but runs no statement of its own
	// (BeginTx); on PostgreSQL the statements a write sends together
	// (pipeline.go) share a span, one per round trip.
	want := n - 1
	if sqlstoretest.Postgres() {
		want = rec.SQLRoundTrips()
	}
	if int64(sqls) != want {
		t.Errorf("%d SQL spans for %d statements in %d round trips", sqls, n, rec.SQLRoundTrips())
	}
}
