package resolvers

import (
	"github.com/99designs/gqlgen/graphql"

	"github.com/okrgate/okrgate/graph"
	"github.com/okrgate/okrgate/resolvers/infra/limits"
	"github.com/okrgate/okrgate/resolvers/live"
)

// NewExecutableSchema returns the executable schema the GraphQL endpoint
// serves: the resolvers over api, hub serving the subscriptions (nil
// answers them with an error), the cost functions of limits.SetComplexity,
// and ServedSchema, or FederatedSchema when federated.
func NewExecutableSchema(api Backend, hub *live.Hub, federated bool) (graphql.ExecutableSchema, error) {
	serve := ServedSchema
	if federated {
		serve = FederatedSchema
	}
	schema, err := serve()
	if err != nil {
		return nil, err
	}
	cfg := graph.Config{Resolvers: &Resolver{API: api, Live: hub}, Schema: schema}
	limits.SetComplexity(&cfg)
	return graph.NewExecutableSchema(cfg), nil
}
