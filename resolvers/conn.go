package resolvers

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"

	"github.com/okrgate/okrgate/graph/model"
	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/query"
)

// Helpers that keep the resolvers of the organisation and content schema
// thin: a connection is pageQuery → one upstream list → connect; a write is
// one upstream call → wrote (loader caches dropped, the result returned).

// pageQuery validates the paging arguments and builds the list query.
func pageQuery(ctx context.Context, reg *query.Registry, first *int, after *string, filter map[string]any, orderBy []model.Order) (Page, upstream.ListQuery, error) {
	p, err := PageArgs(first, after)
	if err != nil {
		return p, upstream.ListQuery{}, err
	}
	q, err := listQuery(ctx, reg, p, filter, orderBy)
	return p, q, err
}

// listConnection is the resolver of every top-level connection field of
// connection type C over items T: the paging, filter and order arguments
// validated against reg, one page listed by list, the connection built
// (newConnection). The field middleware records its nodes as the level
// below (recordField).
func listConnection[C, T any](ctx context.Context, reg *query.Registry, list lister[T], first *int, after *string, filter map[string]any, orderBy []model.Order) (*C, error) {
	p, q, err := pageQuery(ctx, reg, first, after, filter, orderBy)
	if err != nil {
		return nil, err
	}
	page, err := list(ctx, q)
	if err != nil {
		return nil, err
	}
	return newConnection[C](p, page.Items[:min(len(page.Items), p.First)], totalOf(p, page)), nil
}

// newConnection builds a connection of type C (every connection type of
// the schema has the fields TotalCount, PageInfo, Nodes []T and Edges of
// {Cursor, Node *T}: TestNewConnectionEveryType checks them all) with
// items at p out of total.
func newConnection[C, T any](p Page, items []T, total int) *C {
	items = nonNilSlice(items)
	pi, cursors := pageInfo(p, len(items), total)
	c := new(C)
	v := reflect.ValueOf(c).Elem()
	v.FieldByName("TotalCount").SetInt(int64(total))
	v.FieldByName("PageInfo").Set(reflect.ValueOf(pi))
	v.FieldByName("Nodes").Set(reflect.ValueOf(items))
	ev := v.FieldByName("Edges")
	edges := reflect.MakeSlice(ev.Type(), len(items), len(items))
	for i := range items {
		e := edges.Index(i)
		e.FieldByName("Cursor").SetString(cursors[i])
		e.FieldByName("Node").Set(reflect.ValueOf(&items[i]))
	}
	ev.Set(edges)
	return c
}

// wrote finishes a mutation that returns an object: on success the loader
// caches are dropped, so fields below read after the write.
func wrote[T any](ctx context.Context, v T, err error) (*T, error) {
	if err != nil {
		return nil, err
	}
	LoadersFrom(ctx).Reset()
	return &v, nil
}

// deleted finishes a mutation that returns the id it deleted.
func deleted(ctx context.Context, id string, err error) (string, error) {
	if err != nil {
		return "", err
	}
	LoadersFrom(ctx).Reset()
	return id, nil
}

// nilIfNotFound turns a not-found read into null.
func nilIfNotFound[T any](v T, err error) (*T, error) {
	if upstream.ErrorCode(err) == upstream.CodeNotFound {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &v, nil
}

// callerAccount is the caller's account id (the account operations take it).
func callerAccount(ctx context.Context) (string, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return "", err
	}
	return c.AccountID, nil
}

// decodeJSON sets dst from a JSON input value (the REST shape of a nested
// structure), so that it is validated exactly like the REST body.
func decodeJSON(field string, data any, dst any) error {
	if data == nil {
		return nil
	}
	b, err := json.Marshal(data)
	if err != nil {
		return upstream.Invalid(field, "%v", err)
	}
	if err := json.Unmarshal(b, dst); err != nil {
		return upstream.Invalid(field, "does not have the REST shape: %v", err)
	}
	return nil
}

// actionSet is the REST form of granted or denied actions (action → 1).
func actionSet(actions []string) map[string]int {
	m := make(map[string]int, len(actions))
	for _, a := range actions {
		m[a] = 1
	}
	return m
}

// accessOf converts the GraphQL access input into the REST structure.
func accessOf(in model.AccessInput) upstream.Access {
	a := upstream.Access{Inherits: in.Inherits, Permissions: []upstream.PermissionEntry{}}
	if in.OwnerPermissions != nil {
		a.OwnerPermissions = &upstream.OwnerPermissions{Grant: actionSet(in.OwnerPermissions.Grant), Deny: actionSet(in.OwnerPermissions.Deny)}
	}
	for _, p := range in.Permissions {
		a.Permissions = append(a.Permissions, upstream.PermissionEntry{PrincipalID: p.PrincipalID, PrincipalKind: p.PrincipalKind,
			Grant: actionSet(p.Grant), Deny: actionSet(p.Deny)})
	}
	return a
}

// actionList is the GraphQL form of granted or denied actions: the names
// whose REST value (action → 1) is set, sorted; never nil.
func actionList(m map[string]int) []string {
	out := []string{}
	for a, v := range m {
		if v != 0 {
			out = append(out, a)
		}
	}
	slices.Sort(out)
	return out
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// pending restricts an assignment listing to the approval list.
func pending(q upstream.ListQuery) upstream.ListQuery {
	q.Filter = query.And(q.Filter, query.Eq("status", upstream.BadgePending))
	return q
}

// userRoles are the roles a user holds directly (from the user document)
// and, with team, those mapped to the user's teams: the mappings and the
// teams both load by the user's team ids, one batch each per level.
func userRoles(ctx context.Context, u *upstream.User, team bool) ([]upstream.UserRole, error) {
	out := make([]upstream.UserRole, 0, len(u.Roles))
	for _, r := range u.Roles {
		if r.Team == nil {
			out = append(out, r)
		}
	}
	if !team || len(u.TeamIDs) == 0 {
		return out, nil
	}
	l := For(ctx)
	teamIDs, maps, err := l.UserTeamRoles.PerKey(ctx, u)
	if err != nil {
		return nil, err
	}
	_, teams, err := l.UserRoleTeams.PerKey(ctx, u)
	if err != nil {
		return nil, err
	}
	for i := range teamIDs {
		var team *upstream.Team
		if len(teams[i]) > 0 {
			team = &teams[i][0]
		}
		for _, m := range maps[i] {
			out = append(out, upstream.UserRole{AccountID: m.AccountID, ID: m.ID, Name: m.Name, Description: m.Description, Team: team})
		}
	}
	return out, nil
}

// legacyUserQuery builds the query of the deprecated user listing exactly as
// REST does (GET /api/v1/accounts/users): the property:value filter is parsed
// by the contract's own parser (upstream.ParseLegacyUserFilter, which the REST
// facade uses too), skip must be ≥ 0 and take 1 to
// upstream.MaxLimit (default upstream.DefaultLimit).
func legacyUserQuery(filter *string, skip, take *int, shadowed *bool) (upstream.LegacyUserQuery, error) {
	lq, err := upstream.ParseLegacyUserFilter(deref(filter))
	if err != nil {
		return lq, err
	}
	if skip != nil {
		if *skip < 0 {
			return lq, upstream.Invalid("skip", "%d is not an integer ≥ 0", *skip)
		}
		lq.Skip = *skip
	}
	lq.Take = upstream.DefaultLimit
	if take != nil {
		if *take < 1 || *take > upstream.MaxLimit {
			return lq, upstream.Invalid("take", "%d is out of range; use 1 to %d", *take, upstream.MaxLimit)
		}
		lq.Take = *take
	}
	lq.IncludeShadowedRoles = shadowed != nil && *shadowed
	return lq, nil
}
