package resolvers

import (
	"context"

	"github.com/okrgate/okrgate/upstream"
)

// Versions: the GraphQL side of REST's ETag and If-Match. Goal, Metric,
// Task and Session have an etag field (the stored version, the same tag
// REST sends), and their update mutations take ifMatch: the store then
// writes only if the resource is still at that version, checked inside the
// write's transaction (upstream.Precondition), else PRECONDITION_FAILED.

// etag returns the entity tag of kind/id, or "" when the upstream keeps no
// versions. The object was read (and authorized) already; Version itself
// does not authorize.
func (r *Resolver) etag(ctx context.Context, kind, id string) (string, error) {
	v, ok := r.API.(upstream.Versions)
	if !ok {
		return "", nil
	}
	return v.Version(ctx, kind, id)
}

// conditional returns ctx carrying the If-Match precondition of an update of
// kind/id, or ctx itself without one.
func conditional(ctx context.Context, kind, id string, ifMatch *string) context.Context {
	if ifMatch == nil {
		return ctx
	}
	return upstream.WithPrecondition(ctx, &upstream.Precondition{Kind: kind, ID: id, IfMatch: []string{*ifMatch}})
}
