package upstream

import (
	"reflect"
	"strings"
)

// The compatibility policy of write bodies (docs/platform-clients.md, "Compatibility").
// The real platform's clients send its documents back as they read them:
// migration scripts post a listed document to a create operation, importers
// send fields the platform's objects carry. A create body's field is then
// one of (an update body is strict: a field it does not take is refused,
// since keeping the stored value would silently drop the change asked for):
//
//   - served: a field of the operation's input type, stored and returned;
//   - ignored: a field the operation's answer carries but the input does
//     not take (id, accountId, dateCreated, attainment, … — read-only, or
//     computed), at any depth, or a field of the platform's objects that
//     okrgate does not keep (PlatformIgnoredFields). It is dropped before
//     the body is decoded and named in the OKR-Ignored-Fields response
//     header;
//   - refused: anything else — a name neither the input nor the resource
//     has, which is a typo that would otherwise lose data (400
//     invalid_input naming the field).

// PlatformIgnoredFields are the fields of the real platform's objects that
// its clients send in create and update bodies and okrgate does not keep:
// customFields (okrgate has no custom fields; the platform stores their
// values under generated names that mean nothing elsewhere).
var PlatformIgnoredFields = []string{"customFields"}

// PlatformReadOnlyFields are, by the okrgate resource whose document a body
// resembles, the read-only fields of the platform's object that okrgate
// names otherwise, so they are no field of its answer: a task's modifiedAt
// (okrgate's dateModified), which the platform's task integrations send
// back when they update a task with PUT /api/v1/tasks/{id}. They are
// ignored at the top of a body, as PlatformIgnoredFields are.
var PlatformReadOnlyFields = map[reflect.Type][]string{
	reflect.TypeFor[Task](): {"modifiedAt"},
}

// JSONFields returns the JSON field names of the struct type t (through
// pointers; embedded structs flattened) with the Go type of each, keyed by
// the lowercased name (encoding/json matches names case-insensitively). A
// type that is not a struct has none.
func JSONFields(t reflect.Type) map[string]JSONField {
	out := map[string]JSONField{}
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return out
	}
	jsonFields(t, out)
	return out
}

// JSONField is one field of JSONFields.
type JSONField struct {
	Name string
	Type reflect.Type
}

func jsonFields(t reflect.Type, out map[string]JSONField) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if name == "-" || !f.IsExported() && !f.Anonymous {
			continue
		}
		if f.Anonymous && name == "" {
			et := f.Type
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				// An outer field of the same name wins, as in encoding/json.
				inner := map[string]JSONField{}
				jsonFields(et, inner)
				for k, v := range inner {
					if _, ok := out[k]; !ok {
						out[k] = v
					}
				}
				continue
			}
		}
		if name == "" {
			name = f.Name
		}
		out[strings.ToLower(name)] = JSONField{Name: name, Type: f.Type}
	}
}
