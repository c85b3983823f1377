package model

import (
	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/query"
)

// Resource is a GraphQL type of a listable REST resource and the field
// registry of that resource.
type Resource struct {
	Type string
	Reg  *query.Registry
	// Forms are other GraphQL types of the same resource, described by
	// the same registry but listed without filter inputs of their own
	// (TagDetail: a tag as the tag listing gives it).
	Forms []string
}

// Resources is the one map from GraphQL types to field registries, derived
// from upstream.Resources (those with a GraphQL type). The filter inputs and
// orderBy enums of the schema are generated from it (graph/schemagen), and
// the served schema describes the fields of these types with their
// registry's texts (resolvers.ServedSchema).
// TestResourcesCoverTheRegistries fails when a GraphQL type bound to a
// registry's Go type (gqlgen.yml) is missing.
var Resources = func() []Resource {
	var out []Resource
	for _, r := range upstream.Resources {
		if r.GraphQL != "" {
			out = append(out, Resource{Type: r.GraphQL, Reg: r.Fields, Forms: r.Forms})
		}
	}
	return out
}()

// Registry returns the field registry of the GraphQL type typ, a resource
// or one of its forms (Resources), or nil.
func Registry(typ string) *query.Registry {
	for _, r := range Resources {
		if r.Type == typ {
			return r.Reg
		}
		for _, f := range r.Forms {
			if f == typ {
				return r.Reg
			}
		}
	}
	return nil
}
