package resolvers

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/okrgate/okrgate/resolvers/infra/limits"
	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/infra/observe"
	"github.com/okrgate/okrgate/upstream/query"
)

// GraphQL error codes (extensions.code) of the error table
// (upstream.Codes): the code of each upstream.Code, named here for the
// handler and its tests. They are read from the table, never restated.
var (
	CodeUnauthenticated     = upstream.CodeUnauthenticated.GraphQL()
	CodeForbidden           = upstream.CodeForbidden.GraphQL()
	CodeNotFound            = upstream.CodeNotFound.GraphQL()
	CodeBadUserInput        = upstream.CodeInvalid.GraphQL()
	CodeConflict            = upstream.CodeConflict.GraphQL()
	CodeNotModified         = upstream.CodeNotModified.GraphQL()
	CodeAccountSuspended    = upstream.CodePaymentRequired.GraphQL()
	CodeSessionLocked       = upstream.CodeSessionLocked.GraphQL()
	CodeSessionClosed       = upstream.CodeSessionClosed.GraphQL()
	CodeGoalAbandoned       = upstream.CodeGoalAbandoned.GraphQL()
	CodeLimitExceeded       = upstream.CodeLimitExceeded.GraphQL()
	CodeInsufficientScope   = upstream.CodeInsufficientScope.GraphQL() // a write with a read-only token
	CodeTimeout             = upstream.CodeTimeout.GraphQL()
	CodeInternal            = upstream.CodeInternal.GraphQL()
	CodeClientClosed        = upstream.CodeClientClosed.GraphQL() // the client went away; logged with StatusClientClosed
	CodeUnsupportedMedia    = upstream.CodeUnsupportedMediaType.GraphQL()
	CodeRequestTooLarge     = upstream.CodeRequestTooLarge.GraphQL()
	CodePreconditionFailed  = upstream.CodePreconditionFailed.GraphQL()  // a write whose If-Match no longer matches
	CodeUpstreamUnavailable = upstream.CodeUnavailable.GraphQL()         // gateway mode: the upstream did not answer
	CodeUnavailable         = upstream.CodeDatabaseUnavailable.GraphQL() // the database is unavailable
	CodeStorageFull         = upstream.CodeStorageFull.GraphQL()         // the database has no space for the write
	CodeOutcomeUnknown      = upstream.CodeOutcomeUnknown.GraphQL()      // a write's commit was interrupted
)

// GraphQL error codes that only the GraphQL endpoint produces (rows of the
// error table marked GraphQLOnly, and malformed_request's BAD_REQUEST).
// The codes of the limits are package limits'.
var (
	CodeComplexityLimit   = upstream.CodeComplexityLimit.GraphQL() // gqlgen's own code
	CodeBadRequest        = upstream.CodeMalformedRequest.GraphQL()
	CodeIntrospectionOff  = upstream.CodeIntrospectionDisabled.GraphQL()
	CodeValidationFailed  = upstream.CodeGraphQLValidationFailed.GraphQL() // gqlgen's own code
	CodeParseFailed       = upstream.CodeGraphQLParseFailed.GraphQL()      // gqlgen's own code
	CodePersistedNotFound = upstream.CodePersistedQueryNotFound.GraphQL()  // gqlgen's own code
)

// GraphQLCode maps an upstream error code to extensions.code, by the error
// table (upstream.Codes).
func GraphQLCode(c upstream.Code) string { return c.GraphQL() }

// StatusClientClosed is the status logged for a request whose client went
// away before its answer (nginx's 499), instead of an internal error.
const StatusClientClosed = observe.StatusClientClosed

// RequestID returns the id the observe stack gave the request of ctx ("" if
// none).
func RequestID(ctx context.Context) string { return observe.RequestID(ctx) }

// LogError puts err, the cause of an error masked for the client, on the
// request's access line (observe.Record.SetError): one line per request
// however many fields failed. Served without the observe stack, it logs a
// line of its own.
func LogError(ctx context.Context, log *slog.Logger, level slog.Level, msg string, err error, attrs ...any) {
	if rec := observe.FromContext(ctx); rec != nil {
		rec.SetError(err)
		return
	}
	log.Log(ctx, level, msg, append([]any{"request_id", RequestID(ctx), "err", err}, attrs...)...)
}

// ErrorPresenter gives every error an extensions.code and masks internal
// errors: their detail goes to the log with the request id, the client sees
// only "internal error" and that id.
func ErrorPresenter(log *slog.Logger) graphql.ErrorPresenterFunc {
	return func(ctx context.Context, err error) *gqlerror.Error {
		if errors.Is(err, limits.ErrBudget) {
			// Fields refused after the budget ran out: the response
			// middleware replaces them all with one error.
			return &gqlerror.Error{Message: limits.ErrBudget.Error()}
		}
		gerr := graphql.DefaultErrorPresenter(ctx, err)
		ue := upstream.Classify(err)
		infra := ue != nil && ue.Code.Infrastructure()
		var qe *query.Error
		switch {
		case infra && errors.Is(ctx.Err(), context.Canceled):
			// A store error of a request its client left (a statement
			// cancelled with it): not a failure of the database.
			clientClosed(ctx, log, gerr, err)
		case (ue == nil || infra) && (errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded)):
			// Also a store error caused by the deadline (PostgreSQL's
			// query_canceled after the cancel request).
			gerr.Message = "the request took too long and was stopped"
			setCode(gerr, CodeTimeout)
			gerr.Extensions["retryAfter"] = upstream.CodeTimeout.RetryAfter()
		case infra:
			// The database (or the gateway's upstream) is unavailable,
			// slow or full: its code, the Retry-After the transport
			// answers, and the cause on the access line.
			LogError(ctx, log, slog.LevelWarn, "graphql: "+string(ue.Code), err, "path", gerr.Path.String())
			gerr.Message = ue.Message
			setCode(gerr, GraphQLCode(ue.Code))
			if ra := ue.Code.RetryAfter(); ra > 0 {
				gerr.Extensions["retryAfter"] = ra
			}
		case errors.As(err, &qe):
			// A filter, sort or projection the store validated (saved
			// lists): the input's fault, as in REST (invalid_filter).
			gerr.Message = qe.Error()
			setCode(gerr, CodeBadUserInput)
			gerr.Extensions["fields"] = []upstream.FieldError{{Field: cmp.Or(qe.Param, "filter"), Message: qe.Message}}
		case ue != nil && ue.Code != upstream.CodeInternal:
			gerr.Message = ue.Message
			setCode(gerr, GraphQLCode(ue.Code))
			if len(ue.Fields) > 0 {
				gerr.Extensions["fields"] = ue.Fields
			}
		case strings.HasSuffix(err.Error(), "introspection disabled"):
			gerr.Message = "introspection is disabled on this server"
			setCode(gerr, CodeIntrospectionOff)
		case isGraphQLOwn(err):
			// Parse, validation, coercion and limit errors of gqlgen itself:
			// their messages are safe and helpful.
			if gerr.Extensions == nil || gerr.Extensions["code"] == nil {
				setCode(gerr, CodeBadUserInput)
			}
		case errors.Is(err, context.Canceled) || errors.Is(ctx.Err(), context.Canceled):
			// The client went away mid-request: not a server failure.
			clientClosed(ctx, log, gerr, err)
		default:
			id := RequestID(ctx)
			LogError(ctx, log, slog.LevelError, "graphql: internal error", err, "path", gerr.Path.String())
			gerr.Message = "internal error"
			gerr.Extensions = map[string]any{"code": CodeInternal, "requestId": id}
		}
		return gerr
	}
}

// RecoverFunc turns a panic of a resolver into an error, masked by the
// error presenter; the panic and its stack go on the request's access
// line, or to log served without the observe stack.
func RecoverFunc(log *slog.Logger) graphql.RecoverFunc {
	return func(ctx context.Context, p any) error {
		err := observe.Panic(p, debug.Stack())
		if rec := observe.FromContext(ctx); rec != nil {
			rec.SetError(err) // on the access line, with its stack
		} else {
			log.ErrorContext(ctx, "graphql: panic", "request_id", RequestID(ctx), "panic", p, "stack", string(debug.Stack()))
		}
		return fmt.Errorf("panic: %v", p) // masked by the error presenter
	}
}

// isGraphQLOwn reports whether err was made by gqlgen/gqlparser rather than
// returned by a resolver: a *gqlerror.Error without a wrapped cause.
func isGraphQLOwn(err error) bool {
	var g *gqlerror.Error
	if !errors.As(err, &g) {
		return false
	}
	if g.Err == nil {
		return true
	}
	// Input coercion errors wrap the scalar's error; their message says what
	// was wrong with the input.
	return strings.Contains(g.Message, "cannot unmarshal") || g.Extensions["code"] != nil
}

// clientClosed makes gerr say that the client went away before its answer
// (err, a cancelled call, is logged at Info: not a server failure).
func clientClosed(ctx context.Context, log *slog.Logger, gerr *gqlerror.Error, err error) {
	observe.FromContext(ctx).SetClientClosed()
	LogError(ctx, log, slog.LevelInfo, "graphql: client closed", err, "status", StatusClientClosed, "path", gerr.Path.String())
	gerr.Message = "the client closed the request before its answer"
	setCode(gerr, CodeClientClosed)
}

func setCode(e *gqlerror.Error, code string) {
	if e.Extensions == nil {
		e.Extensions = map[string]any{}
	}
	e.Extensions["code"] = code
}
