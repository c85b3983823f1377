package resolvers

import (
	"reflect"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
)

// A level asks the store for the fields it selects (upstream.ListQuery.
// Decode): the top-level keys of the stored documents that the selection's
// fields are bound to, and the keys the edges below read (a goal's id for
// its children, its ownerIds for its owners). The store then reads and
// decodes those instead of whole documents, which were most of a large
// tree's time and memory (docs/decisions/tree-read-path.md, "A level decodes only what it
// selects").

// edgeKeys are, per GraphQL object type, the fields served by a resolver
// and the document keys each reads of its object (nil: the whole
// document). A selected field of the
// type that is neither here nor bound to a struct field with a JSON key
// makes the level read whole documents: a field the table does not know
// costs time, never a wrong answer.
var edgeKeys = map[string]map[string][]string{
	"Goal": {
		"etag": {"id", "obfuscated"}, "tags": {"id", "tags"}, "parent": {"parentId", "parentType"},
		"children": {"id"}, "childrenConnection": {"id"}, "metrics": {"id"}, "metricsConnection": {"id"},
		"tasks": {"id"}, "tasksConnection": {"id"}, "session": {"sessionId"}, "owners": {"ownerIds"},
		"createdBy": {"createdById"},
	},
	"Metric": {
		"etag": {"id"}, "targetMetrics": {"targetMetrics"}, "goal": {"goalId"}, "checkins": {"id"},
		"checkinsConnection": {"id"}, "tasks": {"id"}, "tasksConnection": {"id"}, "owners": {"ownerIds"},
	},
	"CheckIn": {},
	"User":    {"teams": {"teamIds"}, "goals": {"id"}, "badges": {"id"}, "employee": {"id"}, "roles": nil},
}

// decodeKeys returns the document keys of T that the selection sel of a
// list of T reads, or nil when sel is nil, T has no entry in edgeKeys, or
// a field of sel cannot be told (then the store reads whole documents).
// Fragments on other object types are left out (a union's or an
// interface's other members); those on interfaces and unions count.
func decodeKeys[T any](sel ast.SelectionSet) []string {
	if sel == nil {
		return nil
	}
	t := reflect.TypeFor[T]()
	edges, ok := edgeKeys[t.Name()]
	if !ok || t.Kind() != reflect.Struct {
		return nil
	}
	out := []string{"id"}
	ok = true
	var walk func(sel ast.SelectionSet)
	walk = func(sel ast.SelectionSet) {
		for _, s := range sel {
			if !ok {
				return
			}
			switch s := s.(type) {
			case *ast.Field:
				if strings.HasPrefix(s.Name, "__") {
					continue
				}
				if ks, isEdge := edges[s.Name]; isEdge {
					if ks == nil {
						ok = false
						return
					}
					out = append(out, ks...)
					continue
				}
				k, found := jsonKey(t, s.Name)
				if !found {
					ok = false
					return
				}
				out = append(out, k)
			case *ast.InlineFragment:
				if applies(s.TypeCondition, s.ObjectDefinition, t.Name()) {
					walk(s.SelectionSet)
				}
			case *ast.FragmentSpread:
				if s.Definition == nil {
					ok = false
					return
				}
				if applies(s.Definition.TypeCondition, s.ObjectDefinition, t.Name()) {
					walk(s.Definition.SelectionSet)
				}
			}
		}
	}
	walk(sel)
	if !ok {
		return nil
	}
	return out
}

// applies reports whether a fragment with type condition cond (def its
// definition) may select fields of objects of type name.
func applies(cond string, def *ast.Definition, name string) bool {
	if cond == "" || cond == name {
		return true
	}
	return def == nil || def.Kind != ast.Object
}

// jsonKey returns the JSON key of the struct field of t that the GraphQL
// field name is bound to (gqlgen binds a GraphQL field to the struct field
// of the same name, case aside).
func jsonKey(t reflect.Type, name string) (string, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() || f.Anonymous || !strings.EqualFold(f.Name, name) {
			continue
		}
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		return tag, tag != "" && tag != "-"
	}
	return "", false
}
