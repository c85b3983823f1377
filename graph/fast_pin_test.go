package graph

import (
	"os"
	"regexp"
	"testing"
)

// fastPathGqlgen is the gqlgen release whose generated internals the fast
// path (fast.go, and fast_gen.go from graph/fastgen) was generated against
// and verified with: newExecutionContext, the fieldContext_* functions and
// the marshal* functions of generated.go are unexported and may change in
// any release, minor ones included.
const fastPathGqlgen = "v0.17.95"

// TestFastPathPinnedToGqlgen fails when go.mod names another gqlgen than
// the one the fast path was verified with, so that an upgrade cannot pass
// CI by compiling alone: regenerate (go run ./graph/schemagen && go run
// github.com/99designs/gqlgen generate && go run ./graph/fastgen), run
// TestFastPathAnswersAsGqlgen in ./resolvers with -count=5 -cpu 1,2,4, read
// the diff of generated.go for changed internals, then update
// fastPathGqlgen (docs/decisions/graphql-execution.md, "A breadth-first fast path under
// gqlgen").
func TestFastPathPinnedToGqlgen(t *testing.T) {
	mod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*github\.com/99designs/gqlgen (v\S+)`).FindSubmatch(mod)
	if m == nil {
		t.Fatal("go.mod names no github.com/99designs/gqlgen")
	}
	if got := string(m[1]); got != fastPathGqlgen {
		t.Fatalf("go.mod has gqlgen %s; the fast path depends on gqlgen %s's unexported generated internals "+
			"(newExecutionContext, fieldContext_*, marshal*): regenerate, verify with TestFastPathAnswersAsGqlgen, "+
			"then set fastPathGqlgen to %s", got, fastPathGqlgen, got)
	}
}
