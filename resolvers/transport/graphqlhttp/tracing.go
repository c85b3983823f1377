package graphqlhttp

import (
	"cmp"
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/okrgate/okrgate/resolvers"
	"github.com/okrgate/okrgate/upstream/infra/observe"
)

// operationName is the name of the operation of ctx ("" if anonymous).
func operationName(ctx context.Context) string {
	if !graphql.HasOperationContext(ctx) {
		return ""
	}
	oc := graphql.GetOperationContext(ctx)
	if oc.OperationName != "" {
		return oc.OperationName
	}
	if oc.Operation != nil {
		return oc.Operation.Name
	}
	return ""
}

// traceOperation names the operation in the request's access line and, when
// the request is traced, wraps its execution in a span "graphql.operation
// NAME". Fields get no spans of their own (a tree has thousands); the
// batches of each level do (package resolvers), and under them the upstream calls.
func traceOperation(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	name := operationName(ctx)
	observe.FromContext(ctx).SetOperation(name)
	if !trace.SpanFromContext(ctx).IsRecording() {
		return next(ctx)
	}
	kind := ""
	if oc := graphql.GetOperationContext(ctx); oc.Operation != nil {
		kind = string(oc.Operation.Operation)
	}
	ctx, span := observe.Tracer(ctx, resolvers.TracerName).Start(ctx, "graphql.operation "+cmp.Or(name, "anonymous"),
		trace.WithAttributes(attribute.String("graphql.operation.name", name), attribute.String("graphql.operation.type", kind)))
	responses := next(ctx)
	ended := false
	return func(ctx context.Context) *graphql.Response {
		resp := responses(ctx)
		// A query or mutation answers once; a subscription until nil.
		if !ended && (resp == nil || kind != string(ast.Subscription)) {
			ended = true
			if resp != nil && len(resp.Errors) > 0 {
				span.SetAttributes(attribute.Int("graphql.errors", len(resp.Errors)))
			}
			span.End()
		}
		return resp
	}
}
