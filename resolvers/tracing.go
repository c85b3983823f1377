package resolvers

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/okrgate/okrgate/upstream/infra/observe"
)

// TracerName names the tracer of the GraphQL spans: the batches of each
// level here, the operations in package graphqlhttp.
const TracerName = "github.com/okrgate/okrgate/resolvers"

// batchSpan opens the span of one batch: the load of an edge for every
// parent of a level (or a stray parent), when the request is traced.
func batchSpan(ctx context.Context, edge, path string, keys int, stray bool) (context.Context, trace.Span) {
	if !trace.SpanFromContext(ctx).IsRecording() {
		return ctx, nil
	}
	return observe.Tracer(ctx, TracerName).Start(ctx, "graphql.batch "+edge, trace.WithAttributes(
		attribute.String("graphql.edge", edge), attribute.String("graphql.level", path),
		attribute.Int("graphql.batch.keys", keys), attribute.Bool("graphql.batch.stray", stray)))
}

// endBatch closes a batch's span.
func endBatch(span trace.Span, err error) {
	if span == nil {
		return
	}
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, "batch failed")
	}
	span.End()
}
