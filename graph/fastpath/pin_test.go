package fastpath

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
)

// fastPathGqlgen is the gqlgen release whose generated internals the fast
// path (this package, and graph/export_gen.go and tables_gen.go from
// graph/fastgen) was generated against and verified with:
// newExecutionContext, the fieldContext_* functions and the marshal*
// functions of graph/generated.go are unexported and may change in any
// release, minor ones included.
const fastPathGqlgen = "v0.17.95"

// gqlgenRequire finds gqlgen's version in a go.mod.
var gqlgenRequire = regexp.MustCompile(`(?m)^\s*(?:require\s+)?github\.com/99designs/gqlgen (v\S+)`)

// checkGqlgenPin returns an error when the go.mod mod names another gqlgen
// than fastPathGqlgen, or none.
func checkGqlgenPin(mod []byte) error {
	m := gqlgenRequire.FindSubmatch(mod)
	if m == nil {
		return fmt.Errorf("go.mod names no github.com/99designs/gqlgen")
	}
	if got := string(m[1]); got != fastPathGqlgen {
		return fmt.Errorf("go.mod has gqlgen %s; the fast path depends on gqlgen %s's unexported generated internals "+
			"(newExecutionContext, fieldContext_*, marshal*): regenerate, verify with TestFastPathAnswersAsGqlgen, "+
			"then set fastPathGqlgen to %s", got, fastPathGqlgen, got)
	}
	return nil
}

// TestFastPathPinnedToGqlgen fails when go.mod names another gqlgen than
// the one the fast path was verified with, so that an upgrade cannot pass
// CI by compiling alone: regenerate (go run ./graph/schemagen && go run
// github.com/99designs/gqlgen generate && go run ./graph/fastgen), run
// TestFastPathAnswersAsGqlgen in ./resolvers with -count=5 -cpu 1,2,4, read
// the diff of graph/generated.go for changed internals, then update
// fastPathGqlgen (docs/decisions/graphql-execution.md, "A breadth-first fast path under
// gqlgen").
func TestFastPathPinnedToGqlgen(t *testing.T) {
	mod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	if err := checkGqlgenPin(mod); err != nil {
		t.Fatal(err)
	}
}

// TestGqlgenPinRefusesOtherVersions: the pin's check refuses the
// repository's go.mod with gqlgen moved to another release, and one
// without gqlgen, so TestFastPathPinnedToGqlgen cannot pass whatever
// go.mod says.
func TestGqlgenPinRefusesOtherVersions(t *testing.T) {
	mod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	const name = "github.com/99designs/gqlgen " + fastPathGqlgen
	if !strings.Contains(string(mod), name) {
		t.Fatalf("go.mod does not name %s", name)
	}
	for _, other := range []string{"v0.17.96", "v0.18.0", "v0.17.9"} {
		moved := strings.Replace(string(mod), name, "github.com/99designs/gqlgen "+other, 1)
		if err := checkGqlgenPin([]byte(moved)); err == nil || !strings.Contains(err.Error(), other) {
			t.Errorf("go.mod with gqlgen %s: check said %v, want a refusal naming %s", other, err, other)
		}
	}
	without := strings.Replace(string(mod), name, "", 1)
	if err := checkGqlgenPin([]byte(without)); err == nil {
		t.Error("go.mod without gqlgen: check passed")
	}
}
