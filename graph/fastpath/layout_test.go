package fastpath

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// generatedHeader is Go's convention for a generated file's first comment
// (go help generate), naming the command that writes it.
var generatedHeader = regexp.MustCompile(`^// Code generated (by )?.*\S.* DO NOT EDIT\.$`)

// TestGraphHoldsOnlyGeneratedGo: every Go file directly in graph/ says in
// its first line that it is generated, and by what, so that hand-written
// code (this package, graph/model) lives in packages of its own and
// graph/ stays what gqlgen and go run ./graph/fastgen write
// (docs/decisions/graphql-execution.md, "A breadth-first fast path under gqlgen").
func TestGraphHoldsOnlyGeneratedGo(t *testing.T) {
	files, err := filepath.Glob("../*.go")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 3 {
		t.Fatalf("found %d Go files in graph/, want generated.go, federation.go and export_gen.go at least", len(files))
	}
	for _, file := range files {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		first := ""
		if sc.Scan() {
			first = sc.Text()
		}
		f.Close()
		if !generatedHeader.MatchString(first) {
			t.Errorf("%s is not generated (first line %q): hand-written Go belongs in a package below graph/, not in graph/", file, first)
		}
	}
}
