package resolvers

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/graph-gophers/dataloader/v7"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/okrgate/okrgate/graph/model"
	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/query"
)

// DefaultBatchWait is how long a dataloader collects keys after the first
// Load of a batch before it calls upstream. See docs/graphql.md
// ("Decisions") for the measurement behind the value.
const DefaultBatchWait = 10 * time.Millisecond

// maxKeys bounds the keys of one batch: an $in filter takes at most
// query.MaxInValues values, so larger batches are split into several calls.
const maxKeys = query.MaxInValues

// Loaders are the dataloaders of one request. Every edge of the graph loads
// through one of them, so a level of a query costs one upstream list call
// (one per 1000 keys or 1000 results) however many parents it has.
//
// There is one loader per edge kind and per field path (list indices
// dropped): session.goals.children.metrics and session.goals.metrics get
// their own loaders. Sharing one loader between paths would let batches of
// different levels merge or not depending on timing, so the number of
// upstream calls of a query would vary from run to run; per path it is
// exactly one batch per level. Never share Loaders between requests: a
// batch runs with the context, and so the caller, of the request that
// created it.
//
// Waiting is the fallback, not the rule. Every loader records the items it
// resolved at its field path; once a level is complete (every key it
// expected was dispatched), the loaders of the next level know exactly
// which distinct keys they will be asked for (the parents' ids, owner ids,
// parent ids, ... — see edgeKeys) and dispatch on the last one. A query
// then pays no wait at its levels. See docs/graphql.md ("Decisions").
type Loaders struct {
	api      upstream.API
	wait     time.Duration
	deadline time.Time // the request's; no batch waits past it

	mu    sync.Mutex
	m     map[string]any
	level map[string]*level // field path → what was resolved there
}

// level tracks the items resolved at one field path.
type level struct {
	want     int   // distinct keys the loaders at this path expect (0: unknown)
	keys     int   // keys dispatched so far
	objs     []any // items resolved so far (values of the upstream types, or model.Owner)
	complete bool  // every expected key was dispatched: objs is final
}

// edgeKeys returns the keys an edge resolver loads for one parent item (an
// element of the parent level's objs).
type edgeKeys func(parent any) []string

// keysOf adapts a key function of a parent type P; other parents give none.
func keysOf[P any](f func(*P) []string) edgeKeys {
	return func(o any) []string {
		switch p := o.(type) {
		case P:
			return f(&p)
		case *P:
			return f(p)
		}
		return nil
	}
}

// nonEmpty returns ids without "".
func nonEmpty(ids ...string) []string {
	out := ids[:0:0]
	for _, id := range ids {
		if id != "" {
			out = append(out, id)
		}
	}
	return out
}

// ownID is the edge key of loaders keyed by the parent's own id.
func ownID(o any) []string {
	if id := idOf(o); id != "" {
		return []string{id}
	}
	return nil
}

type (
	one[T any]  = *dataloader.Loader[string, *T]
	many[T any] = *dataloader.Loader[string, []T]
)

// NewLoaders returns the loaders of one request over api; wait <= 0 means
// DefaultBatchWait. No batch waits past ctx's deadline: a loader still
// collecting keys then dispatches, its upstream call fails with the
// request's context, and the request ends on time instead of hanging on a
// long configured wait.
func NewLoaders(ctx context.Context, api upstream.API, wait time.Duration) *Loaders {
	if wait <= 0 {
		wait = DefaultBatchWait
	}
	l := &Loaders{api: api, wait: wait, m: map[string]any{}, level: map[string]*level{}}
	l.deadline, _ = ctx.Deadline()
	return l
}

// Reset drops every loader and its cache; mutations call it so that what
// they return is read after the write.
func (l *Loaders) Reset() {
	l.mu.Lock()
	l.m = map[string]any{}
	l.level = map[string]*level{}
	l.mu.Unlock()
}

// Complete records the items resolved at the field path, all at once (a
// top-level connection).
func (l *Loaders) Complete(path string, objs []any) {
	l.mu.Lock()
	l.level[path] = &level{objs: objs, complete: true}
	l.mu.Unlock()
}

// dispatched records a batch of a loader at path: its keys and the items it
// resolved.
func (l *Loaders) dispatched(path string, keys int, objs []any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	lv := l.level[path]
	if lv == nil {
		lv = &level{}
		l.level[path] = lv
	}
	lv.keys += keys
	lv.objs = append(lv.objs, objs...)
	if lv.want > 0 && lv.keys >= lv.want {
		lv.complete = true
	}
}

// expect returns how many distinct keys a loader at path will receive: 1 at
// a top-level field, and at a deeper field the distinct keys of the parent
// level's items when that level is complete; 0 when unknown. Loaders of
// different kinds at one path (a union edge) add up. Call with l.mu held.
func (l *Loaders) expect(path string, keys edgeKeys) int {
	want := 0
	i := strings.LastIndexByte(path, '.')
	switch {
	case i == 0:
		want = 1
	case i > 0 && keys != nil:
		parent := l.level[path[:i]]
		if parent == nil || !parent.complete {
			return 0
		}
		seen := map[string]bool{}
		for _, o := range parent.objs {
			for _, k := range keys(o) {
				seen[k] = true
			}
		}
		want = len(seen)
	}
	if want == 0 {
		return 0
	}
	lv := l.level[path]
	if lv == nil {
		lv = &level{}
		l.level[path] = lv
	}
	lv.want += want
	return want
}

// pathKey is the field path of ctx without list indices.
func pathKey(ctx context.Context) string {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil {
		return ""
	}
	var b strings.Builder
	for _, el := range fc.Path() {
		if name, ok := el.(ast.PathName); ok {
			b.WriteByte('.')
			b.WriteString(string(name))
		}
	}
	return b.String()
}

// pick returns the loader of kind for the field path of ctx, creating it
// with mk on first use.
//
// keys says which keys the edge loads for each parent item, so that the
// loader can dispatch on its last key (see Loaders); nil means unknown.
func pick[L any](ctx context.Context, kind string, mk func(*Loaders, string, int) L, keys edgeKeys) L {
	l := LoadersFrom(ctx)
	if l == nil {
		panic("resolvers: no loaders in the request context (LoaderMiddleware missing)")
	}
	path := pathKey(ctx)
	key := kind + "@" + path
	l.mu.Lock()
	defer l.mu.Unlock()
	if v, ok := l.m[key]; ok {
		return v.(L)
	}
	v := mk(l, path, l.expect(path, keys))
	l.m[key] = v
	return v
}

func sessionLister(api upstream.API) lister[upstream.Session] {
	return func(ctx context.Context, q upstream.ListQuery) (upstream.Page[upstream.Session], error) {
		return api.ListSessions(ctx, q, true)
	}
}

// The loader kinds.
func goalByID(l *Loaders, path string, want int) one[upstream.Goal] {
	return byID(l, path, want, l.api.ListGoals, upstream.GoalFields, func(g *upstream.Goal) []string { return []string{g.ID} })
}
func metricByID(l *Loaders, path string, want int) one[upstream.Metric] {
	return byID(l, path, want, l.api.ListMetrics, upstream.MetricFields, func(m *upstream.Metric) []string { return []string{m.ID} })
}
func sessionByID(l *Loaders, path string, want int) one[upstream.Session] {
	return byID(l, path, want, sessionLister(l.api), upstream.SessionFields, func(s *upstream.Session) []string { return []string{s.ID} })
}
func userByID(l *Loaders, path string, want int) one[upstream.User] {
	return byID(l, path, want, l.api.ListUsers, upstream.UserFields, func(u *upstream.User) []string { return []string{u.ID} })
}
func teamByID(l *Loaders, path string, want int) one[upstream.Team] {
	return byID(l, path, want, l.api.ListTeams, upstream.TeamFields, func(t *upstream.Team) []string { return []string{t.ID} })
}
func ownerByID(l *Loaders, path string, want int) *dataloader.Loader[string, model.Owner] {
	batch := func(ctx context.Context, keys []string) []*dataloader.Result[model.Owner] {
		out := l.loadOwners(ctx, keys)
		objs := make([]any, 0, len(out))
		for _, r := range out {
			if r.Data != nil {
				objs = append(objs, r.Data)
			}
		}
		l.dispatched(path, len(keys), objs)
		return out
	}
	return dataloader.NewBatchedLoader(batch, opts[model.Owner](l, want)...)
}
func goalsByParent(l *Loaders, path string, want int) many[upstream.Goal] {
	return byKey(l, path, want, l.api.ListGoals, upstream.GoalFields, "parentId", nil, func(g *upstream.Goal) []string { return []string{g.ParentID} })
}
func goalsBySession(l *Loaders, path string, want int) many[upstream.Goal] {
	return byKey(l, path, want, l.api.ListGoals, upstream.GoalFields, "sessionId", nil, func(g *upstream.Goal) []string { return []string{g.SessionID} })
}
func rootGoalsBySession(l *Loaders, path string, want int) many[upstream.Goal] {
	return byKey(l, path, want, l.api.ListGoals, upstream.GoalFields, "sessionId", query.Eq("parentId", ""), func(g *upstream.Goal) []string { return []string{g.SessionID} })
}
func goalsByOwner(l *Loaders, path string, want int) many[upstream.Goal] {
	return byKey(l, path, want, l.api.ListGoals, upstream.GoalFields, "ownerIds", nil, func(g *upstream.Goal) []string { return g.OwnerIDs })
}
func metricsByGoal(l *Loaders, path string, want int) many[upstream.Metric] {
	return byKey(l, path, want, l.api.ListMetrics, upstream.MetricFields, "goalId", nil, func(m *upstream.Metric) []string { return []string{m.GoalID} })
}
func checkinsByMetric(l *Loaders, path string, want int) many[upstream.CheckIn] {
	return byKey(l, path, want, l.api.ListCheckIns, upstream.CheckInFields, "metricId", nil, func(c *upstream.CheckIn) []string { return []string{c.MetricID} })
}
func tasksByParent(l *Loaders, path string, want int) many[upstream.Task] {
	return byKey(l, path, want, l.api.ListTasks, upstream.TaskFields, "parentId", nil, func(t *upstream.Task) []string { return []string{t.ParentID} })
}
func sessionsByParent(l *Loaders, path string, want int) many[upstream.Session] {
	return byKey(l, path, want, sessionLister(l.api), upstream.SessionFields, "parentId", nil, func(s *upstream.Session) []string { return []string{s.ParentID} })
}
func teamsByParent(l *Loaders, path string, want int) many[upstream.Team] {
	return byKey(l, path, want, l.api.ListTeams, upstream.TeamFields, "parentId", nil, func(t *upstream.Team) []string { return []string{t.ParentID} })
}

// opts configures a loader. When want, the number of distinct keys, is
// known, the batch dispatches on the last key (capacity) and the wait is only
// a safety net (knownWaitFactor × the wait); otherwise it dispatches after
// the wait or at maxKeys keys.
func opts[V any](l *Loaders, want int) []dataloader.Option[string, V] {
	capacity, wait := maxKeys, l.wait
	if want > 0 {
		capacity, wait = min(want, maxKeys), knownWaitFactor*l.wait
	}
	if !l.deadline.IsZero() {
		wait = max(min(wait, time.Until(l.deadline)), 0)
	}
	return []dataloader.Option[string, V]{
		dataloader.WithWait[string, V](wait),
		dataloader.WithBatchCapacity[string, V](capacity),
	}
}

// knownWaitFactor stretches the wait of a loader whose number of keys is
// known: the batch normally dispatches on its last key, and the stretched
// wait only catches the case where fewer keys come (a parent whose field
// failed).
const knownWaitFactor = 5

// lister is an upstream list operation.
type lister[T any] func(ctx context.Context, q upstream.ListQuery) (upstream.Page[T], error)

// listAll returns every item matching filter, in id order, paging by id
// (keyset) through pages of upstream.MaxLimit so that no item is lost and a
// concurrent insert cannot shift a page.
func listAll[T any](ctx context.Context, list lister[T], reg *query.Registry, filter *query.Expr, idOf func(*T) string) ([]T, error) {
	var out []T
	f := filter
	for {
		p, err := list(ctx, upstream.ListQuery{Filter: f, Sort: []query.SortKey{{Field: "id"}}, Limit: upstream.MaxLimit})
		if err != nil {
			return nil, err
		}
		out = append(out, p.Items...)
		if len(p.Items) == 0 || len(p.Items) >= p.TotalCount || len(p.Items) < upstream.MaxLimit {
			return out, nil
		}
		after, err := idAfter(reg, idOf(&p.Items[len(p.Items)-1]))
		if err != nil {
			return nil, err
		}
		f = query.And(filter, after)
	}
}

// idAfter is the filter id > last.
func idAfter(reg *query.Registry, last string) (*query.Expr, error) {
	b, _ := json.Marshal(map[string]any{"id": map[string]any{"$gt": last}})
	return query.ParseFilter(reg, string(b))
}

func anyKeys(keys []string) []any {
	vals := make([]any, len(keys))
	for i, k := range keys {
		vals[i] = k
	}
	return vals
}

// groupedResults answers a batch in key order, an empty list for a key
// without items, and records the level's items for dispatch.
func groupedResults[T any](l *Loaders, path string, keys []string, grouped map[string][]T) []*dataloader.Result[[]T] {
	out := make([]*dataloader.Result[[]T], len(keys))
	var objs []any
	for i, k := range keys {
		g := grouped[k]
		if g == nil {
			g = []T{}
		}
		for _, v := range g {
			objs = append(objs, v)
		}
		out[i] = &dataloader.Result[[]T]{Data: g}
	}
	l.dispatched(path, len(keys), objs)
	return out
}

func errResults[V any](n int, err error) []*dataloader.Result[V] {
	out := make([]*dataloader.Result[V], n)
	for i := range out {
		out[i] = &dataloader.Result[V]{Error: err}
	}
	return out
}

// byKey loads, for each key, the items whose field (one of keysOf) equals
// it, in id order; a key without items gets an empty list. Its keys are the
// ids of the items one level up, so it dispatches on the last of them when
// that level is complete (see Loaders).
func byKey[T any](l *Loaders, path string, want int, list lister[T], reg *query.Registry, field string, extra *query.Expr, keysOf func(*T) []string) many[T] {
	idOf := func(t *T) string { return keysOfID(any(t)) }
	batch := func(ctx context.Context, keys []string) []*dataloader.Result[[]T] {
		items, err := listAll(ctx, list, reg, query.And(query.In(field, anyKeys(keys)...), extra), idOf)
		if err != nil {
			return errResults[[]T](len(keys), err)
		}
		want := make(map[string]bool, len(keys))
		for _, k := range keys {
			want[k] = true
		}
		grouped := make(map[string][]T, len(keys))
		for i := range items {
			for _, k := range keysOf(&items[i]) {
				if want[k] {
					grouped[k] = append(grouped[k], items[i])
				}
			}
		}
		return groupedResults(l, path, keys, grouped)
	}
	return dataloader.NewBatchedLoader(batch, opts[[]T](l, want)...)
}

// byID loads items by id; a missing id yields nil (not an error).
func byID[T any](l *Loaders, path string, want int, list lister[T], reg *query.Registry, idOf func(*T) []string) one[T] {
	batch := func(ctx context.Context, keys []string) []*dataloader.Result[*T] {
		items, err := listAll(ctx, list, reg, query.In("id", anyKeys(keys)...), func(t *T) string { return idOf(t)[0] })
		if err != nil {
			return errResults[*T](len(keys), err)
		}
		found := make(map[string]*T, len(items))
		for i := range items {
			found[idOf(&items[i])[0]] = &items[i]
		}
		out := make([]*dataloader.Result[*T], len(keys))
		objs := make([]any, 0, len(keys))
		for i, k := range keys {
			if found[k] != nil {
				objs = append(objs, *found[k])
			}
			out[i] = &dataloader.Result[*T]{Data: found[k]}
		}
		l.dispatched(path, len(keys), objs)
		return out
	}
	return dataloader.NewBatchedLoader(batch, opts[*T](l, want)...)
}

// keysOfID returns the id of an upstream resource value.
func keysOfID(v any) string {
	if id := idOf(v); id != "" {
		return id
	}
	panic("resolvers: no id for this type")
}

// idOf returns the id of an upstream resource (value or pointer), or "".
func idOf(v any) string {
	switch t := v.(type) {
	case upstream.Goal:
		return t.ID
	case upstream.Metric:
		return t.ID
	case upstream.CheckIn:
		return t.ID
	case upstream.Task:
		return t.ID
	case upstream.Session:
		return t.ID
	case upstream.User:
		return t.ID
	case upstream.Team:
		return t.ID
	case *upstream.Goal:
		return t.ID
	case *upstream.Metric:
		return t.ID
	case *upstream.CheckIn:
		return t.ID
	case *upstream.Task:
		return t.ID
	case *upstream.Session:
		return t.ID
	case *upstream.User:
		return t.ID
	case *upstream.Team:
		return t.ID
	}
	return idOfMore(v)
}

// loadOwners resolves owner ids to users, and the ids that are no user to
// teams (a second call only when some id is not a user).
func (l *Loaders) loadOwners(ctx context.Context, keys []string) []*dataloader.Result[model.Owner] {
	out := make([]*dataloader.Result[model.Owner], len(keys))
	users, err := listAll(ctx, l.api.ListUsers, upstream.UserFields, query.In("id", anyKeys(keys)...), func(u *upstream.User) string { return u.ID })
	if err != nil {
		return errResults[model.Owner](len(keys), err)
	}
	found := make(map[string]model.Owner, len(keys))
	for i := range users {
		found[users[i].ID] = &users[i]
	}
	var rest []string
	for _, k := range keys {
		if _, ok := found[k]; !ok {
			rest = append(rest, k)
		}
	}
	if len(rest) > 0 {
		teams, err := listAll(ctx, l.api.ListTeams, upstream.TeamFields, query.In("id", anyKeys(rest)...), func(t *upstream.Team) string { return t.ID })
		if err != nil {
			return errResults[model.Owner](len(keys), err)
		}
		for i := range teams {
			found[teams[i].ID] = &teams[i]
		}
	}
	for i, k := range keys {
		out[i] = &dataloader.Result[model.Owner]{Data: found[k]}
	}
	return out
}

type loadersKey struct{}

// WithLoaders returns ctx carrying l.
func WithLoaders(ctx context.Context, l *Loaders) context.Context {
	return context.WithValue(ctx, loadersKey{}, l)
}

// LoadersFrom returns the loaders of the request in ctx.
func LoadersFrom(ctx context.Context) *Loaders {
	l, _ := ctx.Value(loadersKey{}).(*Loaders)
	return l
}

// LoaderMiddleware creates fresh loaders for every request.
func LoaderMiddleware(api upstream.API, wait time.Duration, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		next.ServeHTTP(w, r.WithContext(WithLoaders(ctx, NewLoaders(ctx, api, wait))))
	})
}
