package resolvers

import (
	"context"
	"reflect"
	"testing"

	"github.com/okrgate/okrgate/upstream"
)

// TestInstrumentCountsEveryMethod calls every method of upstream.API through
// Instrument over a nil API: a wrapped method counts the call before the nil
// API panics; a method the wrapper forgot is promoted and panics uncounted,
// which would make /metrics and the batching tests blind to it.
func TestInstrumentCountsEveryMethod(t *testing.T) {
	ctxType := reflect.TypeOf((*context.Context)(nil)).Elem()
	apiType := reflect.TypeOf((*upstream.API)(nil)).Elem()
	if apiType.NumMethod() < 100 {
		t.Fatalf("upstream.API has %d methods; expected the whole contract", apiType.NumMethod())
	}
	for i := 0; i < apiType.NumMethod(); i++ {
		m := apiType.Method(i)
		c := NewCallCounter()
		w := reflect.ValueOf(Instrument(nil, c)).MethodByName(m.Name)
		args := make([]reflect.Value, m.Type.NumIn())
		for j := range args {
			in := m.Type.In(j)
			if in == ctxType {
				args[j] = reflect.ValueOf(context.Background())
			} else {
				args[j] = reflect.Zero(in)
			}
		}
		func() {
			defer func() { _ = recover() }()
			w.Call(args)
		}()
		if got := c.Snapshot()[m.Name]; got != 1 {
			t.Errorf("%s: counted %d calls, want 1 (add it to the instrumented wrapper)", m.Name, got)
		}
	}
}
