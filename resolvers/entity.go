package resolvers

import (
	"context"
	"fmt"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/okrgate/okrgate/graph/model"
	"github.com/okrgate/okrgate/upstream"
)

// Apollo Federation: _entities finds the entities of each type named in its
// representations with one fetch of that type's ids (entity.resolvers.go),
// the fetchers node(id:) uses, so one upstream call per type (per 1000 ids
// through a gateway) whatever the number of representations, under the
// caller's rights: an entity the caller may not see is null, as a node is.
// docs/graphql-federation.md ("Federation") and docs/decisions/graphql-schema.md say why.

// CheckRepresentations returns the field middleware that refuses an
// _entities field with a malformed representation — no __typename, one
// that names no entity type of schema, or no id (the key of every entity
// type) — as the client's fault (BAD_USER_INPUT, naming each), before the
// generated resolution (graph/federation.go), which would answer it as an
// internal error and log it as one: anyone could then inflate the server
// error rate. Other fields pass untouched.
func CheckRepresentations(schema *ast.Schema) graphql.FieldMiddleware {
	entity := map[string]bool{}
	if u := schema.Types["_Entity"]; u != nil {
		for _, t := range u.Types {
			entity[t] = true
		}
	}
	return func(ctx context.Context, next graphql.Resolver) (any, error) {
		fc := graphql.GetFieldContext(ctx)
		if fc == nil || fc.Field.Name != "_entities" || fc.Object != "Query" {
			return next(ctx)
		}
		reps, _ := fc.Args["representations"].([]map[string]any)
		var bad []upstream.FieldError
		for i, rep := range reps {
			if msg := representationFault(rep, entity); msg != "" {
				bad = append(bad, upstream.FieldError{Field: fmt.Sprintf("representations[%d]", i), Message: msg})
			}
		}
		if len(bad) > 0 {
			return nil, &upstream.Error{Code: upstream.CodeInvalid, Fields: bad,
				Message: fmt.Sprintf("%d of %d representations are malformed: %s", len(bad), len(reps), bad[0].Message)}
		}
		return next(ctx)
	}
}

// representationFault says what is wrong with an _entities representation
// ("" when nothing): it needs a __typename naming an entity type and a
// non-empty id.
func representationFault(rep map[string]any, entity map[string]bool) string {
	typ, ok := rep["__typename"].(string)
	switch {
	case !ok:
		return "__typename must be the name of an entity type"
	case !entity[typ]:
		return fmt.Sprintf("%q is not an entity type", typ)
	}
	switch id := rep["id"].(type) {
	case string:
		if id != "" {
			return ""
		}
	case float64, int64, int:
		return ""
	}
	return fmt.Sprintf("a %s representation needs its key, a non-empty id", typ)
}

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
