// Package resolvers implements the GraphQL schema of package graph over
// the upstream services (Backend): thin resolvers, per-request loaders that load each edge a
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
// loader calls (usually instrument.New(store, counter), which counts and
// traces them).
type Resolver struct {
	API Backend
	// Live serves subscriptions; nil answers them with an error.
	Live *live.Hub
}

// Services are the upstream services the graph reads and writes: those of
// every kind the schema exposes and the versions behind its etag fields.
// The loaders read through them (NewLoaders); the fetchers built over them
// take the one service they call (upstream.TagService, RoleService, ...).
// Authentication is not among them (the HTTP handler's, package authn),
// nor are the pictures and the record of idempotency keys, which only
// the REST facade serves.
type Services interface {
	upstream.TokenService
	upstream.GoalService
	upstream.MetricService
	upstream.TaskService
	upstream.SessionService
	upstream.UserService
	upstream.TeamService
	upstream.AccountService
	upstream.EmployeeService
	upstream.RoleService
	upstream.PermissionService
	upstream.TagService
	upstream.BadgeService
	upstream.DashboardService
	upstream.KPIService
	upstream.ListService
	upstream.AnnouncementService
	upstream.CommentService
	upstream.Versions
}

// Backend is what the resolvers call: the Services, and the views that
// bind a mutation's If-Match precondition to its write (conditional).
type Backend interface {
	Services
	upstream.Writable
}
