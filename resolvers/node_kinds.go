package resolvers

import (
	"context"

	"github.com/okrgate/okrgate/graph/model"
	"github.com/okrgate/okrgate/upstream"
)

// The node fetchers of the types that have no listing filterable by id,
// and of the typed global ids (globalid.go).

// typedNodes finds typed global ids: one listing per type named, whatever
// the number of ids.
func typedNodes(api Services) fetcher[model.Node] {
	return func(ctx context.Context, keys []string, q fetchArgs) (map[string][]model.Node, error) {
		byType := map[string][]string{} // REST ids per type
		global := map[string][]string{} // the global ids of a type's REST id
		for _, k := range keys {
			typ, ids, _ := parseGlobalID(k)
			rest := ids[0]
			switch {
			case typ == employeeNode && len(ids) == 1, typ == tagDetailNode && len(ids) == 1, typ == userRoleNode && len(ids) <= 2:
			default:
				continue // not an id of ours: no node
			}
			if typ == userRoleNode && len(ids) == 2 {
				typ, rest = userRoleNode+"@team", ids[0]+":"+ids[1]
			}
			if len(global[typ+" "+rest]) == 0 {
				byType[typ] = append(byType[typ], rest)
			}
			global[typ+" "+rest] = append(global[typ+" "+rest], k)
		}
		out := make(map[string][]model.Node, len(keys))
		put := func(typ string, found map[string][]model.Node) {
			for rest, v := range found {
				for _, k := range global[typ+" "+rest] {
					out[k] = v[:1]
				}
			}
		}
		fetchers := []struct {
			typ string
			f   fetcher[model.Node]
		}{
			{employeeNode, asNodes(byID(api.ListEmployees, func(e *upstream.Employee) string { return e.ID }))},
			{tagDetailNode, asNodes(byID(func(ctx context.Context, q upstream.ListQuery) (upstream.Page[upstream.TagDetail], error) {
				return api.ListTags(ctx, upstream.TagQuery{ListQuery: q})
			}, func(t *upstream.TagDetail) string { return t.ID }))},
			{userRoleNode, directRolesByID(api)},
			{userRoleNode + "@team", teamRolesByID(api)},
		}
		for _, f := range fetchers {
			if len(byType[f.typ]) == 0 {
				continue
			}
			found, err := f.f(ctx, byType[f.typ], q)
			if err != nil {
				return nil, err
			}
			put(f.typ, found)
		}
		return out, nil
	}
}

// directRolesByID answers roles held directly, by role id.
func directRolesByID(api upstream.RoleService) fetcher[model.Node] {
	roles := byID(api.ListRoles, func(r *upstream.Role) string { return r.ID })
	return func(ctx context.Context, keys []string, q fetchArgs) (map[string][]model.Node, error) {
		found, err := roles(ctx, keys, q)
		if err != nil {
			return nil, err
		}
		out := make(map[string][]model.Node, len(found))
		for k, rs := range found {
			r := rs[0]
			out[k] = []model.Node{&upstream.UserRole{ID: r.ID, AccountID: r.AccountID, Name: r.Name, Description: r.Description}}
		}
		return out, nil
	}
}

// teamRolesByID answers roles held through a team, by "roleId:teamId":
// the role mappings (one call) and the teams they name (one call).
func teamRolesByID(api interface {
	upstream.TeamService
	upstream.RoleService
}) fetcher[model.Node] {
	teams := byID(api.ListTeams, func(t *upstream.Team) string { return t.ID })
	return func(ctx context.Context, keys []string, q fetchArgs) (map[string][]model.Node, error) {
		ms, err := tolerated(api.ListRoleMappings(ctx))
		if err != nil || len(ms) == 0 {
			return nil, err
		}
		want := make(map[string]bool, len(keys))
		for _, k := range keys {
			want[k] = true
		}
		mapped := map[string]upstream.Role{}
		var teamIDs []string
		for _, m := range ms {
			if k := m.ID + ":" + m.TeamID; want[k] {
				if _, dup := mapped[k]; !dup {
					teamIDs = append(teamIDs, m.TeamID)
				}
				mapped[k] = m
			}
		}
		if len(mapped) == 0 {
			return nil, nil
		}
		found, err := teams(ctx, teamIDs, fetchArgs{})
		if err != nil {
			return nil, err
		}
		out := make(map[string][]model.Node, len(mapped))
		for k, m := range mapped {
			if ts := found[m.TeamID]; len(ts) > 0 {
				out[k] = []model.Node{&upstream.UserRole{ID: m.ID, AccountID: m.AccountID, Name: m.Name, Description: m.Description, Team: &ts[0]}}
			}
		}
		return out, nil
	}
}

// mappingsByID finds role mappings by mapping id in the listing of all of
// them (one call).
func mappingsByID(api upstream.RoleService) fetcher[model.RoleMapping] {
	return func(ctx context.Context, keys []string, q fetchArgs) (map[string][]model.RoleMapping, error) {
		ms, err := tolerated(api.ListRoleMappings(ctx))
		if err != nil {
			return nil, err
		}
		return pick(keys, model.RoleMappings(ms), func(m *model.RoleMapping) string { return m.MappingID }), nil
	}
}

// tokensByID finds the caller's own API tokens (one call): another user's
// token is no node the caller may see.
func tokensByID(api upstream.TokenService) fetcher[upstream.Token] {
	return func(ctx context.Context, keys []string, q fetchArgs) (map[string][]upstream.Token, error) {
		ts, err := tolerated(api.ListTokens(ctx))
		if err != nil {
			return nil, err
		}
		return pick(keys, ts, func(t *upstream.Token) string { return t.ID }), nil
	}
}

// accountByID finds the caller's account: one call, only when an id is
// the account's.
func accountByID(api upstream.AccountService) fetcher[upstream.Account] {
	return func(ctx context.Context, keys []string, q fetchArgs) (map[string][]upstream.Account, error) {
		id, err := callerAccount(ctx)
		if err != nil {
			return nil, err
		}
		for _, k := range keys {
			if k != id {
				continue
			}
			a, err := tolerated(api.GetAccount(ctx, id))
			if err != nil || a.ID == "" {
				return nil, err
			}
			return map[string][]upstream.Account{id: {a}}, nil
		}
		return nil, nil
	}
}

// permissionsByID finds grants by id with one listing of the account's
// grants; a caller who may not read grants (a FORBIDDEN answer) finds none.
func permissionsByID(api upstream.PermissionService) fetcher[upstream.Permission] {
	grants := byID(api.ListPermissions, func(p *upstream.Permission) string { return p.ID })
	return func(ctx context.Context, keys []string, q fetchArgs) (map[string][]upstream.Permission, error) {
		out, err := grants(ctx, keys, q)
		if upstream.ErrorCode(err) == upstream.CodeForbidden {
			return map[string][]upstream.Permission{}, nil
		}
		return out, err
	}
}

// tolerated turns a not-found or forbidden answer into none: a node the
// caller may not see is null, not an error.
func tolerated[T any](v T, err error) (T, error) {
	switch upstream.ErrorCode(err) {
	case upstream.CodeNotFound, upstream.CodeForbidden:
		var zero T
		return zero, nil
	}
	return v, err
}

// pick keeps the items whose id is one of keys, per key.
func pick[T any](keys []string, items []T, id func(*T) string) map[string][]T {
	want := make(map[string]bool, len(keys))
	for _, k := range keys {
		want[k] = true
	}
	out := map[string][]T{}
	for i := range items {
		if k := id(&items[i]); want[k] && len(out[k]) == 0 {
			out[k] = []T{items[i]}
		}
	}
	return out
}
