package upstream

import "context"

// UserService serves the users of the caller's account.
type UserService interface {
	ListUsers(ctx context.Context, q ListQuery) (Page[User], error)
	GetUser(ctx context.Context, id string) (User, error)
}

// TeamService serves teams.
type TeamService interface {
	ListTeams(ctx context.Context, q ListQuery) (Page[Team], error)
	GetTeam(ctx context.Context, id string) (Team, error)
}

// AccountService serves the caller's account and its settings.
type AccountService interface{}

// EmployeeService serves the employee view of users.
type EmployeeService interface{}

// RoleService serves roles and their mappings to teams.
type RoleService interface{}

// PermissionService serves the action catalogue, grants and effective permissions.
type PermissionService interface{}
