package upstream_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// module is the import path of the repository's module.
const module = "github.com/okrgate/okrgate/"

// A room is a group of packages with one role (README.md, "Layout";
// docs/decisions/layout.md).
type room string

const (
	domain    room = "domain"
	graphql   room = "graphql"
	infra     room = "infrastructure"
	transport room = "transport"
	backend   room = "backend"
	tools     room = "tools"
	generator room = "generator"
	binary    room = "binary"
)

// roomOf places a package directory (slash-separated, relative to the
// repository's root) in its room: the longest prefix listed wins. A
// package no prefix covers has no room, and the test says so.
func roomOf(dir string) (room, bool) {
	prefixes := []struct {
		prefix string
		room   room
	}{
		{"upstream", domain},
		{"upstream/query", domain},
		{"upstream/accountfile", domain},
		{"upstream/apitest", domain},
		{"upstream/infra", infra},
		{"upstream/transport", transport},
		{"upstream/backend", backend},
		{"upstream/backend/client/gen", generator},
		{"upstream/seed", tools},
		{"upstream/accountpull", tools},
		{"graph", graphql},
		{"resolvers", graphql},
		{"resolvers/infra", infra},
		{"resolvers/transport", transport},
		{"cmd", binary},
	}
	best, found := "", room("")
	for _, p := range prefixes {
		if (dir == p.prefix || strings.HasPrefix(dir, p.prefix+"/")) && len(p.prefix) > len(best) {
			best, found = p.prefix, p.room
		}
	}
	return found, best != ""
}

// mayImport lists, for each room, the rooms its packages' non-test files
// may import besides their own. The domain imports nothing of the others:
// a transport, a backend or a piece of infrastructure is replaced without
// touching it. Transports and backends never import each other, so a
// facade serves any backend and a backend serves any facade.
var mayImport = map[room][]room{
	domain:    nil,
	graphql:   {domain, infra},
	infra:     {domain, graphql},
	transport: {domain, graphql, infra},
	backend:   {domain, infra},
	tools:     {domain, infra, backend},
	// The HTTP client's generator reads the REST route table to write
	// the client's methods (api_gen.go); the client does not import it.
	generator: {domain, transport},
	binary:    {domain, graphql, infra, transport, backend, tools},
}

// TestRoomsImportByTheirRoles: every package of the module is in a room,
// and imports only the rooms its role allows (mayImport). It reads the
// import lines of every non-test Go file of the repository.
func TestRoomsImportByTheirRoles(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var bad []string
	checked := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		dir := filepath.ToSlash(rel)
		from, ok := roomOf(dir)
		if !ok {
			bad = append(bad, dir+": in no room (add it to roomOf and to README.md's Layout)")
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		checked++
		for _, imp := range f.Imports {
			p := strings.Trim(imp.Path.Value, `"`)
			if !strings.HasPrefix(p, module) {
				continue
			}
			to, ok := roomOf(strings.TrimPrefix(p, module))
			if !ok || to == from {
				continue
			}
			allowed := false
			for _, r := range mayImport[from] {
				allowed = allowed || r == to
			}
			if !allowed {
				bad = append(bad, filepath.ToSlash(mustRel(root, path))+": the "+string(from)+" imports "+p+" ("+string(to)+")")
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("read only %d files: the walk is wrong", checked)
	}
	sort.Strings(bad)
	bad = compact(bad)
	for _, b := range bad {
		t.Error(b)
	}
}

func mustRel(root, path string) string {
	rel, err := filepath.Rel(root, path)
	if err != nil {
		return path
	}
	return rel
}

// compact drops repeated lines of a sorted slice.
func compact(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// TestRoomsOfThisTest: the rule's table places the packages it names
// where README.md's Layout says, so that a renamed room fails here first.
func TestRoomsOfThisTest(t *testing.T) {
	for dir, want := range map[string]room{
		"upstream":                        domain,
		"upstream/backend/sqlstore":       backend,
		"upstream/transport/rest":         transport,
		"upstream/infra/observe":          infra,
		"resolvers/transport/graphqlhttp": transport,
		"resolvers/infra/respcache":       infra,
		"resolvers/live":                  graphql,
		"upstream/seed":                   tools,
		"cmd/okrgate/internal/loadtest":   binary,
	} {
		if _, err := os.Stat(filepath.Join("..", dir)); err != nil {
			t.Errorf("%s: %v", dir, err)
		}
		if got, _ := roomOf(dir); got != want {
			t.Errorf("roomOf(%s) = %s, want %s", dir, got, want)
		}
	}
}
