// Package instrument decorates an upstream.API so that every call is
// counted per method (for tests, /metrics and the request's access line)
// and traced as a span of its own. The REST facade and GraphQL are served
// through the same decorator, so both are measured alike.
//
// The decorator's methods are generated from the upstream.API interface
// (api_gen.go, by ./gen): a method added to the interface is instrumented
// by the next go generate, and CI fails while the committed file is stale.
package instrument

//go:generate go run ./gen -o api_gen.go

import (
	"context"
	"sort"
	"sync"
	"sync/atomic"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/infra/observe"
)

// TracerName names the tracer of the upstream-call spans.
const TracerName = "github.com/okrgate/okrgate/upstream/infra/instrument"

// New returns next decorated: each call is counted in c (which may be nil)
// and in the Record of the request (observe.Record.AddUpstreamCall), and,
// when the request is traced, runs inside a span "upstream.METHOD". Its
// capabilities (upstream.Versions, upstream.Idempotency) are next's, as
// methods of upstream.API like any other, and its views for write options
// (Writing) are decorated as it is.
func New(next upstream.API, c *Counter) upstream.API {
	return &decorator{next: next, c: c}
}

// decorator holds the generated methods (api_gen.go).
type decorator struct {
	next upstream.API
	c    *Counter
}

// Writing returns next's view for o, decorated alike: the calls made
// through the view are counted and traced as the decorator's own. Binding
// the options calls nothing upstream, so it is neither counted nor traced.
func (d *decorator) Writing(o upstream.WriteOptions) upstream.API {
	return &decorator{next: d.next.Writing(o), c: d.c}
}

// begin counts a call of method and opens its span when the request is
// traced (span is nil otherwise).
func (d *decorator) begin(ctx context.Context, method string) (context.Context, trace.Span) {
	d.c.inc(ctx, method)
	observe.FromContext(ctx).AddUpstreamCall()
	if !trace.SpanFromContext(ctx).IsRecording() {
		return ctx, nil
	}
	return observe.Tracer(ctx, TracerName).Start(ctx, "upstream."+method,
		trace.WithAttributes(attribute.String("okrgate.upstream.method", method)))
}

// end closes span with the outcome of the call: an error the caller caused
// (not_found, invalid, ...) is an attribute; an internal one is the span's
// error status.
func end(span trace.Span, err error) {
	if span == nil {
		return
	}
	if err != nil {
		code := upstream.ErrorCode(err)
		span.SetAttributes(attribute.String("okrgate.error.code", string(code)))
		if code == upstream.CodeInternal {
			span.RecordError(err)
			span.SetStatus(codes.Error, "internal error")
		}
	}
	span.End()
}

// Counter counts upstream.API calls per method. It is safe for concurrent
// use; tests read it, and /metrics exports it through OnCall.
type Counter struct {
	mu     sync.Mutex
	counts map[string]*atomic.Int64
	// OnCall, when set before use, is called once per call (the
	// Prometheus counter, observe.Metrics.UpstreamCall, hooks in here).
	OnCall func(ctx context.Context, method string)
}

// NewCounter returns an empty counter.
func NewCounter() *Counter { return &Counter{counts: map[string]*atomic.Int64{}} }

func (c *Counter) inc(ctx context.Context, method string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	n, ok := c.counts[method]
	if !ok {
		n = new(atomic.Int64)
		c.counts[method] = n
	}
	c.mu.Unlock()
	n.Add(1)
	if c.OnCall != nil {
		c.OnCall(ctx, method)
	}
}

// Snapshot returns the calls per method so far.
func (c *Counter) Snapshot() map[string]int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int64, len(c.counts))
	for k, v := range c.counts {
		if n := v.Load(); n > 0 {
			out[k] = n
		}
	}
	return out
}

// Total returns the number of calls so far.
func (c *Counter) Total() int64 {
	var t int64
	for _, n := range c.Snapshot() {
		t += n
	}
	return t
}

// Diff returns after minus before, per method, leaving out zeros.
func Diff(before, after map[string]int64) map[string]int64 {
	out := map[string]int64{}
	for k, v := range after {
		if d := v - before[k]; d != 0 {
			out[k] = d
		}
	}
	return out
}

// Methods lists the keys of m in order (for stable test output).
func Methods(m map[string]int64) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
