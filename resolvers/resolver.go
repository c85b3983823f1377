// Package resolvers implements the GraphQL schema of package graph over
// upstream.API: thin resolvers, per-request loaders that load each edge a
// whole level at a time without waiting for keys (edge.go; reads by id go
// through a primed dataloader, reads.go), the executable schema
// (NewExecutableSchema), the glue of the breadth-first fast path
// (FastPath), error presentation (ErrorPresenter) and subscriptions
// (Live). The HTTP handler is package graphqlhttp, its limits package
// limits, the playground package playground.
package resolvers

import (
	"github.com/okrgate/okrgate/resolvers/live"
	"github.com/okrgate/okrgate/upstream"
)

// Resolver is the root resolver. API is the upstream every resolver and
// loader calls (usually instrument.New(store, counter), which counts and traces them).
// It is the whole upstream.API because the schema covers every operation
// of it; the fetchers built over it take the service they call
// (upstream.TagService, RoleService, ...).
type Resolver struct {
	API upstream.API
	// Live serves subscriptions; nil answers them with an error.
	Live *live.Hub
}
