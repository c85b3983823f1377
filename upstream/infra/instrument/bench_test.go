package instrument_test

import (
	"context"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/infra/instrument"
	"github.com/okrgate/okrgate/upstream/infra/observe"
)

// oneGoal answers GetGoal at once: the cost measured is the decorator's.
type oneGoal struct{ upstream.API }

func (oneGoal) GetGoal(context.Context, string) (upstream.Goal, error) {
	return upstream.Goal{ID: "5f1a2b3c4d5e6f7a8b9c0d1e"}, nil
}

// BenchmarkDecorator: one call direct (the baseline), through the decorator
// in a request with tracing off, and with tracing on (a sampled span per
// call into an in-memory exporter).
//
//	go test ./upstream/infra/instrument -run '^$' -bench Decorator -count 3
func BenchmarkDecorator(b *testing.B) {
	ctx := observe.NewContext(context.Background(), &observe.Record{})
	run := func(b *testing.B, ctx context.Context, api upstream.API) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := api.GetGoal(ctx, "x"); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("direct", func(b *testing.B) { run(b, ctx, oneGoal{}) })
	b.Run("decorated", func(b *testing.B) { run(b, ctx, instrument.New(oneGoal{}, instrument.NewCounter())) })
	b.Run("decorated-traced", func(b *testing.B) {
		tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(tracetest.NewNoopExporter()))
		tctx, span := tp.Tracer("bench").Start(ctx, "request")
		defer span.End()
		run(b, tctx, instrument.New(oneGoal{}, instrument.NewCounter()))
	})
}
