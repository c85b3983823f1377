package resolvers

import (
	"context"

	"github.com/okrgate/okrgate/graph/model"
	"github.com/okrgate/okrgate/upstream"
)

// Relay global object identification. A node's global id is its REST id:
// ids are unique across all resource types (upstream.IDSource), so REST and
// GraphQL clients share one id and nothing is encoded. Finding a node's
// type therefore takes lookups: nodesByID asks the listing of each type in
// turn for the ids not found yet, stopping when none is left. A level of
// node/nodes fields is one batch, so N ids cost at most one upstream call
// per node type (per 1000 ids), whatever N (grants excepted: one call per
// grant id, see permissionsByID); ids of the first types cost
// fewest calls, so the order is the order of how often clients refetch.
//
// The types whose REST id is another object's id (Employee, TagDetail,
// UserRole) have typed global ids instead (globalid.go), found by their
// type at once. See docs/graphql.md.

// maxNodes bounds the ids of one nodes(ids:) field.
const maxNodes = MaxFirst

// nodesByID fetches nodes of any type by id: typed global ids by their
// type (typedNodes), REST ids through the listings in turn (restNodes).
func nodesByID(api Services) fetcher[model.Node] {
	typed, plain := typedNodes(api), restNodes(api)
	return func(ctx context.Context, keys []string, q fetchArgs) (map[string][]model.Node, error) {
		var rest, tagged []string
		for _, k := range keys {
			if _, _, ok := parseGlobalID(k); ok {
				tagged = append(tagged, k)
			} else {
				rest = append(rest, k)
			}
		}
		out := make(map[string][]model.Node, len(keys))
		for _, part := range []struct {
			f    fetcher[model.Node]
			keys []string
		}{{typed, tagged}, {plain, rest}} {
			if len(part.keys) == 0 {
				continue
			}
			found, err := part.f(ctx, part.keys, q)
			if err != nil {
				return nil, err
			}
			for k, v := range found {
				out[k] = v
			}
		}
		return out, nil
	}
}

// restNodes finds REST ids: each type's listing in turn is asked for the
// ids not found yet, the most refetched types first, then the types
// without a filterable listing (role mappings, the caller's tokens and
// account: one call each) and last the grants, one GetPermission per id
// left (the upstream API has no listing of grants).
func restNodes(api Services) fetcher[model.Node] {
	kinds := []fetcher[model.Node]{
		asNodes(byID(api.ListGoals, func(g *upstream.Goal) string { return g.ID })),
		asNodes(byID(api.ListMetrics, func(m *upstream.Metric) string { return m.ID })),
		asNodes(byID(api.ListTasks, func(t *upstream.Task) string { return t.ID })),
		asNodes(byID(api.ListCheckIns, func(c *upstream.CheckIn) string { return c.ID })),
		asNodes(byID(sessionLister(api), func(s *upstream.Session) string { return s.ID })),
		asNodes(byID(api.ListUsers, func(u *upstream.User) string { return u.ID })),
		asNodes(byID(api.ListTeams, func(t *upstream.Team) string { return t.ID })),
		asNodes(tagsByID(api)),
		asNodes(byID(api.ListDashboards, func(d *upstream.Dashboard) string { return d.ID })),
		asNodes(byID(api.ListKPIs, func(k *upstream.KPI) string { return k.ID })),
		asNodes(byID(api.ListKPIGroups, func(g *upstream.KPIGroup) string { return g.ID })),
		asNodes(byID(api.ListLists, func(x *upstream.List) string { return x.ID })),
		asNodes(byID(api.ListAnnouncements, func(a *upstream.Announcement) string { return a.ID })),
		asNodes(byID(api.ListComments, func(c *upstream.Comment) string { return c.ID })),
		asNodes(byID(api.ListBadges, func(b *upstream.Badge) string { return b.ID })),
		asNodes(byID(api.ListAssignedBadges, func(a *upstream.AssignedBadge) string { return a.ID })),
		asNodes(byID(api.ListDashboardParameters, func(d *upstream.DashboardParameter) string { return d.ID })),
		asNodes(byID(api.ListRoles, func(r *upstream.Role) string { return r.ID })),
		asNodes(mappingsByID(api)),
		asNodes(accountByID(api)),
		asNodes(tokensByID(api)),
		asNodes(permissionsByID(api)),
	}
	return func(ctx context.Context, keys []string, q fetchArgs) (map[string][]model.Node, error) {
		out := make(map[string][]model.Node, len(keys))
		rest := keys
		for _, kind := range kinds {
			if len(rest) == 0 {
				break
			}
			found, err := kind(ctx, rest, q)
			if err != nil {
				return nil, err
			}
			next := rest[:0:0]
			for _, k := range rest {
				if v := found[k]; len(v) > 0 {
					out[k] = v[:1]
				} else {
					next = append(next, k)
				}
			}
			rest = next
		}
		return out, nil
	}
}

// asNodes turns a fetcher of one type into a fetcher of nodes (pointers to
// the items, which the Node marshaller and the levels below both take).
func asNodes[T any](f fetcher[T]) fetcher[model.Node] {
	return func(ctx context.Context, keys []string, q fetchArgs) (map[string][]model.Node, error) {
		found, err := f(ctx, keys, q)
		if err != nil {
			return nil, err
		}
		out := make(map[string][]model.Node, len(found))
		for k, items := range found {
			for i := range items {
				out[k] = append(out[k], &items[i])
			}
		}
		return out, nil
	}
}

// tagsByID fetches tags by id through the tag listing (TagDetail, the
// listing form, carries every field of Tag).
func tagsByID(api upstream.TagService) fetcher[upstream.Tag] {
	list := func(ctx context.Context, q upstream.ListQuery) (upstream.Page[upstream.Tag], error) {
		p, err := api.ListTags(ctx, upstream.TagQuery{ListQuery: q})
		if err != nil {
			return upstream.Page[upstream.Tag]{}, err
		}
		out := upstream.Page[upstream.Tag]{Items: make([]upstream.Tag, len(p.Items)), TotalCount: p.TotalCount}
		for i, t := range p.Items {
			out.Items[i] = upstream.Tag{ID: t.ID, Name: t.Name, Title: t.Title, IsActive: t.IsActive, CreatedBy: t.CreatedBy, DateCreated: t.DateCreated}
		}
		return out, nil
	}
	return byID(list, func(t *upstream.Tag) string { return t.ID })
}

// nodesAt loads ids as one level (the field of ctx), in the order of ids,
// nil where no node has the id.
func nodesAt(ctx context.Context, ids []string) ([]model.Node, error) {
	if len(ids) > maxNodes {
		return nil, upstream.Invalid("ids", "at most %d ids", maxNodes)
	}
	per, err := For(ctx).Nodes.perKey(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]model.Node, len(ids))
	for i := range per {
		if len(per[i]) > 0 {
			out[i] = per[i][0]
		}
	}
	return out, nil
}
