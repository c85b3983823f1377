package sqlstore

import (
	"context"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/okrgate/okrgate/upstream/infra/observe"
)

// tracerName names the tracer of the statements' spans.
const tracerName = "github.com/okrgate/okrgate/upstream/backend/sqlstore"

// maxStatementText bounds the statement text a span carries.
const maxStatementText = 2048

// statement counts a statement in the request's record (its access line)
// and, when the request is traced, opens the statement's span. The span
// carries the statement's text with its placeholders, never its
// arguments. For a query it covers running the statement, not reading
// the rows after.
func statement(ctx context.Context, query string) (context.Context, trace.Span) {
	rec := observe.FromContext(ctx)
	rec.AddSQLStatement()
	rec.AddSQLRoundTrip()
	if !trace.SpanFromContext(ctx).IsRecording() {
		return ctx, nil
	}
	text := strings.TrimSpace(query)
	verb, _, _ := strings.Cut(text, " ")
	if len(text) > maxStatementText {
		text = text[:maxStatementText]
	}
	return observe.Tracer(ctx, tracerName).Start(ctx, "sql "+strings.ToUpper(verb),
		trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("db.query.text", text)))
}

// endStatement closes a statement's span.
func endStatement(span trace.Span, err error) {
	if span == nil {
		return
	}
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, "statement failed")
	}
	span.End()
}
