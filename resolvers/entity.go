package resolvers

import (
	"context"

	"github.com/okrgate/okrgate/graph/model"
)

// Apollo Federation: _entities finds the entities of each type named in its
// representations with one fetch of that type's ids (entity.resolvers.go),
// the fetchers node(id:) uses, so one upstream call per type (per 1000 ids
// through a gateway) whatever the number of representations, under the
// caller's rights: an entity the caller may not see is null, as a node is.
// docs/graphql-federation.md ("Federation") and docs/decisions/graphql-schema.md say why.

// entities fetches ids with f as one batch and returns their items in the
// order of ids, nil where the caller may see none.
func entities[T any](ctx context.Context, f fetcher[T], ids []string) ([]*T, error) {
	found, err := f(ctx, ids, fetchArgs{fields: selectionProjection(ctx)})
	if err != nil {
		return nil, err
	}
	out := make([]*T, len(ids))
	for i, id := range ids {
		if v := found[id]; len(v) > 0 {
			out[i] = &v[0]
		}
	}
	return out, nil
}

// keysOf returns the n keys key gives, in order.
func keysOf(n int, key func(i int) string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = key(i)
	}
	return out
}

// typedAs narrows a fetcher of nodes to the nodes of type T (the typed
// global ids of Employee, TagDetail and UserRole, typedNodes); a node of
// another type is none.
func typedAs[T any](f fetcher[model.Node]) fetcher[T] {
	return func(ctx context.Context, keys []string, q fetchArgs) (map[string][]T, error) {
		found, err := f(ctx, keys, q)
		if err != nil {
			return nil, err
		}
		out := make(map[string][]T, len(found))
		for k, nodes := range found {
			for _, n := range nodes {
				if v, ok := n.(*T); ok {
					out[k] = append(out[k], *v)
				}
			}
		}
		return out, nil
	}
}
