package resolvers

import (
	"context"
	"slices"
	"sync"

	"github.com/99designs/gqlgen/graphql"
	"github.com/graph-gophers/dataloader/v7"

	"github.com/okrgate/okrgate/graph/model"
	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/query"
)

// holdersByBadge loads the holders of each badge: the approved assignments
// of all keys in one call (ListAssignedBadges {status: "approved", badgeId:
// {$in: keys}}, by keyset in pages of 1000), grouped by badge into the
// distinct assignee ids in id order. The users and teams themselves load one
// level down (BadgeHolders.users / .teams) through userByID and teamByID,
// keyed by those ids (holderKeys).
func holdersByBadge(l *Loaders, path string, want int) one[model.BadgeHolders] {
	batch := func(ctx context.Context, keys []string) []*dataloader.Result[*model.BadgeHolders] {
		as, err := listAll(ctx, l.api.ListAssignedBadges, upstream.AssignedBadgeFields,
			query.And(query.In("badgeId", anyKeys(keys)...), query.Eq("status", upstream.BadgeApproved)),
			func(a *upstream.AssignedBadge) string { return a.ID })
		if err != nil {
			return errResults[*model.BadgeHolders](len(keys), err)
		}
		ids := map[string][]string{}
		for _, a := range as {
			ids[a.BadgeID] = append(ids[a.BadgeID], a.AssigneeIDs...)
		}
		out := make([]*dataloader.Result[*model.BadgeHolders], len(keys))
		objs := make([]any, len(keys))
		for i, k := range keys {
			h := model.BadgeHolders{BadgeID: k, AssigneeIDs: sortedSet(ids[k])}
			objs[i] = h
			out[i] = &dataloader.Result[*model.BadgeHolders]{Data: &h}
		}
		l.dispatched(path, len(keys), objs)
		return out
	}
	return dataloader.NewBatchedLoader(batch, opts[*model.BadgeHolders](l, want)...)
}

// holderKeys: the users and teams of a holders level load by every assignee
// id (a user loader skips the team ids, a team loader the user ids).
var holderKeys = keysOf(func(h *model.BadgeHolders) []string {
	if h.Preloaded {
		return nil
	}
	return h.AssigneeIDs
})

// sortedSet returns the distinct non-empty ids, sorted.
func sortedSet(ids []string) []string {
	out := slices.Clone(nonEmpty(ids...))
	slices.Sort(out)
	return slices.Compact(out)
}

// subPaths returns the field paths of the selections named field directly
// under the field of ctx, one per response key (an alias gives its own
// path, as gqlgen's field paths do).
func subPaths(ctx context.Context, field string) []string {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil {
		return nil
	}
	base := pathKey(ctx)
	var out []string
	for _, f := range graphql.CollectFieldsCtx(ctx, nil) {
		if f.Name == field && !slices.Contains(out, base+"."+f.Alias) {
			out = append(out, base+"."+f.Alias)
		}
	}
	return out
}

// produceSub records items resolved by the field of ctx that a subfield
// (field) returns without a loader (a payload's object, a page's items), at
// every path of that subfield, for the loaders below them.
func produceSub[T any](ctx context.Context, field string, items ...T) {
	l := LoadersFrom(ctx)
	if l == nil {
		return
	}
	objs := make([]any, len(items))
	for i, it := range items {
		objs[i] = it
	}
	for _, p := range subPaths(ctx, field) {
		l.Complete(p, objs)
	}
}

// embeddedOne returns an object embedded in its parent (no upstream call)
// through a loader of its own keyed by the parent's id, like embedded for
// lists: keys gives the parents that embed one, so the level is complete
// (with the items of any loader of the same path, such as badgeByID for the
// parents that do not embed) before the edges below it compute their batch
// sizes.
func embeddedOne[T any](ctx context.Context, kind string, keys edgeKeys, parentID string, v *T) (*T, error) {
	e := pick(ctx, kind, embeddedOneBy[T], keys)
	e.mu.Lock()
	e.data[parentID] = v
	e.mu.Unlock()
	return e.Load(ctx, parentID)()
}

type embedOneLoader[T any] struct {
	*dataloader.Loader[string, *T]
	mu   sync.Mutex
	data map[string]*T
}

func embeddedOneBy[T any](l *Loaders, path string, want int) *embedOneLoader[T] {
	e := &embedOneLoader[T]{data: map[string]*T{}}
	batch := func(ctx context.Context, keys []string) []*dataloader.Result[*T] {
		out := make([]*dataloader.Result[*T], len(keys))
		var objs []any
		e.mu.Lock()
		for i, k := range keys {
			if v := e.data[k]; v != nil {
				objs = append(objs, *v)
			}
			out[i] = &dataloader.Result[*T]{Data: e.data[k]}
		}
		e.mu.Unlock()
		l.dispatched(path, len(keys), objs)
		return out
	}
	e.Loader = dataloader.NewBatchedLoader(batch, opts[*T](l, want)...)
	return e
}

// embeddedBadgeKeys: the assignments that embed their badge (myBadges).
var embeddedBadgeKeys = keysOf(func(a *upstream.AssignedBadge) []string {
	if a.Badge == nil {
		return nil
	}
	return nonEmpty(a.ID)
})

// nonNilSlice returns xs, or an empty slice for nil (JSON [] rather than null).
func nonNilSlice[T any](xs []T) []T {
	if xs == nil {
		return []T{}
	}
	return xs
}
