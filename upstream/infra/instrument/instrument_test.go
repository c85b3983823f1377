package instrument_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/infra/instrument"
	"github.com/okrgate/okrgate/upstream/infra/observe"
)

// TestEveryMethodCounted calls every method of upstream.API through the
// decorator over a nil API: a decorated method counts the call (in the
// Counter and in the request's Record) before the nil API panics.
func TestEveryMethodCounted(t *testing.T) {
	ctxType := reflect.TypeOf((*context.Context)(nil)).Elem()
	apiType := reflect.TypeOf((*upstream.API)(nil)).Elem()
	if apiType.NumMethod() < 100 {
		t.Fatalf("upstream.API has %d methods; expected the whole contract", apiType.NumMethod())
	}
	for i := 0; i < apiType.NumMethod(); i++ {
		m := apiType.Method(i)
		if m.Name == "Writing" {
			continue // binds options, calls nothing: TestWritingViewDecorated
		}
		c := instrument.NewCounter()
		rec := &observe.Record{}
		ctx := observe.NewContext(context.Background(), rec)
		w := reflect.ValueOf(instrument.New(nil, c)).MethodByName(m.Name)
		args := make([]reflect.Value, m.Type.NumIn())
		for j := range args {
			if in := m.Type.In(j); in == ctxType {
				args[j] = reflect.ValueOf(ctx)
			} else {
				args[j] = reflect.Zero(in)
			}
		}
		func() {
			defer func() { _ = recover() }()
			w.Call(args)
		}()
		if got := c.Snapshot()[m.Name]; got != 1 {
			t.Errorf("%s: counted %d calls, want 1 (run go generate ./upstream/infra/instrument)", m.Name, got)
		}
		if rec.UpstreamCalls() != 1 {
			t.Errorf("%s: the request's record counted %d calls, want 1", m.Name, rec.UpstreamCalls())
		}
	}
}

// versioned is an upstream.API whose only working method is Version.
type versioned struct{ upstream.API }

func (versioned) Version(_ context.Context, kind, id string) (string, error) {
	return `"` + kind + "/" + id + `"`, nil
}

// TestCapabilitiesForwarded: the capabilities of upstream.API (here
// Versions) reach the wrapped API through the decorator and are counted,
// with no type assertion on either side.
func TestCapabilitiesForwarded(t *testing.T) {
	c := instrument.NewCounter()
	api := instrument.New(versioned{}, c)
	tag, err := api.Version(context.Background(), upstream.KindGoal, "g1")
	if err != nil || tag != `"goal/g1"` {
		t.Fatalf("Version = %q, %v; want the wrapped API's tag", tag, err)
	}
	if n := c.Snapshot()["Version"]; n != 1 {
		t.Errorf("Version counted %d times, want 1", n)
	}
}

// optioned is an upstream.API whose DeleteGoal needs the precondition of
// the view it is called through, and marks it done.
type optioned struct {
	upstream.API
	opts upstream.WriteOptions
}

func (o optioned) Writing(opts upstream.WriteOptions) upstream.API {
	o.opts = opts
	return o
}

func (o optioned) DeleteGoal(context.Context, string) error {
	if o.opts.Precondition == nil {
		return upstream.Errorf(upstream.CodeInvalid, "no precondition")
	}
	o.opts.Precondition.Done = true
	return nil
}

// TestWritingViewDecorated: the view the decorator returns for write
// options is the wrapped API's view, decorated: its writes carry the
// options and are counted; binding counts nothing; the decorator itself
// stays without options.
func TestWritingViewDecorated(t *testing.T) {
	c := instrument.NewCounter()
	api := instrument.New(optioned{}, c)
	p := &upstream.Precondition{Kind: upstream.KindGoal, ID: "g1", IfMatch: []string{"*"}}
	if err := api.Writing(upstream.WriteOptions{Precondition: p}).DeleteGoal(context.Background(), "g1"); err != nil {
		t.Fatalf("DeleteGoal through the view: %v", err)
	}
	if !p.Done {
		t.Error("the wrapped API's write did not see the view's precondition")
	}
	if err := api.DeleteGoal(context.Background(), "g1"); upstream.ErrorCode(err) != upstream.CodeInvalid {
		t.Errorf("DeleteGoal on the decorator itself = %v, want it without options", err)
	}
	got := c.Snapshot()
	if got["DeleteGoal"] != 2 || len(got) != 1 {
		t.Errorf("counted %v, want DeleteGoal twice and nothing else", got)
	}
}

// TestGeneratedInSync regenerates the decorator and compares it with the
// committed api_gen.go.
func TestGeneratedInSync(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the generator")
	}
	out := filepath.Join(t.TempDir(), "api_gen.go")
	cmd := exec.Command("go", "run", "./gen", "-o", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run ./gen: %v\n%s", err, b)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("api_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("api_gen.go is stale: run go generate ./upstream/infra/instrument")
	}
}
