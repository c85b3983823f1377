package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/query"
)

// Roles.

// ListRoles lists the built-in roles and the account roles, with user counts.
func (s *Store) ListRoles(ctx context.Context, lq upstream.ListQuery) (upstream.Page[upstream.Role], error) {
	q, c, err := s.readAs(ctx, upstream.RolesRead)
	if err != nil {
		return upstream.Page[upstream.Role]{}, err
	}
	all, err := s.allRoles(ctx, q, c.AccountID)
	if err != nil {
		return upstream.Page[upstream.Role]{}, err
	}
	// Few roles per account: filter and sort in memory, with the filter
	// language's own semantics.
	docs := make([]map[string]any, 0, len(all))
	for _, r := range all {
		raw, _ := json.Marshal(r)
		var m map[string]any
		_ = json.Unmarshal(raw, &m)
		ok, err := lq.Filter.MatchContext(ctx, m)
		if err != nil {
			return upstream.Page[upstream.Role]{}, fmt.Errorf("sqlstore: filter roles: %w", err)
		}
		if ok {
			docs = append(docs, m)
		}
	}
	keys := append(slices.Clone(lq.Sort), query.SortKey{Field: "id"})
	less := query.Less(keys)
	sort.SliceStable(docs, func(i, j int) bool { return less(docs[i], docs[j]) })
	page := upstream.Page[upstream.Role]{Items: []upstream.Role{}, TotalCount: len(docs)}
	for i := lq.Skip; i < len(docs) && len(page.Items) < lq.PageLimit(); i++ {
		var r upstream.Role
		raw, _ := json.Marshal(docs[i])
		_ = json.Unmarshal(raw, &r)
		page.Items = append(page.Items, r)
	}
	return page, nil
}

// allRoles returns the built-in roles then the account roles, with user counts.
func (s *Store) allRoles(ctx context.Context, q querier, account string) ([]upstream.Role, error) {
	var out []upstream.Role
	for _, b := range upstream.BuiltinRoles() {
		out = append(out, builtinRole(account, b))
	}
	stored, err := roles.where(ctx, q, account, trueSQL)
	if err != nil {
		return nil, err
	}
	out = append(out, stored...)
	counts := map[string]int{}
	d := dialectOf(q)
	rows, err := q.QueryContext(ctx, `SELECT `+d.text("r.value", "id")+`, `+d.text("r.value", "name")+`, count(*) FROM users, `+d.eachObject("users.doc", "r", "roles")+`
		WHERE users.account_id = ? GROUP BY 1, 2`, account)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: count role users: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, name string
		var n int
		if err := rows.Scan(&id, &name, &n); err != nil {
			return nil, err
		}
		if b, ok := upstream.BuiltinRoleByName(name); ok && id == "role-"+name {
			id = b.ID
		}
		counts[id] += n
	}
	for i := range out {
		out[i].UserCount = counts[out[i].ID]
	}
	return out, rows.Err()
}

// GetRole returns one role, built-in or of the account.
func (s *Store) GetRole(ctx context.Context, id string) (upstream.Role, error) {
	q, c, err := s.readAs(ctx, upstream.RolesRead)
	if err != nil {
		return upstream.Role{}, err
	}
	all, err := s.allRoles(ctx, q, c.AccountID)
	if err != nil {
		return upstream.Role{}, err
	}
	for _, r := range all {
		if r.ID == id {
			return r, nil
		}
	}
	return upstream.Role{}, upstream.NotFound("role", id)
}

func checkRoleName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return "", upstream.Invalid("name", "must not be empty")
	}
	if len(name) > 200 {
		return "", upstream.Invalid("name", "must be at most 200 characters")
	}
	if _, ok := upstream.BuiltinRoleByName(strings.ToLower(name)); ok {
		return "", upstream.Errorf(upstream.CodeConflict, "%q is a built-in role", name)
	}
	return name, nil
}

// CreateRole creates an account role; it holds what is granted to it.
func (s *Store) CreateRole(ctx context.Context, in upstream.RoleInput) (upstream.Role, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.Role{}, err
	}
	name, err := checkRoleName(in.Name)
	if err != nil {
		return upstream.Role{}, err
	}
	r := upstream.Role{ID: s.ids.New(), AccountID: c.AccountID, Name: name, Description: in.Description}
	err = s.tx(ctx, func(q querier) error {
		if err := s.authorize(ctx, q, c, upstream.RolesManage, nil); err != nil {
			return err
		}
		if err := s.roleNameFree(ctx, q, c.AccountID, name, ""); err != nil {
			return err
		}
		return roles.insert(ctx, q, c.AccountID, &r)
	})
	return r, err
}

func (s *Store) roleNameFree(ctx context.Context, q querier, account, name, except string) error {
	var n int
	if err := q.QueryRowContext(ctx, "SELECT count(*) FROM roles WHERE account_id = ? AND name = ? AND id <> ?", account, name, except).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return upstream.Errorf(upstream.CodeConflict, "a role named %q exists", name)
	}
	return nil
}

// UpdateRole changes an account role; users holding it see the new name.
func (s *Store) UpdateRole(ctx context.Context, id string, in upstream.RolePatch) (upstream.Role, error) {
	var r upstream.Role
	return writeAs(ctx, s, upstream.RolesManage, &r, func(q querier, c upstream.Caller) error {
		var err error
		if _, ok := upstream.BuiltinRoleByID(id); ok {
			return upstream.Errorf(upstream.CodeForbidden, "built-in roles cannot be changed")
		}
		if r, err = roles.get(ctx, q, c.AccountID, id); err != nil {
			return err
		}
		if in.Name != nil {
			if r.Name, err = checkRoleName(*in.Name); err != nil {
				return err
			}
			if err := s.roleNameFree(ctx, q, c.AccountID, r.Name, id); err != nil {
				return err
			}
		}
		set(&r.Description, in.Description, nil)
		if err := roles.update(ctx, q, c.AccountID, &r); err != nil {
			return err
		}
		return s.eachRoleHolder(ctx, q, c.AccountID, id, func(u *upstream.User) {
			for i := range u.Roles {
				if u.Roles[i].ID == id {
					u.Roles[i].Name, u.Roles[i].Description = r.Name, r.Description
				}
			}
		})
	})
}

// eachRoleHolder applies fn to every user holding role id directly and saves it.
func (s *Store) eachRoleHolder(ctx context.Context, q querier, account, id string, fn func(*upstream.User)) error {
	d := dialectOf(q)
	us, err := users.where(ctx, q, account, "EXISTS (SELECT 1 FROM "+d.eachObject("users.doc", "r", "roles")+" WHERE "+d.text("r.value", "id")+" = ?)", id)
	if err != nil {
		return err
	}
	for _, u := range us {
		fn(&u)
		if err := users.update(ctx, q, account, &u); err != nil {
			return err
		}
	}
	return nil
}

// DeleteRole deletes an account role with its mappings and grants; its
// holders keep their other roles (or become members).
func (s *Store) DeleteRole(ctx context.Context, id string) error {
	return s.writeAsCaller(ctx, upstream.RolesManage, func(q querier, c upstream.Caller) error {
		if _, ok := upstream.BuiltinRoleByID(id); ok {
			return upstream.Errorf(upstream.CodeForbidden, "built-in roles cannot be deleted")
		}
		if _, err := roles.get(ctx, q, c.AccountID, id); err != nil {
			return err
		}
		d, err := s.delegationOf(ctx, q, c)
		if err != nil {
			return err
		}
		if err := s.checkRoleDeleted(ctx, q, d, id); err != nil {
			return err
		}
		member, _ := upstream.BuiltinRoleByName(upstream.RoleMember)
		if err := s.eachRoleHolder(ctx, q, c.AccountID, id, func(u *upstream.User) {
			u.Roles = slices.DeleteFunc(u.Roles, func(r upstream.UserRole) bool { return r.ID == id })
			if len(u.Roles) == 0 {
				u.Roles = []upstream.UserRole{{AccountID: c.AccountID, ID: member.ID, Name: member.Name, Description: member.Description}}
			}
		}); err != nil {
			return err
		}
		if err := s.dropPrincipal(ctx, q, c.AccountID, id); err != nil {
			return err
		}
		if err := roleMappings.deleteWhere(ctx, q, c.AccountID, "role_id = ?", id); err != nil {
			return err
		}
		return roles.deleteWhere(ctx, q, c.AccountID, "id = ?", id)
	})
}

// ListRoleMappings lists every role mapping of the account as roles with
// their team and mapping id.
func (s *Store) ListRoleMappings(ctx context.Context) ([]upstream.Role, error) {
	q, c, err := s.readAs(ctx, upstream.RolesRead)
	if err != nil {
		return nil, err
	}
	ms, err := roleMappings.where(ctx, q, c.AccountID, trueSQL)
	if err != nil {
		return nil, err
	}
	var rids []string
	for _, m := range ms {
		rids = append(rids, m.RoleID)
	}
	byID, err := s.rolesByID(ctx, q, c.AccountID, rids)
	if err != nil {
		return nil, err
	}
	out := []upstream.Role{}
	for _, m := range ms {
		r := byID[m.RoleID]
		r.TeamID, r.MappingID = m.TeamID, m.ID
		out = append(out, r)
	}
	return out, nil
}

// CreateRoleMapping maps a role to a team: its members hold the role.
// Under the delegation rule (upstream.MayConfer) a caller maps only a role
// whose rights it holds, and only an admin maps the admin role.
func (s *Store) CreateRoleMapping(ctx context.Context, in upstream.RoleMappingInput) (upstream.Role, error) {
	var r upstream.Role
	return writeAs(ctx, s, upstream.RolesManage, &r, func(q querier, c upstream.Caller) error {
		byID, err := s.rolesByID(ctx, q, c.AccountID, []string{in.RoleID})
		if err != nil {
			return err
		}
		var ok bool
		if r, ok = byID[in.RoleID]; !ok {
			return upstream.Invalid("roleId", "no role %q", in.RoleID)
		}
		t, err := teams.get(ctx, q, c.AccountID, in.TeamID)
		if err != nil {
			return upstream.Invalid("teamId", "no team %q", in.TeamID)
		}
		var n int
		if err := q.QueryRowContext(ctx, "SELECT count(*) FROM role_mappings WHERE account_id = ? AND role_id = ? AND team_id = ?", c.AccountID, in.RoleID, in.TeamID).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return upstream.Errorf(upstream.CodeConflict, "role %q is already mapped to team %q", in.RoleID, in.TeamID)
		}
		d, err := s.delegationOf(ctx, q, c)
		if err != nil {
			return err
		}
		if err := s.checkMapping(ctx, q, d, in.RoleID, t, true); err != nil {
			return err
		}
		m := upstream.RoleMapping{ID: s.ids.New(), AccountID: c.AccountID, RoleID: in.RoleID, TeamID: in.TeamID}
		r.TeamID, r.MappingID = m.TeamID, m.ID
		return roleMappings.insert(ctx, q, c.AccountID, &m)
	})
}

// DeleteRoleMapping deletes a role mapping by its id; only an admin
// unmaps the admin role from a team with members.
func (s *Store) DeleteRoleMapping(ctx context.Context, id string) error {
	return s.writeAsCaller(ctx, upstream.RolesManage, func(q querier, c upstream.Caller) error {
		m, err := roleMappings.get(ctx, q, c.AccountID, id)
		if err != nil {
			return err
		}
		d, err := s.delegationOf(ctx, q, c)
		if err != nil {
			return err
		}
		if d != nil {
			t, err := teams.get(ctx, q, c.AccountID, m.TeamID)
			if err != nil && upstream.ErrorCode(err) != upstream.CodeNotFound {
				return err
			}
			if err == nil {
				if err := s.checkMapping(ctx, q, d, m.RoleID, t, false); err != nil {
					return err
				}
			}
		}
		return roleMappings.deleteWhere(ctx, q, c.AccountID, "id = ?", id)
	})
}
