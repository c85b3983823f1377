package resolvers

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/graph-gophers/dataloader/v7"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/okrgate/okrgate/upstream/query"
)

// Reads are the loads by id that no level knows in advance: node and nodes,
// goal(id:), user(id:) and the other single reads, under any number of
// aliases, and a mutation's or subscription's read-back of what it wrote.
// They batch through a dataloader (github.com/graph-gophers/dataloader/v7),
// one per kind and request: a batching window is the right tool where the
// keys arrive from fields that run independently.
//
// A window alone would make the calls depend on timing (how many of the
// aliased fields reach the loader before it fires). So the loader is
// primed from the operation: when a query's first read of a kind comes,
// the ids of every top-level field of that kind are read from the document
// (arguments and variables) and loaded at once, in one fetch that no timer
// cuts, and primed into the loader's cache (Loader.Prime), where the
// fields' own loads find them.
// Keys not known in advance (a mutation's read-back) batch within
// readWait.
type Reads[T any] struct {
	l      *Loaders
	name   string
	fields map[string]string // top-level fields of this kind → the argument holding their id or ids
	fetch  fetcher[T]

	mu       sync.Mutex
	dl       *dataloader.Loader[string, []T]
	primed   bool            // the operation's ids were loaded (once per request)
	known    map[string]bool // those ids, until Reset
	primeErr error           // the error loading them
}

// readWait is the batching window of keys not primed from the document.
const readWait = time.Millisecond

// newReads returns the reads of one kind, primed from the top-level fields
// named in fields (field → argument).
func newReads[T any](l *Loaders, name string, fields map[string]string, f fetcher[T]) *Reads[T] {
	return &Reads[T]{l: l, name: name, fields: fields, fetch: f}
}

// Keys loads the items of keys (one batch with the other reads of the
// kind). The field middleware records what a top-level field returns as
// its level (recordField); a read-back is recorded with its payload.
func (r *Reads[T]) Keys(ctx context.Context, keys ...string) ([]T, error) {
	per, err := r.perKey(ctx, nonEmpty(keys...))
	if err != nil {
		return nil, err
	}
	return concat(per), nil
}

// perKey returns the items of each of keys, in key order ("" has none).
func (r *Reads[T]) perKey(ctx context.Context, keys []string) ([][]T, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	dl := r.loader(ctx)
	r.mu.Lock()
	known, primeErr := r.known, r.primeErr
	r.mu.Unlock()
	thunks := make([]dataloader.Thunk[[]T], len(keys))
	for i, k := range keys {
		if primeErr != nil && known[k] {
			return nil, primeErr
		}
		if k != "" {
			thunks[i] = dl.Load(ctx, k)
		}
	}
	per := make([][]T, len(keys))
	for i, th := range thunks {
		if th == nil {
			continue
		}
		v, err := th()
		if err != nil {
			return nil, err
		}
		per[i] = v
	}
	return per, nil
}

// loader returns the request's dataloader of the kind, creating it on
// first use (then primed from the operation) or after Reset (then not).
func (r *Reads[T]) loader(ctx context.Context) *dataloader.Loader[string, []T] {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.dl != nil {
		return r.dl
	}
	r.dl = dataloader.NewBatchedLoader(r.batch, dataloader.WithWait[string, []T](readWait))
	if r.primed {
		return r.dl
	}
	r.primed = true
	ids, proj := r.operationIDs(ctx)
	if len(ids) == 0 {
		return r.dl
	}
	// The operation's ids in one fetch, here, before any field's load,
	// with what their fields select; the fields' loads find them in the
	// loader's cache. An error is kept for those fields to return.
	sctx, span := batchSpan(ctx, r.name, "", len(ids), false)
	found, err := r.fetch(sctx, ids, fetchArgs{fields: proj})
	endBatch(span, err)
	r.known = make(map[string]bool, len(ids))
	for _, id := range ids {
		r.known[id] = true
		if err == nil {
			r.dl.Prime(ctx, id, found[id])
		}
	}
	r.primeErr = err
	return r.dl
}

// batch is the dataloader's batch function: one fetch of all keys, of
// the whole default shape (keys no field names in advance may share their
// window with other fields' keys, and the selection of one field says
// nothing of what the others read).
func (r *Reads[T]) batch(ctx context.Context, keys []string) []*dataloader.Result[[]T] {
	q := fetchArgs{}
	sctx, span := batchSpan(ctx, r.name, "", len(keys), false)
	found, err := r.fetch(sctx, keys, q)
	endBatch(span, err)
	out := make([]*dataloader.Result[[]T], len(keys))
	for i, k := range keys {
		if err != nil {
			out[i] = &dataloader.Result[[]T]{Error: err}
		} else {
			out[i] = &dataloader.Result[[]T]{Data: found[k]}
		}
	}
	return out
}

// reset drops the loader and its cache: what is read next is read anew.
func (r *Reads[T]) reset() {
	r.mu.Lock()
	r.dl, r.known, r.primeErr = nil, nil, nil
	r.mu.Unlock()
}

// operationIDs returns the distinct ids that the top-level fields of the
// kind in the query of ctx name, and the union of the enrichments their
// selections ask for (so that the one batch loads what every field reads).
// A field whose ids cannot be read (more than maxNodes, not strings) is
// left to its own load.
func (r *Reads[T]) operationIDs(ctx context.Context) ([]string, query.Projection) {
	if len(r.fields) == 0 || !graphql.HasOperationContext(ctx) {
		return nil, nil
	}
	oc := graphql.GetOperationContext(ctx)
	if oc.Operation == nil || oc.Operation.Operation != ast.Query {
		return nil, nil
	}
	var ids []string
	proj := query.Projection{"id": nil}
	for _, f := range graphql.CollectFields(oc, oc.Operation.SelectionSet, []string{"Query"}) {
		arg, ok := r.fields[f.Name]
		if !ok {
			continue
		}
		got, ok := idsOf(f.Field.ArgumentMap(oc.Variables)[arg])
		if !ok {
			continue
		}
		ids = append(ids, got...)
		collect(oc, f.Selections, proj)
	}
	slices.Sort(ids)
	return slices.Compact(nonEmpty(ids...)), proj
}

// idsOf reads an id argument: one id or a list of at most maxNodes.
func idsOf(v any) ([]string, bool) {
	switch x := v.(type) {
	case string:
		return []string{x}, true
	case []any:
		if len(x) > maxNodes {
			return nil, false
		}
		out := make([]string, 0, len(x))
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, false
			}
			out = append(out, s)
		}
		return out, true
	case []string:
		return x, len(x) <= maxNodes
	}
	return nil, false
}
