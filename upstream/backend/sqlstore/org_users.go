package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/query"
)

// userRoles resolves the roles a new or changed user holds: role ids
// (built-in or account roles), or a built-in role name, or member.
func (s *Store) userRoles(ctx context.Context, q querier, account, name string, ids []string) ([]upstream.UserRole, error) {
	if len(ids) == 0 {
		if name == "" {
			name = upstream.RoleMember
		}
		b, ok := upstream.BuiltinRoleByName(name)
		if !ok {
			return nil, upstream.Invalid("role", "must be admin, member or viewer")
		}
		return []upstream.UserRole{{AccountID: account, ID: b.ID, Name: b.Name, Description: b.Description}}, nil
	}
	out := []upstream.UserRole{}
	for _, id := range dedupe(ids) {
		if b, ok := upstream.BuiltinRoleByID(id); ok {
			out = append(out, upstream.UserRole{AccountID: account, ID: b.ID, Name: b.Name, Description: b.Description})
			continue
		}
		r, err := roles.get(ctx, q, account, id)
		if err != nil {
			return nil, upstream.Invalid("roleIds", "no role %q", id)
		}
		out = append(out, upstream.UserRole{AccountID: account, ID: r.ID, Name: r.Name, Description: r.Description})
	}
	return out, nil
}

// UpdateUser changes a user. Users change their own profile; roles,
// activation and other users need users:manage. A caller who is not an
// admin changes the roles or activation only of users who are not
// privileged and hold nothing it does not (upstream.MayManageUser), and
// assigns only roles whose rights it holds (upstream.MayConfer). An account
// keeps at least one active admin.
func (s *Store) UpdateUser(ctx context.Context, id string, in upstream.UserPatch) (upstream.User, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.User{}, err
	}
	var u upstream.User
	err = s.tx(ctx, func(q querier) error {
		if u, err = users.get(ctx, q, c.AccountID, id); err != nil {
			return err
		}
		var d *delegation
		if !upstream.SelfPatch(c.UserID, id, in) {
			if err := s.authorize(ctx, q, c, upstream.UsersManage, nil); err != nil {
				return err
			}
			if in.IsActive != nil || in.RoleIDs != nil {
				if d, err = s.delegationOf(ctx, q, c); err != nil {
					return err
				}
				if err := checkManageUser(d, u); err != nil {
					return err
				}
			}
		}
		set(&u.FirstName, in.FirstName, strings.TrimSpace)
		set(&u.LastName, in.LastName, strings.TrimSpace)
		set(&u.Language, in.Language, strings.TrimSpace)
		if in.Picture != nil && *in.Picture != u.Picture && strings.HasPrefix(u.Picture, upstream.AvatarPathPrefix) {
			// Another picture replaces the uploaded one: it goes (avatars.go).
			if err := freeAvatar(ctx, q, c.AccountID, id); err != nil {
				return err
			}
		}
		set(&u.Picture, in.Picture, nil)
		u.Name = strings.TrimSpace(u.FirstName + " " + u.LastName)
		if in.IsActive != nil {
			u.IsActive = *in.IsActive
			u.PictureInfo.IsActive = *in.IsActive
		}
		if in.RoleIDs != nil {
			if len(*in.RoleIDs) == 0 {
				return upstream.Invalid("roleIds", "a user holds at least one role")
			}
			roles, err := s.userRoles(ctx, q, c.AccountID, "", *in.RoleIDs)
			if err != nil {
				return err
			}
			if err := checkUserRoles(d, upstream.Describe("user", u.ID), u, roles); err != nil {
				return err
			}
			u.Roles = roles
		}
		if err := users.update(ctx, q, c.AccountID, &u); err != nil {
			return err
		}
		return s.keepAnAdmin(ctx, q, c.AccountID)
	})
	return u, err
}

// keepAnAdmin refuses a change that leaves the account without an active admin.
func (s *Store) keepAnAdmin(ctx context.Context, q querier, account string) error {
	admin, _ := upstream.BuiltinRoleByName(upstream.RoleAdmin)
	var n int
	d := dialectOf(q)
	err := q.QueryRowContext(ctx, `SELECT count(*) FROM users WHERE account_id = ? AND `+d.isTrue("doc", "isActive")+`
		AND EXISTS (SELECT 1 FROM `+d.eachObject("users.doc", "r", "roles")+` WHERE `+d.text("r.value", "id")+` IN (?, 'role-admin'))`,
		account, admin.ID).Scan(&n)
	if err != nil {
		return fmt.Errorf("sqlstore: count admins: %w", err)
	}
	if n == 0 {
		return upstream.Errorf(upstream.CodeConflict, "the account must keep at least one active admin")
	}
	return nil
}

// ListUsersLegacy is the deprecated listing: property:value terms on email
// and name (case-insensitive substrings) and roles (role ids); terms on the
// same property are alternatives, terms on different properties all apply.
func (s *Store) ListUsersLegacy(ctx context.Context, lq upstream.LegacyUserQuery) (upstream.Page[upstream.User], error) {
	q, c, err := s.readAs(ctx, upstream.UsersRead)
	if err != nil {
		return upstream.Page[upstream.User]{}, err
	}
	var and []any
	anyRegex := func(field string, terms []string) {
		var alts []any
		for _, t := range terms {
			alts = append(alts, map[string]any{field: map[string]any{"$regex": regexp.QuoteMeta(t), "$options": "i"}})
		}
		and = append(and, map[string]any{"$or": alts})
	}
	if len(lq.Email) > 0 {
		anyRegex("email", lq.Email)
	}
	if len(lq.Name) > 0 {
		anyRegex("name", lq.Name)
	}
	var filter *query.Expr
	if len(and) > 0 {
		src, _ := json.Marshal(map[string]any{"$and": and})
		if filter, err = query.ParseFilter(upstream.UserFields, string(src)); err != nil {
			return upstream.Page[upstream.User]{}, err
		}
	}
	list := upstream.ListQuery{Filter: filter, Skip: lq.Skip, Limit: lq.Take,
		Sort: []query.SortKey{{Field: "email"}}}
	src, args := "users", []any(nil)
	if len(lq.Roles) > 0 {
		// Roles held directly or through a team.
		d := dialectOf(q)
		src = `(SELECT * FROM users WHERE account_id = ? AND (
			EXISTS (SELECT 1 FROM ` + d.eachObject("users.doc", "r", "roles") + ` WHERE ` + d.text("r.value", "id") + ` IN ` + idList + `)
			OR EXISTS (SELECT 1 FROM ` + d.each("users.doc", "t", "teamIds") + ` JOIN role_mappings m ON m.team_id = t.value
				WHERE m.account_id = ? AND m.role_id IN (SELECT value FROM json_each(?)))))`
		args = []any{c.AccountID, idsParam(lq.Roles), c.AccountID, idsParam(lq.Roles)}
	}
	items, total, err := users.listFrom(ctx, q, src, args, c.AccountID, list)
	if err != nil {
		return upstream.Page[upstream.User]{}, err
	}
	if lq.IncludeShadowedRoles {
		if err := s.addTeamRoles(ctx, q, c.AccountID, items); err != nil {
			return upstream.Page[upstream.User]{}, err
		}
	}
	return upstream.Page[upstream.User]{Items: items, TotalCount: total}, nil
}

// addTeamRoles adds to users the roles they hold through teams (shadowed
// roles), each with its team: three queries per page.
func (s *Store) addTeamRoles(ctx context.Context, q querier, account string, us []upstream.User) error {
	var teamIDs []string
	for _, u := range us {
		teamIDs = append(teamIDs, u.TeamIDs...)
	}
	ms, err := roleMappings.in(ctx, q, account, "team_id", dedupe(teamIDs))
	if err != nil || len(ms) == 0 {
		return err
	}
	var tids, rids []string
	for _, m := range ms {
		tids, rids = append(tids, m.TeamID), append(rids, m.RoleID)
	}
	ts, err := teams.in(ctx, q, account, "id", dedupe(tids))
	if err != nil {
		return err
	}
	teamByID := map[string]upstream.Team{}
	for _, t := range ts {
		teamByID[t.ID] = t
	}
	roleByID, err := s.rolesByID(ctx, q, account, rids)
	if err != nil {
		return err
	}
	for i := range us {
		for _, m := range ms {
			if !slices.Contains(us[i].TeamIDs, m.TeamID) {
				continue
			}
			r, ok := roleByID[m.RoleID]
			t, tok := teamByID[m.TeamID]
			if !ok || !tok {
				continue
			}
			us[i].Roles = append(us[i].Roles, upstream.UserRole{AccountID: account, ID: r.ID, Name: r.Name, Description: r.Description, Team: &t})
		}
	}
	return nil
}

// rolesByID returns built-in and account roles by id.
func (s *Store) rolesByID(ctx context.Context, q querier, account string, ids []string) (map[string]upstream.Role, error) {
	out := map[string]upstream.Role{}
	var stored []string
	for _, id := range dedupe(ids) {
		if b, ok := upstream.BuiltinRoleByID(id); ok {
			out[id] = builtinRole(account, b)
		} else {
			stored = append(stored, id)
		}
	}
	rs, err := roles.in(ctx, q, account, "id", stored)
	for _, r := range rs {
		out[r.ID] = r
	}
	return out, err
}

func builtinRole(account string, b upstream.BuiltinRole) upstream.Role {
	return upstream.Role{ID: b.ID, AccountID: account, Name: b.Name, Description: b.Description, BuiltIn: true}
}
