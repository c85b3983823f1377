package sqlstore

import "github.com/okrgate/okrgate/upstream"

// The organisation: users (beyond auth.go), teams (beyond teams.go),
// accounts, employees, roles, role mappings and grants.

var (
	roles = table[upstream.Role]{name: "roles", kind: "role", reg: upstream.RoleFields,
		cols: []string{"name"},
		keys: func(r *upstream.Role) []any { return []any{r.Name} },
		id:   func(r *upstream.Role) string { return r.ID }}
	roleMappings = table[upstream.RoleMapping]{name: "role_mappings", kind: "role mapping", reg: nil,
		cols: []string{"role_id", "team_id"},
		keys: func(m *upstream.RoleMapping) []any { return []any{m.RoleID, m.TeamID} },
		id:   func(m *upstream.RoleMapping) string { return m.ID }}
	grants = table[upstream.Permission]{name: "permissions", kind: "permission", reg: upstream.PermissionFields,
		cols: []string{"action"},
		keys: func(p *upstream.Permission) []any { return []any{p.Action} },
		id:   func(p *upstream.Permission) string { return p.ID }}
	// employees reads the users table through the employee registry.
	employees = table[upstream.User]{name: "users", kind: "employee", reg: upstream.EmployeeFields,
		cols: []string{"email"},
		keys: func(u *upstream.User) []any { return []any{u.Email} },
		id:   func(u *upstream.User) string { return u.ID }}
)
