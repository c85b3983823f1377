package upstream_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/okrgate/okrgate/upstream"
)

// TestCodesComeFromTheTable: every stable error code (REST's problem code,
// GraphQL's extensions.code) is a row of the one error table
// (upstream.Codes), and the code that answers it reads it from there. It
// parses every hand-written Go file of the module (tests and generated
// files aside) and fails on
//
//   - a code declared in package upstream (a constant of type Code) that
//     has no row;
//   - a string constant or variable named Code… or GQLCode… outside
//     package upstream whose value is a literal (a code restated instead of
//     read with upstream.CodeX or CodeX.GraphQL());
//   - an error body built with a literal "code" (a map entry, an
//     Extensions["code"] assignment, or JSON text) that is not a code or
//     GraphQL code of the table.
func TestCodesComeFromTheTable(t *testing.T) {
	known := map[string]bool{}
	for _, row := range upstream.Codes() {
		known[string(row.Code)] = true
		known[row.GraphQL] = true
	}
	root := filepath.Join("..")
	codeName := regexp.MustCompile(`^(GQL)?Code[A-Z]`)
	jsonCode := regexp.MustCompile(`"code":"([A-Za-z][A-Za-z0-9_]*)"`)
	fset := token.NewFileSet()
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); name != ".." && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
		if err != nil {
			return err
		}
		if ast.IsGenerated(f) {
			return nil
		}
		files++
		inUpstream := filepath.Dir(path) == filepath.Join(root, "upstream")
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ValueSpec:
				for i, name := range n.Names {
					if !codeName.MatchString(name.Name) || i >= len(n.Values) {
						continue
					}
					lit, ok := n.Values[i].(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						continue
					}
					v, _ := strconv.Unquote(lit.Value)
					typed := false
					if id, ok := n.Type.(*ast.Ident); ok && id.Name == "Code" {
						typed = true
					}
					switch {
					case inUpstream && typed && !known[v]:
						t.Errorf("%s: %s (%q) is a Code without a row in the error table (upstream/codes.go)", fset.Position(name.Pos()), name.Name, v)
					case !inUpstream || !typed:
						t.Errorf("%s: %s restates the code %q: read it from the error table (upstream.CodeX, CodeX.GraphQL())", fset.Position(name.Pos()), name.Name, v)
					}
				}
			case *ast.KeyValueExpr:
				if isString(n.Key, "code") {
					checkLiteral(t, fset, n.Value, known)
				}
			case *ast.AssignStmt:
				for i, lhs := range n.Lhs {
					if ix, ok := lhs.(*ast.IndexExpr); ok && isString(ix.Index, "code") && i < len(n.Rhs) {
						checkLiteral(t, fset, n.Rhs[i], known)
					}
				}
			case *ast.BasicLit:
				if n.Kind != token.STRING {
					break
				}
				v, err := strconv.Unquote(n.Value)
				if err != nil {
					break
				}
				for _, m := range jsonCode.FindAllStringSubmatch(v, -1) {
					if !known[m[1]] {
						t.Errorf("%s: an error body with code %q, which the error table does not hold", fset.Position(n.Pos()), m[1])
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 200 {
		t.Fatalf("read %d Go files; the walk missed the module", files)
	}
}

// isString reports whether e is the string literal s.
func isString(e ast.Expr, s string) bool {
	lit, ok := e.(*ast.BasicLit)
	return ok && lit.Kind == token.STRING && lit.Value == strconv.Quote(s)
}

// codeShaped matches a string that can be an error code (a field's
// description under the key "code" cannot).
var codeShaped = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`)

// checkLiteral fails when e, the value of an error body's "code", is a
// string literal that is not a code of the table.
func checkLiteral(t *testing.T, fset *token.FileSet, e ast.Expr, known map[string]bool) {
	t.Helper()
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return
	}
	if v, _ := strconv.Unquote(lit.Value); codeShaped.MatchString(v) && !known[v] {
		t.Errorf("%s: an error body with code %q, which the error table does not hold", fset.Position(lit.Pos()), v)
	}
}

// TestCodesDocumented: docs/rest.md's error table lists every code REST
// answers with its status, and docs/graphql.md names every extensions.code
// of the table, so that a row added to upstream/codes.go is documented.
func TestCodesDocumented(t *testing.T) {
	rest, err := os.ReadFile(filepath.Join("..", "docs", "rest.md"))
	if err != nil {
		t.Fatal(err)
	}
	graphql, err := os.ReadFile(filepath.Join("..", "docs", "graphql.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range upstream.Codes() {
		if !regexp.MustCompile(`(^|[^A-Z_])` + row.GraphQL + `([^A-Z_]|$)`).Match(graphql) {
			t.Errorf("docs/graphql.md does not name %s (the GraphQL code of %s)", row.GraphQL, row.Code)
		}
		if row.GraphQLOnly {
			continue
		}
		want := "| `" + string(row.Code) + "` | " + strconv.Itoa(row.Status) + " |"
		if !strings.Contains(string(rest), want) {
			t.Errorf("docs/rest.md's error table has no row %q", want)
		}
	}
}
