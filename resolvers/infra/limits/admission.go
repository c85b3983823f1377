package limits

import (
	"context"
	"errors"
	"math"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/okrgate/okrgate/upstream"
)

// CodeOverloaded is the code of an operation the server's admission
// control refused: HTTP 503 with Retry-After over POST and GET, the same
// error in the operation's answer over websocket and SSE (the error
// table's upstream.CodeOverloaded, as REST's refusal).
var CodeOverloaded = upstream.CodeOverloaded.GraphQL()

// Admitter decides whether an operation may execute now (the server's
// admission control). Admit may wait; it returns the function to call once
// the operation is done, or an error: one with a RetryAfter method is a
// refusal, any other means the client went away.
type Admitter interface {
	Admit(ctx context.Context, write bool, key, class string) (release func(), err error)
}

// CostClass names the class of an operation of an estimated cost, for the
// admitter's execution-time estimates.
type CostClass func(cost int) string

// Admission is the operation interceptor that runs every query and
// mutation, whatever its transport (POST, GET, websocket, server-sent
// events), under the admission control and the request timeout. It runs
// after parsing, validation and the cost limit, so it knows the kind of
// operation and its estimated cost; subscriptions pass through: they last
// as long as their connection and their reads are bounded per subscription
// (live.Hub).
type Admission struct {
	Admitter Admitter  // nil: none
	Class    CostClass // nil: every operation in class ""
	Timeout  time.Duration
}

// AroundOperations is a gqlgen operation middleware: it admits the
// operation, bounds it by the timeout, and releases its admission once
// its last payload is answered.
func (a Admission) AroundOperations(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	oc := graphql.GetOperationContext(ctx)
	if oc == nil || oc.Operation == nil || oc.Operation.Operation == ast.Subscription {
		return next(ctx)
	}
	release := func() {}
	if a.Admitter != nil {
		cost := 0
		if s := extension.GetComplexityStats(ctx); s != nil {
			cost = s.Complexity
		}
		class := ""
		if a.Class != nil {
			class = a.Class(cost)
		}
		key := ""
		if c, ok := upstream.CallerFrom(ctx); ok {
			key = "account " + c.AccountID
		}
		r, err := a.Admitter.Admit(ctx, oc.Operation.Operation == ast.Mutation, key, class)
		if err != nil {
			return graphql.OneShot(&graphql.Response{Errors: gqlerror.List{refusal(err)}})
		}
		release = r
	}
	ctx, cancel := context.WithTimeout(ctx, a.Timeout)
	var once sync.Once
	done := func() { once.Do(func() { release(); cancel() }) }
	// The executor calls the handler once for a query or mutation, and
	// again for each deferred payload until one says hasNext false: the
	// slot and the timeout cover the whole answer. The timeout frees the
	// slot should a transport stop calling it.
	stop := context.AfterFunc(ctx, done)
	h := next(ctx)
	first := true
	return func(ctx context.Context) (resp *graphql.Response) {
		defer func() {
			if resp == nil || resp.HasNext == nil || !*resp.HasNext {
				stop()
				done()
			}
		}()
		resp = h(ctx)
		if resp == nil && first && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			// The executor ends a stream whose context is done without an
			// answer: say why instead.
			e := gqlerror.Errorf("the request took too long and was stopped")
			e.Extensions = map[string]any{"code": upstream.CodeTimeout.GraphQL()}
			resp = &graphql.Response{Errors: gqlerror.List{e}}
		}
		first = false
		return resp
	}
}

// refusal is the GraphQL error of an operation that was not admitted.
func refusal(err error) *gqlerror.Error {
	var r interface{ RetryAfter() time.Duration }
	if !errors.As(err, &r) {
		e := gqlerror.Errorf("the request was cancelled while it waited to execute")
		e.Extensions = map[string]any{"code": upstream.CodeClientClosed.GraphQL()}
		return e
	}
	e := gqlerror.Errorf("%s", err.Error())
	e.Extensions = map[string]any{"code": CodeOverloaded, "retryAfter": int(math.Ceil(r.RetryAfter().Seconds()))}
	return e
}
