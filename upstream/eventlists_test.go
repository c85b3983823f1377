package upstream_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/okrgate/okrgate/upstream"
)

// TestEventListsComplete: every event type declared in events.go is in
// EventTypes (what webhooks may select and the docs list) — but
// account.changed, which no subscription or webhook selects — and every
// type that is not a deletion has a visibility rule in the event feed
// (eventVisible's cases in eventfeed.go), so that a new event type cannot
// be added to one list and forgotten in another: the feed would hide it
// from everyone, webhooks could not select it.
func TestEventListsComplete(t *testing.T) {
	var declared []upstream.EventType
	for _, e := range eventConstants(t) {
		declared = append(declared, e.value)
	}
	listed := upstream.EventTypes()
	for _, e := range declared {
		if e == upstream.EventAccountChanged {
			if slices.Contains(listed, e) {
				t.Errorf("%s is in EventTypes, but no webhook or subscription selects it", e)
			}
			continue
		}
		if !slices.Contains(listed, e) {
			t.Errorf("event type %s is declared in events.go but not in EventTypes (webhookapi.go)", e)
		}
	}
	cases := feedCases(t)
	for _, e := range listed {
		if strings.HasSuffix(string(e), ".deleted") {
			continue // a deleted item is read by no one: the feed hides it
		}
		if !slices.Contains(cases, e) {
			t.Errorf("event type %s has no visibility rule in eventVisible (eventfeed.go): the feed would hide it from every caller", e)
		}
	}
}

// feedCases returns the event types eventVisible's switch names.
func feedCases(t *testing.T) []upstream.EventType {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "eventfeed.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]upstream.EventType{}
	for _, e := range eventConstants(t) {
		byName[e.name] = e.value
	}
	var out []upstream.EventType
	ast.Inspect(f, func(n ast.Node) bool {
		fn, ok := n.(*ast.FuncDecl)
		if !ok || fn.Name.Name != "eventVisible" {
			return true
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			if cc, ok := n.(*ast.CaseClause); ok {
				for _, x := range cc.List {
					if id, ok := x.(*ast.Ident); ok {
						out = append(out, byName[id.Name])
					}
				}
			}
			return true
		})
		return false
	})
	return out
}

type namedEvent struct {
	name  string
	value upstream.EventType
}

// eventConstants parses events.go and returns every constant of type
// EventType it declares, with its name: the event types as written,
// whatever list they were added to.
func eventConstants(t *testing.T) []namedEvent {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "events.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []namedEvent
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			v := s.(*ast.ValueSpec)
			if id, ok := v.Type.(*ast.Ident); !ok || id.Name != "EventType" {
				continue
			}
			for i, val := range v.Values {
				if lit, ok := val.(*ast.BasicLit); ok && i < len(v.Names) {
					s, _ := strconv.Unquote(lit.Value)
					out = append(out, namedEvent{v.Names[i].Name, upstream.EventType(s)})
				}
			}
		}
	}
	if len(out) < 10 {
		t.Fatalf("found only %d event types in events.go", len(out))
	}
	return out
}
