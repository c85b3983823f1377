package upstream_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// wholeAPIAllowed are the packages that may take or store the whole
// upstream.API, each with why: everything else takes the services it calls,
// in an interface it owns (docs/decisions/interfaces.md, "Consumers take
// the services they call, in interfaces they own").
var wholeAPIAllowed = map[string]string{
	module + "cmd":                       "the binary composes the backend and hands each consumer its part",
	module + "upstream/infra/instrument": "the generated decorator wraps every method of the API",
}

// TestConsumersTakeWhatTheyUse fails when a package outside cmd/ and the
// generated decorator takes or stores the whole upstream.API: a function
// or method parameter, a struct field or an interface embedding whose type
// is upstream.API, or any interface that holds every one of its methods (a
// copy of the composition under another name). A consumer names the
// services it calls instead (rest.Backend, resolvers.Services, ...). Only
// the packages themselves are read, not their tests, which may build
// whatever backend they test with.
func TestConsumersTakeWhatTheyUse(t *testing.T) {
	pkgs := loadModule(t)
	api := apiInterface(t, pkgs)
	var found []string
	for _, p := range pkgs {
		if allowedWhole(p.PkgPath) {
			continue
		}
		found = append(found, wholeAPIUses(p.Types, api)...)
	}
	for _, f := range found {
		t.Errorf("%s: the whole upstream.API; take an interface of the services called, owned where they are called", f)
	}
}

// TestConsumersGuardFindsPlanted checks the guard against a planted
// package that takes the whole API in each way it looks for, and one that
// does not.
func TestConsumersGuardFindsPlanted(t *testing.T) {
	pkgs := load(t, packages.NeedName|packages.NeedTypes, module+"upstream")
	api := apiInterface(t, pkgs)
	up := pkgs[0].Types
	const planted = `package planted

import "github.com/okrgate/okrgate/upstream"

type holder struct{ api upstream.API }

func take(n int, api upstream.API) {}

type embeds interface{ upstream.API }

type copied interface {
	upstream.AuthService
	upstream.TokenService
	upstream.GoalService
	upstream.MetricService
	upstream.TaskService
	upstream.SessionService
	upstream.UserService
	upstream.AvatarService
	upstream.TeamService
	upstream.AccountService
	upstream.EmployeeService
	upstream.RoleService
	upstream.PermissionService
	upstream.TagService
	upstream.BadgeService
	upstream.DashboardService
	upstream.KPIService
	upstream.ListService
	upstream.AnnouncementService
	upstream.CommentService
	upstream.Versions
	upstream.Idempotency
	upstream.Writable
}

func takeCopy(c copied) {}

type narrow interface {
	upstream.GoalService
	upstream.Writable
}

func takeNarrow(n narrow) {}

func (holder) method(p *upstream.API) {}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "planted.go", planted, 0)
	if err != nil {
		t.Fatal(err)
	}
	conf := types.Config{Importer: importerFunc(func(path string) (*types.Package, error) {
		if path != up.Path() {
			return nil, fmt.Errorf("planted imports %s, not upstream", path)
		}
		return up, nil
	})}
	var errs []error
	conf.Error = func(err error) { errs = append(errs, err) }
	pkg, _ := conf.Check("planted", fset, []*ast.File{f}, nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	got := wholeAPIUses(pkg, api)
	want := []string{
		"planted.copied: holds every method of upstream.API",
		"planted.embeds: embeds upstream.API",
		"planted.holder.method: parameter p of type *upstream.API",
		"planted.holder: field api of type upstream.API",
		"planted.take: parameter api of type upstream.API",
		"planted.takeCopy: parameter c of type planted.copied",
	}
	if !slices.Equal(got, want) {
		t.Errorf("the guard found in the planted package:\n\t%s\nwant:\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

// loadModule loads every package of the module, without their tests,
// type-checked from source: export data would leave out the unexported
// declarations no exported one refers to.
func loadModule(t *testing.T) []*packages.Package {
	t.Helper()
	if testing.Short() {
		t.Skip("type-checks every package of the module")
	}
	return load(t, packages.NeedName|packages.NeedTypes|packages.NeedSyntax|packages.NeedTypesInfo, module+"...")
}

// load loads the packages of pattern in mode.
func load(t *testing.T, mode packages.LoadMode, pattern string) []*packages.Package {
	t.Helper()
	pkgs, err := packages.Load(&packages.Config{Mode: mode, Dir: ".."}, pattern)
	if err != nil {
		t.Fatal(err)
	}
	var errs []string
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			errs = append(errs, e.Error())
		}
	})
	if len(errs) > 0 {
		t.Fatalf("loading the module: %s", strings.Join(errs, "; "))
	}
	return pkgs
}

// apiInterface returns upstream.API's named type.
func apiInterface(t *testing.T, pkgs []*packages.Package) *types.Named {
	t.Helper()
	for _, p := range pkgs {
		if p.PkgPath == module+"upstream" {
			if obj, ok := p.Types.Scope().Lookup("API").(*types.TypeName); ok {
				return obj.Type().(*types.Named)
			}
		}
	}
	t.Fatal("upstream.API not found")
	return nil
}

// allowedWhole reports whether the package at path is, or is inside, one
// of wholeAPIAllowed.
func allowedWhole(path string) bool {
	for p := range wholeAPIAllowed {
		if path == p || strings.HasPrefix(path, p+"/") {
			return true
		}
	}
	return false
}

// wholeAPIUses lists, sorted, where the declarations of pkg take or store
// the whole API: parameters of functions and methods, struct fields and
// interface embeddings. upstream.API's own declaration is not a use.
func wholeAPIUses(pkg *types.Package, api *types.Named) []string {
	iface := api.Underlying().(*types.Interface)
	// whole reports whether t, through pointers, is an interface holding
	// every method of the API.
	whole := func(t types.Type) bool {
		for {
			p, ok := t.(*types.Pointer)
			if !ok {
				break
			}
			t = p.Elem()
		}
		if types.Identical(t, api) {
			return true
		}
		_, isIface := t.Underlying().(*types.Interface)
		return isIface && types.Implements(t, iface)
	}
	qual := types.RelativeTo(nil)
	name := func(t types.Type) string {
		return strings.ReplaceAll(types.TypeString(t, qual), module, "")
	}
	short := func(obj types.Object) string { return obj.Pkg().Name() + "." + obj.Name() }
	var out []string
	params := func(where string, sig *types.Signature) {
		for v := range sig.Params().Variables() {
			if whole(v.Type()) {
				out = append(out, fmt.Sprintf("%s: parameter %s of type %s", where, v.Name(), name(v.Type())))
			}
		}
	}
	scope := pkg.Scope()
	for _, n := range scope.Names() {
		obj := scope.Lookup(n)
		if obj.Pkg().Path() == module+"upstream" && obj.Name() == api.Obj().Name() {
			continue
		}
		switch obj := obj.(type) {
		case *types.Func:
			params(short(obj), obj.Signature())
		case *types.TypeName:
			if obj.IsAlias() {
				continue
			}
			named, ok := obj.Type().(*types.Named)
			if !ok {
				continue
			}
			for m := range named.Methods() {
				params(short(obj)+"."+m.Name(), m.Signature())
			}
			switch u := named.Underlying().(type) {
			case *types.Struct:
				for f := range u.Fields() {
					if whole(f.Type()) {
						out = append(out, fmt.Sprintf("%s: field %s of type %s", short(obj), f.Name(), name(f.Type())))
					}
				}
			case *types.Interface:
				switch {
				case slices.ContainsFunc(slices.Collect(u.EmbeddedTypes()), func(e types.Type) bool { return types.Identical(e, api) }):
					out = append(out, fmt.Sprintf("%s: embeds upstream.API", short(obj)))
				case types.Implements(named, iface):
					out = append(out, fmt.Sprintf("%s: holds every method of upstream.API", short(obj)))
				}
				for m := range u.ExplicitMethods() {
					params(short(obj)+"."+m.Name(), m.Signature())
				}
			}
		}
	}
	slices.Sort(out)
	return out
}
