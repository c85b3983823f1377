package upstream_test

import (
	"strings"
	"testing"

	"github.com/okrgate/okrgate/upstream"
)

// unregistered are the JSON fields of registry types deliberately left out
// of their registry, each with why.
var unregistered = map[string]string{
	"Role.teamId":    "only on role-mapping responses, not on the role listing",
	"Role.mappingId": "only on role-mapping responses, not on the role listing",
}

// TestRegistriesCoverTheirTypes: every JSON field of the Go type a field
// registry lists is in that registry, so a field added to a resource type
// (docs/howto/add-field.md) cannot be left out of REST's filter, sort and
// fields, the lists schema and the GraphQL filter and orderBy inputs.
func TestRegistriesCoverTheirTypes(t *testing.T) {
	for _, r := range upstream.Resources {
		reg, typ := r.Fields, r.Item
		name := typ.Name()
		for i := range typ.NumField() {
			f := typ.Field(i)
			tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !f.IsExported() || tag == "-" || tag == "" {
				continue
			}
			if _, ok := unregistered[name+"."+tag]; ok {
				continue
			}
			if _, ok := reg.Field(tag); !ok {
				t.Errorf("upstream.%s.%s (json %q) is not in the %q field registry (upstream/fields.go), nor in unregistered with why", name, f.Name, tag, reg.Resource())
			}
		}
	}
}
