// Command fastgen runs gqlgen's code generation (gqlgen.yml, as `go run
// github.com/99designs/gqlgen generate` does) with one plugin more, which
// writes graph/fast_gen.go: the per-type tables of the breadth-first
// executor in graph/fast.go (which fields of each object are plain values,
// how each of the others resolves, how a resolver's result breaks into
// objects), from the very data gqlgen generates its executor from. Run it
// from the module root:
//
//	go run ./graph/fastgen
//
// The tables call gqlgen's own generated field-context, argument and
// marshal functions, so a value the fast path writes is byte for byte the
// one gqlgen's executor would write.
package main

import (
	_ "embed"
	"fmt"
	"go/types"
	"io"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/99designs/gqlgen/api"
	"github.com/99designs/gqlgen/codegen"
	"github.com/99designs/gqlgen/codegen/config"
	"github.com/99designs/gqlgen/codegen/templates"
	"github.com/vektah/gqlparser/v2/ast"
)

//go:embed fast.gotpl
var tmpl string

func main() {
	// gqlgen's binder logs every binding it tries; its own command discards
	// them too.
	log.SetOutput(io.Discard)
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "fastgen:", err)
		os.Exit(1)
	}
}

func run() error {
	cfg, err := config.LoadConfigFromDefaultLocations()
	if err != nil {
		return fmt.Errorf("load gqlgen config: %w", err)
	}
	if err := api.Generate(cfg, api.AddPlugin(tables{})); err != nil {
		return fmt.Errorf("generate: %w", err)
	}
	return nil
}

// tables is the gqlgen plugin that writes fast_gen.go beside the executor,
// from the same data gqlgen generates the executor from.
type tables struct{}

// Name names the plugin.
func (tables) Name() string { return "fastpath" }

// GenerateCode writes fast_gen.go.
func (tables) GenerateCode(data *codegen.Data) error {
	cfg := data.Config
	out := filepath.Join(filepath.Dir(cfg.Exec.Filename), "fast_gen.go")
	_ = os.Remove(out)
	return templates.Render(templates.Options{
		PackageName:     cfg.Exec.Package,
		Template:        tmpl,
		Filename:        out,
		Data:            build(data),
		GeneratedHeader: true,
		Packages:        cfg.Packages,
	})
}

// The kinds of field, as graph/fast.go names them.
const (
	kindPlain  = "fastPlain"
	kindLeaf   = "fastLeaf"
	kindObject = "fastObjectField"
)

type fastData struct {
	Objects []*object
	// Cases of fastFlatten, concrete types first.
	Slices, Pointers, Values []goCase
	IfaceSlices              []types.Type
}

type object struct {
	*codegen.Object
	// Plain fields are read from the model; Leaf fields resolve to a
	// scalar or enum, Objs to objects; Resolve is Leaf and Objs.
	Plain, Leaf, Objs, Resolve []*codegen.Field
}

type goCase struct {
	Type types.Type
	Name string // GraphQL object type
	Ptr  bool   // a slice of pointers
}

// build sorts the fields of every object type by what the fast path can do
// with them. A field it cannot serve (arguments on a plain field, a
// directive, a map-bound or batch field, a non-null pointer) stays out of
// the tables: a selection naming it runs on gqlgen's executor.
func build(data *codegen.Data) *fastData {
	d := &fastData{}
	byGo := map[string][]string{}
	for _, o := range data.Objects {
		if o.Root || o.Stream || strings.HasPrefix(o.Name, "__") || len(o.Directives) > 0 {
			continue
		}
		ob := &object{Object: o}
		for _, f := range o.Fields {
			switch fieldKind(f) {
			case kindPlain:
				ob.Plain = append(ob.Plain, f)
			case kindLeaf:
				ob.Leaf = append(ob.Leaf, f)
				ob.Resolve = append(ob.Resolve, f)
			case kindObject:
				ob.Objs = append(ob.Objs, f)
				ob.Resolve = append(ob.Resolve, f)
			}
		}
		d.Objects = append(d.Objects, ob)
		if named, ok := o.Type.(*types.Named); ok {
			if _, isStruct := named.Underlying().(*types.Struct); isStruct {
				key := named.String()
				byGo[key] = append(byGo[key], o.Name)
			}
		}
	}
	// A Go type bound to one GraphQL object type names it; one bound to
	// several cannot, so values of it go to gqlgen.
	for _, ob := range d.Objects {
		named, ok := ob.Type.(*types.Named)
		if !ok || len(byGo[named.String()]) != 1 {
			continue
		}
		ptr := types.NewPointer(named)
		d.Slices = append(d.Slices, goCase{Type: types.NewSlice(named), Name: ob.Name},
			goCase{Type: types.NewSlice(ptr), Name: ob.Name, Ptr: true})
		d.Pointers = append(d.Pointers, goCase{Type: ptr, Name: ob.Name})
		d.Values = append(d.Values, goCase{Type: named, Name: ob.Name})
	}
	var ifaces []string
	for name := range data.Interfaces {
		ifaces = append(ifaces, name)
	}
	sort.Strings(ifaces)
	seen := map[string]bool{}
	for _, name := range ifaces {
		i := data.Interfaces[name]
		if _, ok := i.Type.Underlying().(*types.Interface); !ok || seen[i.Type.String()] {
			continue
		}
		seen[i.Type.String()] = true
		if i.Type.String() == "interface{}" || i.Type.String() == "any" {
			continue
		}
		d.IfaceSlices = append(d.IfaceSlices, types.NewSlice(i.Type))
	}
	return d
}

func fieldKind(f *codegen.Field) string {
	if f.IsBatch() || f.HasDirectives() || f.Stream || f.HasHaser || f.VOkFunc || f.IsMap() || f.TypeReference == nil {
		return ""
	}
	if f.Name == "__typename" {
		return ""
	}
	def := f.TypeReference.Definition
	leaf := def.Kind == ast.Scalar || def.Kind == ast.Enum
	switch {
	case leaf && !f.IsResolver && len(f.Args) == 0 && !(f.TypeReference.GQL.NonNull && f.TypeReference.IsPtr()) &&
		(f.IsVariable() || (f.IsMethod() && f.NoErr && !f.MethodHasContext)):
		return kindPlain
	case !f.IsResolver && !f.IsVariable() && !f.IsMethod():
		return ""
	case leaf:
		return kindLeaf
	case def.Kind == ast.Object || def.Kind == ast.Interface || def.Kind == ast.Union:
		return kindObject
	}
	return ""
}
