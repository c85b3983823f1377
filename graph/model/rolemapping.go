package model

import "github.com/okrgate/okrgate/upstream"

// RoleMapping is a role mapped to a team: the role as ListRoleMappings and
// CreateRoleMapping answer it (MappingID set). It is a type of its own, not
// upstream.Role, so that a Node value tells a mapping from a role.
type RoleMapping upstream.Role

// RoleMappings converts mapping answers of the upstream API.
func RoleMappings(rs []upstream.Role) []RoleMapping {
	out := make([]RoleMapping, len(rs))
	for i, r := range rs {
		out[i] = RoleMapping(r)
	}
	return out
}

// IsEntity marks RoleMapping as an entity of the GraphQL federation
// (upstream.Goal.IsEntity says why).
func (RoleMapping) IsEntity() {}
