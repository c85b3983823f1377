package resolvers

import (
	"context"

	"github.com/graph-gophers/dataloader/v7"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/query"
)

// The loader kinds of the organisation and content edges. Like the OKR core
// (loaders.go), every one is an upstream LIST with an $in filter on the keys
// of one level, read by keyset in pages of 1000; their edgeKeys are below.

func employeeByID(l *Loaders, path string, want int) one[upstream.Employee] {
	return byID(l, path, want, l.api.ListEmployees, upstream.EmployeeFields, func(e *upstream.Employee) []string { return []string{e.ID} })
}
func roleByID(l *Loaders, path string, want int) one[upstream.Role] {
	return byID(l, path, want, l.api.ListRoles, upstream.RoleFields, func(r *upstream.Role) []string { return []string{r.ID} })
}
func badgeByID(l *Loaders, path string, want int) one[upstream.Badge] {
	return byID(l, path, want, l.api.ListBadges, upstream.BadgeFields, func(b *upstream.Badge) []string { return []string{b.ID} })
}
func dashboardByID(l *Loaders, path string, want int) one[upstream.Dashboard] {
	return byID(l, path, want, l.api.ListDashboards, upstream.DashboardFields, func(d *upstream.Dashboard) []string { return []string{d.ID} })
}
func kpiGroupByID(l *Loaders, path string, want int) one[upstream.KPIGroup] {
	return byID(l, path, want, l.api.ListKPIGroups, upstream.KPIGroupFields, func(g *upstream.KPIGroup) []string { return []string{g.ID} })
}

// badgesByHolder: the approved assignments naming a user or team
// (ListAssignedBadges {status: "approved", assigneeIds: {$in: keys}}).
func badgesByHolder(l *Loaders, path string, want int) many[upstream.AssignedBadge] {
	return byKey(l, path, want, l.api.ListAssignedBadges, upstream.AssignedBadgeFields, "assigneeIds",
		query.Eq("status", upstream.BadgeApproved), func(a *upstream.AssignedBadge) []string { return a.AssigneeIDs })
}

// kpisByGroup: ListKPIs {groupIds: {$in: keys}}.
func kpisByGroup(l *Loaders, path string, want int) many[upstream.KPI] {
	return byKey(l, path, want, l.api.ListKPIs, upstream.KPIFields, "groupIds", nil, func(k *upstream.KPI) []string { return k.GroupIDs })
}

func goalsByTag(l *Loaders, path string, want int) many[upstream.Goal] {
	return itemsByTag(l, path, want, upstream.TaggedGoal, l.api.ListGoals, upstream.GoalFields, func(g *upstream.Goal) string { return g.ID })
}
func dashboardsByTag(l *Loaders, path string, want int) many[upstream.Dashboard] {
	return itemsByTag(l, path, want, upstream.TaggedDashboard, l.api.ListDashboards, upstream.DashboardFields, func(d *upstream.Dashboard) string { return d.ID })
}

// itemsByTag loads, per tag id, the items of itemType carrying it: the
// taggings of all keys in one call (ListTaggings {tagId: {$in}, itemType}),
// then the items in one call per 1000 ids (List... {id: {$in}}), which
// leaves out what the caller may not see (private goals, dashboards without
// read access). Items come in id order per tag.
func itemsByTag[T any](l *Loaders, path string, want int, itemType string, list lister[T], reg *query.Registry, idOf func(*T) string) many[T] {
	batch := func(ctx context.Context, keys []string) []*dataloader.Result[[]T] {
		tgs, err := listAll(ctx, l.api.ListTaggings, upstream.TaggingFields,
			query.And(query.In("tagId", anyKeys(keys)...), query.Eq("itemType", itemType)), func(t *upstream.Tagging) string { return t.ID })
		if err != nil {
			return errResults[[]T](len(keys), err)
		}
		seen := map[string]bool{}
		var ids []string
		for _, t := range tgs {
			if !seen[t.ItemID] {
				seen[t.ItemID] = true
				ids = append(ids, t.ItemID)
			}
		}
		found := make(map[string]*T, len(ids))
		for len(ids) > 0 {
			n := min(len(ids), maxKeys)
			items, err := listAll(ctx, list, reg, query.In("id", anyKeys(ids[:n])...), idOf)
			if err != nil {
				return errResults[[]T](len(keys), err)
			}
			for i := range items {
				found[idOf(&items[i])] = &items[i]
			}
			ids = ids[n:]
		}
		grouped := make(map[string][]T, len(keys))
		for _, t := range tgs { // in id order "<tagId>:<itemId>": by item id per tag
			if it := found[t.ItemID]; it != nil {
				grouped[t.TagID] = append(grouped[t.TagID], *it)
			}
		}
		return groupedResults(l, path, keys, grouped)
	}
	return dataloader.NewBatchedLoader(batch, opts[[]T](l, want)...)
}

// roleMappingsByTeam loads the roles mapped to each team: one
// ListRoleMappings call per batch (the operation has no filter; it returns
// the account's mappings, grouped here by team).
func roleMappingsByTeam(l *Loaders, path string, want int) many[upstream.Role] {
	batch := func(ctx context.Context, keys []string) []*dataloader.Result[[]upstream.Role] {
		ms, err := l.api.ListRoleMappings(ctx)
		if err != nil {
			return errResults[[]upstream.Role](len(keys), err)
		}
		grouped := map[string][]upstream.Role{}
		for _, m := range ms {
			grouped[m.TeamID] = append(grouped[m.TeamID], m)
		}
		return groupedResults(l, path, keys, grouped)
	}
	return dataloader.NewBatchedLoader(batch, opts[[]upstream.Role](l, want)...)
}

// edgeKeys of the new edges.
var (
	badgeOfAssignmentKeys = keysOf(func(a *upstream.AssignedBadge) []string {
		if a.Badge != nil {
			return nil
		}
		return nonEmpty(a.BadgeID)
	})
	userTeamKeys           = keysOf(func(u *upstream.User) []string { return u.TeamIDs })
	employeeTeamKeys       = keysOf(func(e *upstream.Employee) []string { return e.TeamIDs })
	employeeManagedKeys    = keysOf(func(e *upstream.Employee) []string { return e.ManagedTeamIDs })
	assigneeKeys           = keysOf(func(a *upstream.AssignedBadge) []string { return a.AssigneeIDs })
	assignedByKeys         = keysOf(func(a *upstream.AssignedBadge) []string { return nonEmpty(a.AssignedByID) })
	kpiGroupKeys           = keysOf(func(k *upstream.KPI) []string { return k.GroupIDs })
	kpiOwnerKeys           = keysOf(func(k *upstream.KPI) []string { return nonEmpty(k.OwnerID) })
	kpiGroupCreatorKeys    = keysOf(func(g *upstream.KPIGroup) []string { return nonEmpty(g.CreatedByID) })
	tagUsageDashboardKeys  = keysOf(func(u *upstream.DashboardTagUsage) []string { return u.DashboardsIDs })
	listCreatorKeys        = keysOf(func(x *upstream.List) []string { return nonEmpty(x.CreatedByID) })
	announcementAuthorKeys = keysOf(func(a *upstream.Announcement) []string { return nonEmpty(a.AuthorID) })
	accountOwnerKeys       = keysOf(func(a *upstream.Account) []string { return nonEmpty(a.OwnerID) })
	mappingRoleKeys        = keysOf(func(r *upstream.Role) []string { return nonEmpty(r.ID) })
	mappingTeamKeys        = keysOf(func(r *upstream.Role) []string { return nonEmpty(r.TeamID) })
)

// idOfMore is idOf for the organisation and content types.
func idOfMore(v any) string {
	switch t := v.(type) {
	case upstream.Employee:
		return t.ID
	case *upstream.Employee:
		return t.ID
	case upstream.Role:
		return t.ID
	case *upstream.Role:
		return t.ID
	case upstream.Badge:
		return t.ID
	case *upstream.Badge:
		return t.ID
	case upstream.AssignedBadge:
		return t.ID
	case *upstream.AssignedBadge:
		return t.ID
	case upstream.KPIGroup:
		return t.ID
	case *upstream.KPIGroup:
		return t.ID
	case upstream.KPI:
		return t.ID
	case *upstream.KPI:
		return t.ID
	case upstream.List:
		return t.ID
	case *upstream.List:
		return t.ID
	case upstream.Announcement:
		return t.ID
	case *upstream.Announcement:
		return t.ID
	case upstream.Tag:
		return t.ID
	case *upstream.Tag:
		return t.ID
	case upstream.TagDetail:
		return t.ID
	case *upstream.TagDetail:
		return t.ID
	case upstream.Dashboard:
		return t.ID
	case *upstream.Dashboard:
		return t.ID
	case upstream.DashboardParameter:
		return t.ID
	case *upstream.DashboardParameter:
		return t.ID
	case upstream.Account:
		return t.ID
	case *upstream.Account:
		return t.ID
	}
	return ""
}
