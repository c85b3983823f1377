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

// etag is the entity tag a version edge found (GoalETag, ...): "" when the
// upstream keeps no versions; an object read but gone since is not found.
func etag(tag *string, err error) (string, error) {
	if err != nil || tag == nil {
		return "", err
	}
	return *tag, nil
}

// versionsOf fetches the entity tags of a level's objects of kind in one
// call (upstream.Versions.VersionsOf). The objects were read (and authorized)
// already; VersionsOf itself does not authorize.
func versionsOf(api upstream.Versions, kind string) fetcher[string] {
	return func(ctx context.Context, keys []string, q fetchArgs) (map[string][]string, error) {
		tags, err := api.VersionsOf(ctx, kind, keys)
		if err != nil {
			return nil, err
		}
		out := make(map[string][]string, len(tags))
		for id, t := range tags {
			out[id] = []string{t}
		}
		return out, nil
	}
}

// conditional returns api whose writes are conditional on the If-Match
// precondition of an update of kind/id, or api itself without one.
func conditional(api Backend, kind, id string, ifMatch *string) Backend {
	if ifMatch == nil {
		return api
	}
	return api.Writing(upstream.WriteOptions{Precondition: &upstream.Precondition{Kind: kind, ID: id, IfMatch: []string{*ifMatch}}})
}
