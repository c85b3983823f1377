package resolvers

import "strings"

// Global ids of the types whose REST id is another object's id: an
// Employee's id is its user's, a TagDetail's its tag's, a UserRole's its
// role's. Their GraphQL id is typed, "<Type>:<rest id>[:<rest id>]", so
// that every Node id names one object; every other type's global id is
// its REST id (docs/decisions/graphql-schema.md, "Relay global ids"). The REST ids of
// nodes (24 hex characters) hold no colon, so the two forms cannot meet.
const (
	employeeNode  = "Employee"
	tagDetailNode = "TagDetail"
	userRoleNode  = "UserRole"
)

// globalID joins a type and the REST ids that name one of its objects.
func globalID(typ string, ids ...string) string {
	return typ + ":" + strings.Join(ids, ":")
}

// parseGlobalID splits a typed global id into its type and REST ids; ok
// is false for a plain REST id.
func parseGlobalID(id string) (typ string, ids []string, ok bool) {
	parts := strings.Split(id, ":")
	if len(parts) < 2 {
		return "", nil, false
	}
	for _, p := range parts[1:] {
		if p == "" {
			return "", nil, false
		}
	}
	return parts[0], parts[1:], true
}

// userRoleID is the global id of a role as a user holds it.
func userRoleID(roleID, teamID string) string {
	if teamID == "" {
		return globalID(userRoleNode, roleID)
	}
	return globalID(userRoleNode, roleID, teamID)
}
