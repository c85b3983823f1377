// Command gen writes the HTTP client's methods of the REST operations that
// serve an upstream method one to one (upstream/backend/client/api_gen.go): for
// every route of the facade's table with an Operation (rest.Routes), the
// method of that name of upstream.API, calling the route with the method's
// leading string arguments as its path parameters and the argument after
// them as its body. It reads the methods' signatures with go/types, so a
// route given an Operation gets its client method by the next go generate,
// and CI fails while the committed file is out of date.
//
// Every other method of upstream.API is written by hand in the client and
// listed in handwritten with why; the generator fails on a method that is
// neither, so a method added to upstream.API is not left to the compiler
// alone to notice.
//
// Usage (from upstream/client, as its go:generate line runs it):
//
//	go run ./gen -o api_gen.go
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"go/types"
	"log"
	"net/http"
	"os"
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/transport/rest"
)

const upstreamPath = "github.com/okrgate/okrgate/upstream"

// Why methods are written by hand, by kind.
const (
	whyListing  = "a listing with arguments of its own beside the list query (includeDemo; a tag name), encoded as query parameters"
	whyFallback = "a listing the client answers with per-parent reads when the upstream lacks it (fallback.go, Capabilities)"
	whyShape    = "the answer or the request is not the method's own shape (a page, a wrapper, a query encoded as parameters, a 304 to tell apart)"
	whyTwo      = "one method, two routes (PUT to set, DELETE to unset)"
	whyAuth     = "authentication: cached per token, sent with the token to check (auth.go)"
	whyAvatar   = "a picture: a multipart upload, or an anonymous read of its bytes (avatars.go)"
	whyVersions = "versions and idempotency keys: read from or kept in headers (conditional.go)"
	whyWriting  = "binds write options to a copy of the client (conditional.go)"
)

// handwritten are the methods of upstream.API the client writes by hand.
var handwritten = map[string]string{
	"Authenticate":     whyAuth,
	"AuthenticateMany": whyAuth,

	"GoalsGroupedByOwners": whyShape,
	"AddGoalTag":           whyShape,
	"GoalsMet":             whyShape,
	"ListCheckIns":         whyFallback,
	"ListCheckInSnapshots": whyFallback,
	"ListSessions":         whyListing,

	"IssueToken":      whyShape,
	"CreateUserToken": "served by the route of IssueToken (POST /api/v2/users/{id}/tokens), with its defaults",
	"ListTokens":      whyShape,

	"ListUsersLegacy":    whyShape,
	"CreateUser":         whyShape,
	"SetAvatar":          whyAvatar,
	"GetAvatar":          whyAvatar,
	"GetEmployee":        whyShape,
	"ListRoleMappings":   whyShape,
	"ListActions":        whyShape,
	"AllowedActions":     whyShape,
	"ListPermissions":    whyFallback,
	"ListTags":           whyListing,
	"CreateTags":         whyShape,
	"SetTagsActive":      whyShape,
	"AddDashboardTag":    whyShape,
	"AddInsightTag":      whyShape,
	"ListTaggings":       whyFallback,
	"UpdateBadge":        whyShape,
	"ListAssignedBadges": whyFallback,
	"DecideBadge":        whyShape,

	"DashboardTagUsages":      whyShape,
	"ListDashboardParameters": whyFallback,
	"SetKPIGroupFavorite":     whyTwo,
	"SetKPIInGroup":           whyTwo,
	"ListTargetTypes":         whyShape,
	"ListAnnouncements":       whyFallback,
	"ReactToAnnouncement":     whyShape,

	"Version":                whyVersions,
	"VersionsOf":             whyVersions,
	"ReserveIdempotencyKey":  whyVersions,
	"CompleteIdempotencyKey": whyVersions,
	"ReleaseIdempotencyKey":  whyVersions,
	"Writing":                whyWriting,
}

func main() {
	out := flag.String("o", "api_gen.go", "output `file`")
	flag.Parse()
	src, err := generate()
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		log.Fatal(err)
	}
}

// generate loads upstream.API and returns the formatted source of the
// methods of the routes with an Operation.
func generate() ([]byte, error) {
	pkgs, err := packages.Load(&packages.Config{Mode: packages.NeedTypes | packages.NeedName}, upstreamPath)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", upstreamPath, err)
	}
	if len(pkgs) != 1 || len(pkgs[0].Errors) > 0 {
		return nil, fmt.Errorf("load %s: %v", upstreamPath, pkgs[0].Errors)
	}
	obj := pkgs[0].Types.Scope().Lookup("API")
	if obj == nil {
		return nil, fmt.Errorf("upstream.API not found")
	}
	api := obj.Type().Underlying().(*types.Interface)
	qual := func(p *types.Package) string { return p.Name() }

	var body bytes.Buffer
	generated := map[string]string{}
	for _, r := range rest.Routes() {
		if r.Operation == "" {
			continue
		}
		if prev, ok := generated[r.Operation]; ok {
			return nil, fmt.Errorf("%s is the Operation of %s and of %s %s", r.Operation, prev, r.Method, r.Pattern)
		}
		if why, ok := handwritten[r.Operation]; ok {
			return nil, fmt.Errorf("%s %s: %s is written by hand (%s); take it out of handwritten or the Operation out of the route", r.Method, r.Pattern, r.Operation, why)
		}
		generated[r.Operation] = r.Method + " " + r.Pattern
		m := lookup(api, r.Operation)
		if m == nil {
			return nil, fmt.Errorf("%s %s: upstream.API has no method %s", r.Method, r.Pattern, r.Operation)
		}
		if ok, err := listingMethod(&body, m, r, qual); ok || err != nil {
			if err != nil {
				return nil, fmt.Errorf("%s %s (%s): %w", r.Method, r.Pattern, r.Operation, err)
			}
			continue
		}
		if err := method(&body, m, r, qual); err != nil {
			return nil, fmt.Errorf("%s %s (%s): %w", r.Method, r.Pattern, r.Operation, err)
		}
	}
	var missing []string
	for m := range api.Methods() {
		_, gen := generated[m.Name()]
		if _, hand := handwritten[m.Name()]; !gen && !hand {
			missing = append(missing, m.Name())
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return nil, fmt.Errorf("no route has the Operation of upstream.API's %s, nor is it in handwritten with why", strings.Join(missing, ", "))
	}

	var buf bytes.Buffer
	buf.WriteString("// Code generated by upstream/backend/client/gen from the REST route table (rest.Routes) and upstream.API; DO NOT EDIT.\n\npackage client\n\n")
	buf.WriteString("import (\n\t\"context\"\n\t\"net/http\"\n\n\t\"github.com/okrgate/okrgate/upstream\"\n)\n\n")
	buf.Write(body.Bytes())
	return format.Source(buf.Bytes())
}

// lookup returns the method of api named name, or nil.
func lookup(api *types.Interface, name string) *types.Func {
	for m := range api.Methods() {
		if m.Name() == name {
			return m
		}
	}
	return nil
}

// httpMethods are the net/http constants of the methods routes use.
var httpMethods = map[string]string{
	http.MethodGet: "http.MethodGet", http.MethodPost: "http.MethodPost", http.MethodPut: "http.MethodPut",
	http.MethodPatch: "http.MethodPatch", http.MethodDelete: "http.MethodDelete",
}

// method writes the client's method m of route r: a GET is get, another
// method answering a value is write, one answering only an error is exec.
func method(w *bytes.Buffer, m *types.Func, r rest.Route, qual types.Qualifier) error {
	sig := m.Type().(*types.Signature)
	params, results := sig.Params(), sig.Results()
	if params.Len() == 0 || types.TypeString(params.At(0).Type(), nil) != "context.Context" {
		return fmt.Errorf("the first parameter is not a context.Context")
	}
	n := strings.Count(r.Pattern, "{")
	if params.Len() < 1+n || params.Len() > 2+n {
		return fmt.Errorf("%d path parameters and %d arguments after the context: want the path parameters and at most a body", n, params.Len()-1)
	}
	decl := []string{"ctx context.Context"}
	var args []string
	body := "nil"
	for i := 1; i < params.Len(); i++ {
		p := params.At(i)
		name := p.Name()
		if name == "" || name == "_" || name == "c" || name == "ctx" {
			name = fmt.Sprintf("p%d", i)
		}
		t := types.TypeString(p.Type(), qual)
		decl = append(decl, name+" "+t)
		if i <= n {
			if t != "string" {
				return fmt.Errorf("path parameter %d is a %s, not a string", i, t)
			}
			args = append(args, name)
			continue
		}
		if _, ok := p.Type().Underlying().(*types.Struct); !ok {
			return fmt.Errorf("the body %s is a %s, not a struct", name, t)
		}
		body = name
	}
	verb, ok := httpMethods[r.Method]
	if !ok {
		return fmt.Errorf("no constant for method %s", r.Method)
	}
	route := fmt.Sprintf("%q", r.Pattern)
	rest := ""
	if len(args) > 0 {
		rest = ", " + strings.Join(args, ", ")
	}
	var ret, call string
	switch {
	case results.Len() == 1 && types.TypeString(results.At(0).Type(), nil) == "error":
		if r.Method == http.MethodGet {
			return fmt.Errorf("a GET that answers nothing")
		}
		ret = "error"
		call = fmt.Sprintf("c.exec(ctx, %s, %s, %s%s)", verb, route, body, rest)
	case results.Len() == 2 && types.TypeString(results.At(1).Type(), nil) == "error":
		t := types.TypeString(results.At(0).Type(), qual)
		ret = "(" + t + ", error)"
		if r.Method == http.MethodGet {
			if body != "nil" {
				return fmt.Errorf("a GET with a body")
			}
			call = fmt.Sprintf("get[%s](ctx, c, %s%s)", t, route, rest)
		} else {
			call = fmt.Sprintf("write[%s](ctx, c, %s, %s, %s%s)", t, verb, route, body, rest)
		}
	default:
		return fmt.Errorf("the results are not (T, error) or error")
	}
	fmt.Fprintf(w, "\n// %s is %s %s.\n", m.Name(), r.Method, r.Pattern)
	fmt.Fprintf(w, "func (c *Client) %s(%s) %s {\n\treturn %s\n}\n", m.Name(), strings.Join(decl, ", "), ret, call)
	return nil
}

// listingMethod writes the client's method m of route r when m is a
// listing, func(ctx, upstream.ListQuery) (upstream.Page[T], error): a list
// of the route with T's field registry (the resource whose Item is T,
// upstream.FieldsOf), the page size in limit, or in take where the route
// takes no limit, and include for a projection when the route is Enriched.
// It reports false for a method of another shape.
func listingMethod(w *bytes.Buffer, m *types.Func, r rest.Route, qual types.Qualifier) (bool, error) {
	sig := m.Type().(*types.Signature)
	params, results := sig.Params(), sig.Results()
	if params.Len() != 2 || types.TypeString(params.At(1).Type(), nil) != upstreamPath+".ListQuery" || results.Len() != 2 {
		return false, nil
	}
	page, ok := results.At(0).Type().(*types.Named)
	if !ok || page.Obj().Pkg() == nil || page.Obj().Pkg().Path() != upstreamPath || page.Obj().Name() != "Page" || page.TypeArgs().Len() != 1 {
		return false, nil
	}
	item, ok := page.TypeArgs().At(0).(*types.Named)
	if !ok || item.Obj().Pkg() == nil || item.Obj().Pkg().Path() != upstreamPath {
		return true, fmt.Errorf("a page of %s, not of an upstream item", page.TypeArgs().At(0))
	}
	if !slices.ContainsFunc(upstream.Resources, func(res upstream.Resource) bool {
		return res.Item.PkgPath() == upstreamPath && res.Item.Name() == item.Obj().Name()
	}) {
		return true, fmt.Errorf("a listing of %s, which no entry of upstream.Resources has as its Item (its field registry is the resource's)", item.Obj().Name())
	}
	if r.Method != http.MethodGet || strings.Contains(r.Pattern, "{") {
		return true, fmt.Errorf("a listing is a GET without path parameters")
	}
	fields := []string{fmt.Sprintf("route: %q", r.Pattern), fmt.Sprintf("reg: fieldsOf[%s]()", types.TypeString(item, qual))}
	switch {
	case slices.Contains(r.Params, "limit"):
	case slices.Contains(r.Params, "take"):
		fields = append(fields, `limit: "take"`)
	default:
		return true, fmt.Errorf("a listing that takes neither limit nor take")
	}
	if r.Enriched {
		if !slices.Contains(r.Params, "include") {
			return true, fmt.Errorf("the route is Enriched but takes no include")
		}
		fields = append(fields, "enriched: true")
	}
	t := types.TypeString(item, qual)
	fmt.Fprintf(w, "\n// %s is %s %s, a listing of %s.\n", m.Name(), r.Method, r.Pattern, t)
	fmt.Fprintf(w, "func (c *Client) %s(ctx context.Context, q upstream.ListQuery) (upstream.Page[%s], error) {\n", m.Name(), t)
	fmt.Fprintf(w, "\treturn list[%s](ctx, c, listing{%s}, q)\n}\n", t, strings.Join(fields, ", "))
	return true, nil
}
