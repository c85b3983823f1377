package resolvers

import (
	"context"
	"sync"

	"github.com/graph-gophers/dataloader/v7"

	"github.com/okrgate/okrgate/graph/model"
	"github.com/okrgate/okrgate/upstream"
)

// Helpers that the edge resolvers share: every edge goes through the
// request's loaders.

// loadOne loads by id; "" is nil without a call.
func loadOne[T any](ctx context.Context, l one[T], id string) (*T, error) {
	if id == "" {
		return nil, nil
	}
	return l.Load(ctx, id)()
}

// loadList loads the items of key.
func loadList[T any](ctx context.Context, l many[T], key string) ([]T, error) {
	return l.Load(ctx, key)()
}

// loadOwners loads owners (users or teams) in ids order, skipping unknown
// ids; keys gives the owner ids of every parent item of the level.
func loadOwners(ctx context.Context, ids []string, keys edgeKeys) ([]model.Owner, error) {
	out := make([]model.Owner, 0, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	vals, errs := pick(ctx, "ownerByID", ownerByID, keys).LoadMany(ctx, ids)()
	for i, v := range vals {
		if i < len(errs) && errs[i] != nil {
			return nil, errs[i]
		}
		if v != nil {
			out = append(out, v)
		}
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// loadMany loads items by ids, in ids order, skipping unknown ids.
func loadMany[T any](ctx context.Context, l one[T], ids []string) ([]T, error) {
	out := make([]T, 0, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	vals, errs := l.LoadMany(ctx, ids)()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	for _, v := range vals {
		if v != nil {
			out = append(out, *v)
		}
	}
	return out, nil
}

// produced records the nodes a connection resolved, under both paths its
// items are reachable by (nodes and edges.node), for the loaders below them.
func produced[T any](ctx context.Context, items []T) {
	if l := LoadersFrom(ctx); l != nil {
		objs := make([]any, len(items))
		for i, it := range items {
			objs[i] = it
		}
		path := pathKey(ctx)
		l.Complete(path+".nodes", objs)
		l.Complete(path+".edges.node", objs)
	}
}

// producedList records the items of a top-level plain list (not a
// connection) at the list's own path, for the loaders below them.
func producedList[T any](ctx context.Context, items []T) {
	if l := LoadersFrom(ctx); l != nil {
		objs := make([]any, len(items))
		for i, it := range items {
			objs[i] = it
		}
		l.Complete(pathKey(ctx), objs)
	}
}

// produceOne records a top-level object read without a loader (a Get or a
// mutation result) at its path, for the loaders below it.
func produceOne[T any](ctx context.Context, v *T) {
	if l := LoadersFrom(ctx); l != nil && v != nil {
		l.Complete(pathKey(ctx), []any{*v})
	}
}

// embedded returns items embedded in their parent (no upstream call)
// through a loader of their own, keyed by the parent's id: it records them
// as the level at the field path and, like every loader, dispatches on the
// last parent's key, so the level is complete when the edges below it
// (Tag.goals under Goal.tags, ...) compute their batch sizes.
func embedded[T any](ctx context.Context, parentID string, items []T) ([]T, error) {
	e := pick(ctx, "embedded", embeddedBy[T], ownID)
	e.mu.Lock()
	e.data[parentID] = items
	e.mu.Unlock()
	return e.Load(ctx, parentID)()
}

type embedLoader[T any] struct {
	*dataloader.Loader[string, []T]
	mu   sync.Mutex
	data map[string][]T
}

func embeddedBy[T any](l *Loaders, path string, want int) *embedLoader[T] {
	e := &embedLoader[T]{data: map[string][]T{}}
	batch := func(ctx context.Context, keys []string) []*dataloader.Result[[]T] {
		out := make([]*dataloader.Result[[]T], len(keys))
		var objs []any
		e.mu.Lock()
		for i, k := range keys {
			g := e.data[k]
			for _, v := range g {
				objs = append(objs, v)
			}
			out[i] = &dataloader.Result[[]T]{Data: g}
		}
		e.mu.Unlock()
		l.dispatched(path, len(keys), objs)
		return out
	}
	e.Loader = dataloader.NewBatchedLoader(batch, opts[[]T](l, want)...)
	return e
}

// goalParentKeys gives a goal's parent goal id, if it has one.
var goalParentKeys = keysOf(func(g *upstream.Goal) []string {
	if g.ParentType != "" && g.ParentType != upstream.ParentGoal {
		return nil
	}
	return nonEmpty(g.ParentID)
})

// taskParentKeys gives a task's parent id when the parent is of kind.
func taskParentKeys(kind string) edgeKeys {
	return keysOf(func(t *upstream.Task) []string {
		if t.ParentType != kind {
			return nil
		}
		return nonEmpty(t.ParentID)
	})
}

func nonNilTags(ts []upstream.Tag) []upstream.Tag {
	if ts == nil {
		return []upstream.Tag{}
	}
	return ts
}
