package limits

import (
	"context"

	"github.com/99designs/gqlgen/graphql"

	"github.com/okrgate/okrgate/upstream"
)

// MutationText is a gqlgen field middleware: it refuses a mutation whose
// arguments hold text over its length limit (upstream.CheckTextLimits:
// names, descriptions, comments) before its resolver runs, as the REST
// facade refuses such a body: a BAD_USER_INPUT error whose fields name
// the argument's path ("input.description").
func MutationText(ctx context.Context, next graphql.Resolver) (any, error) {
	if fc := graphql.GetFieldContext(ctx); fc != nil && fc.IsResolver && fc.Object == "Mutation" {
		if err := upstream.CheckTextLimits(map[string]any(fc.Args)); err != nil {
			return nil, err
		}
	}
	return next(ctx)
}
