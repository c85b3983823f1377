package resolvers

import (
	"context"
	"slices"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/okrgate/okrgate/graph/model"
	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/query"
)

// The fetchers behind the edges: each loads the items of a set of keys with
// one upstream LIST operation and an $in filter of all the keys, asking for
// every match at once (upstream.ListQuery.All). A store answers in one
// statement, so a level costs one call however large; a gateway splits the
// list as the REST API's bounds require and pages by keyset (listAll).

// fetcher loads the items of keys, grouped by key, as q asks.
type fetcher[T any] func(ctx context.Context, keys []string, q fetchArgs) (map[string][]T, error)

// fetchArgs is what a field asks of a fetch beyond its keys: a filter
// ANDed to the fetcher's own (the field's filter argument) and the
// enrichments to compute (nil: the whole default shape).
type fetchArgs struct {
	filter *query.Expr
	fields query.Projection
	// sel is the selection on each item, when the items are what the
	// field returns (no connection, no order to sort by in memory): the
	// fetch then asks for the document keys it reads (decodeKeys).
	sel ast.SelectionSet
}

// lister is an upstream list operation.
type lister[T any] func(ctx context.Context, q upstream.ListQuery) (upstream.Page[T], error)

// byField fetches the items whose field (the keys item gives, e.g. its
// parentId or its ownerIds) is one of the keys, with extra and q's filter
// ANDed to the filter, in id order per key.
func byField[T any](list lister[T], field string, extra *query.Expr, itemKeys func(*T, []string) []string, id func(*T) string) fetcher[T] {
	return func(ctx context.Context, keys []string, q fetchArgs) (map[string][]T, error) {
		want := make(map[string]bool, len(keys))
		for _, k := range keys {
			want[k] = true
		}
		out := make(map[string][]T, len(keys))
		items, err := listAll(ctx, list, upstream.ListQuery{Filter: query.And(query.In(field, anyKeys(keys)...), extra, q.filter),
			Fields: q.fields, Decode: decodeKeys[T](q.sel)}, id)
		if err != nil {
			return nil, err
		}
		if groupInPlace(items, want, itemKeys, out) {
			return out, nil
		}
		var buf []string
		for i := range items {
			buf = itemKeys(&items[i], buf[:0])
			for _, k := range buf {
				if want[k] {
					out[k] = append(out[k], items[i])
				}
			}
		}
		return out, nil
	}
}

// groupInPlace groups items, when each has one key at most, by key into
// out: it moves them in place so that each key's items are adjacent, in
// their order, and sets out[k] to a window of items (capped, so an append
// to one does not overwrite the next). A level's items are then held once,
// not once in the list and again in per-key slices grown by append; items
// with no wanted key go last and are dropped. It reports false, leaving
// items as they were, when some item has several keys (a goal's owners).
func groupInPlace[T any](items []T, want map[string]bool, itemKeys func(*T, []string) []string, out map[string][]T) bool {
	keyOf := make([]string, len(items))
	count := make(map[string]int, len(want))
	var buf []string
	for i := range items {
		buf = itemKeys(&items[i], buf[:0])
		if len(buf) > 1 {
			return false
		}
		if len(buf) == 1 && want[buf[0]] {
			keyOf[i] = buf[0]
			count[buf[0]]++
		}
	}
	// The keys' windows in order of first appearance, then the dropped.
	start := make(map[string]int, len(count))
	next := 0
	for _, k := range keyOf {
		if _, seen := start[k]; k != "" && !seen {
			start[k] = next
			next += count[k]
		}
	}
	dropped := next
	dest := make([]int, len(items))
	fill := make(map[string]int, len(start))
	for i, k := range keyOf {
		if k == "" {
			dest[i] = dropped
			dropped++
			continue
		}
		dest[i] = start[k] + fill[k]
		fill[k]++
	}
	for i := range items { // apply the permutation by its cycles
		for dest[i] != i {
			j := dest[i]
			items[i], items[j] = items[j], items[i]
			dest[i], dest[j] = dest[j], dest[i]
		}
	}
	for k, s := range start {
		out[k] = items[s : s+count[k] : s+count[k]]
	}
	return true
}

// byID fetches items by id; a key without an item gets none.
func byID[T any](list lister[T], id func(*T) string) fetcher[T] {
	return byField(list, "id", nil, func(t *T, dst []string) []string { return append(dst, id(t)) }, id)
}

// listAll returns every item matching q's filter, in id order: in one call
// where the API answers upstream.ListQuery.All (a store), else paging by id
// (keyset) through pages of upstream.MaxLimit so that no item is lost and a
// concurrent insert cannot shift a page.
func listAll[T any](ctx context.Context, list lister[T], q upstream.ListQuery, idOf func(*T) string) ([]T, error) {
	var out []T
	filter := q.Filter
	q.Sort, q.All, q.Limit = []query.SortKey{{Field: "id"}}, true, 0
	for {
		p, err := list(ctx, q)
		if err != nil {
			return nil, err
		}
		if out == nil {
			out = p.Items
		} else {
			out = append(out, p.Items...)
		}
		if upstream.Complete(q, p) {
			return out, nil
		}
		q.Filter = query.And(filter, query.Gt("id", idOf(&p.Items[len(p.Items)-1])))
	}
}

// enrichments are the fields a store computes per item on request (joins,
// authorization): a loader asks for them only when the query selects them.
var enrichments = []string{"assignee", "assignees", "tags", "currentUserAllowedActions"}

// selectionProjection is the projection of the items the field of ctx
// returns (fieldProjection of its selection), or nil outside a field.
func selectionProjection(ctx context.Context) query.Projection {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || !graphql.HasOperationContext(ctx) {
		return nil
	}
	return fieldProjection(graphql.GetOperationContext(ctx), fc.Field.Selections)
}

// selectionOf is the selection of the field of ctx, or nil outside a
// field.
func selectionOf(ctx context.Context) ast.SelectionSet {
	if fc := graphql.GetFieldContext(ctx); fc != nil {
		return fc.Field.Selections
	}
	return nil
}

// fieldProjection is the upstream projection of the items a field with
// selection sel returns: "id" and the enrichments the selection names (in
// any fragment), so that the store skips the joins nobody reads. Plain
// stored fields and the edges below are not listed: which document keys a
// level reads is ListQuery.Decode (decodeKeys), and the edges load through
// their own loaders.
func fieldProjection(oc *graphql.OperationContext, sel ast.SelectionSet) query.Projection {
	p := query.Projection{"id": nil}
	collect(oc, sel, p)
	return p
}

// collect adds the enrichments named in sel, through fragments of any type.
func collect(oc *graphql.OperationContext, sel ast.SelectionSet, p query.Projection) {
	for _, s := range sel {
		switch s := s.(type) {
		case *ast.Field:
			if slices.Contains(enrichments, s.Name) {
				p[s.Name] = nil
			}
		case *ast.InlineFragment:
			collect(oc, s.SelectionSet, p)
		case *ast.FragmentSpread:
			if s.Definition != nil {
				collect(oc, s.Definition.SelectionSet, p)
			}
		}
	}
}

func anyKeys(keys []string) []any {
	vals := make([]any, len(keys))
	for i, k := range keys {
		vals[i] = k
	}
	return vals
}

// owners fetches owners (users or teams) by id: the users of keys, then the
// teams among the ids that are no user (a second call only when some id is
// not a user).
func owners(api interface {
	upstream.UserService
	upstream.TeamService
}) fetcher[model.Owner] {
	users := byID(api.ListUsers, func(u *upstream.User) string { return u.ID })
	teams := byID(api.ListTeams, func(t *upstream.Team) string { return t.ID })
	return func(ctx context.Context, keys []string, q fetchArgs) (map[string][]model.Owner, error) {
		us, err := users(ctx, keys, q)
		if err != nil {
			return nil, err
		}
		out := make(map[string][]model.Owner, len(keys))
		var rest []string
		for _, k := range keys {
			if u := us[k]; len(u) > 0 {
				out[k] = []model.Owner{&u[0]}
			} else {
				rest = append(rest, k)
			}
		}
		if len(rest) == 0 {
			return out, nil
		}
		ts, err := teams(ctx, rest, q)
		if err != nil {
			return nil, err
		}
		for _, k := range rest {
			if t := ts[k]; len(t) > 0 {
				out[k] = []model.Owner{&t[0]}
			}
		}
		return out, nil
	}
}

// itemsByTag fetches, per tag id, the items of itemType carrying it: the
// taggings of all keys in one call (ListTaggings {tagId: {$in}, itemType}),
// then the items by id (fetch), which leaves out what the caller may not
// see (private goals, dashboards without read access). Items come in id
// order per tag.
func itemsByTag[T any](api upstream.TagService, itemType string, fetch fetcher[T]) fetcher[T] {
	return func(ctx context.Context, keys []string, q fetchArgs) (map[string][]T, error) {
		tgs, err := listAll(ctx, api.ListTaggings,
			upstream.ListQuery{Filter: query.And(query.In("tagId", anyKeys(keys)...), query.Eq("itemType", itemType))}, func(t *upstream.Tagging) string { return t.ID })
		if err != nil {
			return nil, err
		}
		var ids []string
		for _, t := range tgs {
			ids = append(ids, t.ItemID)
		}
		slices.Sort(ids)
		found, err := fetch(ctx, slices.Compact(ids), q)
		if err != nil {
			return nil, err
		}
		out := make(map[string][]T, len(keys))
		for _, t := range tgs { // in id order "<tagId>:<itemId>": by item id per tag
			if it := found[t.ItemID]; len(it) > 0 {
				out[t.TagID] = append(out[t.TagID], it[0])
			}
		}
		return out, nil
	}
}

// roleMappings fetches the roles mapped to each team: one ListRoleMappings
// call (the operation has no filter; it returns the account's mappings,
// grouped here by team).
func roleMappings(api upstream.RoleService) fetcher[upstream.Role] {
	return func(ctx context.Context, keys []string, _ fetchArgs) (map[string][]upstream.Role, error) {
		ms, err := api.ListRoleMappings(ctx)
		if err != nil {
			return nil, err
		}
		out := map[string][]upstream.Role{}
		for _, m := range ms {
			out[m.TeamID] = append(out[m.TeamID], m)
		}
		return out, nil
	}
}

// asRoleMappings types the roles of a mapping fetcher as mappings.
func asRoleMappings(f fetcher[upstream.Role]) fetcher[model.RoleMapping] {
	return func(ctx context.Context, keys []string, q fetchArgs) (map[string][]model.RoleMapping, error) {
		found, err := f(ctx, keys, q)
		if err != nil {
			return nil, err
		}
		out := make(map[string][]model.RoleMapping, len(found))
		for k, rs := range found {
			out[k] = model.RoleMappings(rs)
		}
		return out, nil
	}
}

// holders fetches the holders of each badge: the approved assignments of all
// keys (ListAssignedBadges {status: "approved", badgeId: {$in: keys}}),
// grouped by badge into the distinct assignee ids in id order. The users
// and teams themselves load one level down (BadgeHolders.users / .teams).
func holders(api upstream.BadgeService) fetcher[model.BadgeHolders] {
	return func(ctx context.Context, keys []string, _ fetchArgs) (map[string][]model.BadgeHolders, error) {
		ids := map[string][]string{}
		as, err := listAll(ctx, api.ListAssignedBadges,
			upstream.ListQuery{Filter: query.And(query.In("badgeId", anyKeys(keys)...), query.Eq("status", upstream.BadgeApproved))},
			func(a *upstream.AssignedBadge) string { return a.ID })
		if err != nil {
			return nil, err
		}
		for _, a := range as {
			ids[a.BadgeID] = append(ids[a.BadgeID], a.AssigneeIDs...)
		}
		out := make(map[string][]model.BadgeHolders, len(keys))
		for _, k := range keys {
			out[k] = []model.BadgeHolders{{BadgeID: k, AssigneeIDs: sortedSet(ids[k])}}
		}
		return out, nil
	}
}

// sortedSet returns the distinct non-empty ids, sorted.
func sortedSet(ids []string) []string {
	out := slices.Clone(nonEmpty(ids...))
	slices.Sort(out)
	return slices.Compact(out)
}
