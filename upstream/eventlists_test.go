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
// type that is not a deletion names an item whose reading decides who sees
// it (EventItemOf, eventvisibility.go), so that a new event type cannot be
// added to one list and forgotten in another: the feed and the live
// fan-out would hide it from everyone, webhooks could not select it.
func TestEventListsComplete(t *testing.T) {
	declared := eventConstants(t)
	listed := upstream.EventTypes()
	for _, e := range declared {
		if e == upstream.EventAccountChanged {
			if slices.Contains(listed, e) {
				t.Errorf("%s is in EventTypes, but no webhook or subscription selects it", e)
			}
			continue
		}
		if !slices.Contains(listed, e) {
			t.Errorf("event type %s is declared in events.go but in the Events or Deleted of no resource (upstream.Resources, resources.go): EventTypes misses it", e)
		}
	}
	for _, e := range listed {
		if strings.HasSuffix(string(e), ".deleted") {
			continue // a deleted item is read by no one: the feed hides it
		}
		if upstream.EventItemOf(e) == upstream.EventItemNone {
			t.Errorf("event type %s names no item (the EventItem of its resource in upstream.Resources, resources.go): the feed and the live fan-out would hide it from every caller", e)
		}
	}
}

// eventConstants parses events.go and returns every constant of type
// EventType it declares: the event types as written, whatever list they
// were added to.
func eventConstants(t *testing.T) []upstream.EventType {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "events.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []upstream.EventType
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
					out = append(out, upstream.EventType(s))
				}
			}
		}
	}
	if len(out) < 10 {
		t.Fatalf("found only %d event types in events.go", len(out))
	}
	return out
}
