package resolvers_test

import (
	"testing"

	"github.com/okrgate/okrgate/resolvers/transport/graphqlhttp"
)

// TestEntitiesMalformed: a representation without a __typename, with one
// naming no entity type, or without its id is the client's fault —
// BAD_USER_INPUT naming it, never INTERNAL_SERVER_ERROR — and a
// well-formed batch beside it still answers.
func TestEntitiesMalformed(t *testing.T) {
	o := newOrgFixtureCfg(t, "entities-bad", graphqlhttp.Config{Federation: true})
	fillNodes(t, o, 1)
	goal := nodeIDs(t, o)["Goal"][0]
	for _, bad := range []map[string]any{
		{"__typename": "Nope", "id": "1"},
		{"__typename": "Goal"},
		{"id": "1"},
		{"__typename": "Goal", "id": ""},
		{"__typename": 7, "id": "1"},
		{"__typename": "Goal", "id": []any{"1"}},
	} {
		r := o.do(t, entitiesQuery, map[string]any{"r": []any{map[string]any{"__typename": "Goal", "id": goal}, bad}})
		if r.code() != "BAD_USER_INPUT" || len(r.Errors) != 1 {
			t.Errorf("_entities with %v: %+v, want one BAD_USER_INPUT", bad, r.Errors)
		} else if f, _ := r.Errors[0].Extensions["fields"].([]any); len(f) != 1 || f[0].(map[string]any)["field"] != "representations[1]" {
			t.Errorf("_entities with %v: fields %v, want representations[1]", bad, r.Errors[0].Extensions["fields"])
		}
	}
	var d struct {
		Entities []*struct{ ID string } `json:"_entities"`
	}
	o.do(t, entitiesQuery, map[string]any{"r": representations("Goal", goal)}).mustData(t, &d)
	if len(d.Entities) != 1 || d.Entities[0] == nil || d.Entities[0].ID != goal {
		t.Errorf("a well-formed representation: %+v", d.Entities)
	}
}
