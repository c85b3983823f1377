package upstream

import "github.com/okrgate/okrgate/upstream/query"

// Field registries of the organisation resources beyond users and teams.
var (
	RoleFields       = query.NewRegistry("role", roleFields()...)
	EmployeeFields   = query.NewRegistry("employee", employeeFields()...)
	PermissionFields = query.NewRegistry("permission", permissionFields()...)
)

func roleFields() []query.Field {
	return append(baseFields(),
		fs("name", query.String),
		fs("description", query.String),
		fs("userCount", query.Integer),
		fs("builtIn", query.Bool),
	)
}

// employeeFields: an employee is a user seen with its teams; the listing
// reads the users table, so the columns are the users'.
func employeeFields() []query.Field {
	return []query.Field{
		col(fs("id", query.ID), "id"),
		fs("firstName", query.String),
		fs("lastName", query.String),
		col(fs("email", query.String), "email"),
		fs("picture", query.String),
		fs("dateCreated", query.DateTime),
		fs("isActive", query.Bool),
		{Name: "isManager", Type: query.Bool},            // derived: projectable only
		{Name: "managedTeamIds", Type: query.StringList}, // derived: projectable only
		ff("teamIds", query.StringList),
		obj("badges"),
		obj("roles"),
		obj("teams"),
		obj("managedTeams"),
	}
}

func permissionFields() []query.Field {
	return append(baseFields(),
		fs("action", query.String),
		ff("principals", query.StringList),
	)
}
