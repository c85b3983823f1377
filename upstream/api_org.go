package upstream

import "context"

// UserService serves the users of the caller's account.
type UserService interface {
	ListUsers(ctx context.Context, q ListQuery) (Page[User], error)
	GetUser(ctx context.Context, id string) (User, error)
	// ListUsersLegacy is the deprecated listing with its property:value
	// filter; team roles are added when IncludeShadowedRoles.
	ListUsersLegacy(ctx context.Context, q LegacyUserQuery) (Page[User], error)
	CreateUser(ctx context.Context, in UserInput) (User, error)
	// UpdateUser changes a user; IsActive false deactivates it, and its
	// tokens stop working at once.
	UpdateUser(ctx context.Context, id string, in UserPatch) (User, error)
	// CreateUserToken issues an API token for a user; only its hash is kept.
	CreateUserToken(ctx context.Context, id string) (UserToken, error)
}

// TeamService serves teams.
type TeamService interface {
	ListTeams(ctx context.Context, q ListQuery) (Page[Team], error)
	GetTeam(ctx context.Context, id string) (Team, error)
	CreateTeam(ctx context.Context, in TeamInput) (Team, error)
	UpdateTeam(ctx context.Context, id string, in TeamPatch) (Team, error)
	// DeleteTeam deletes a team: its child teams become roots, its members
	// lose it from teamIds, its role mappings go.
	DeleteTeam(ctx context.Context, id string) error
	AddTeamMember(ctx context.Context, teamID, userID string) (Team, error)
	RemoveTeamMember(ctx context.Context, teamID, userID string) error
}

// AccountService serves the caller's account and its settings. An id other
// than the caller's account is not found.
type AccountService interface {
	GetAccount(ctx context.Context, id string) (Account, error)
	UpdateAccount(ctx context.Context, id string, in AccountPatch) (Account, error)
	CheckAccountDomain(ctx context.Context, in DomainCheck) (DomainAvailability, error)
	SetConfidenceSettings(ctx context.Context, id string, in ConfidenceSettings) error
	SetNotificationSettings(ctx context.Context, id string, in NotificationSettings) (NotificationSettings, error)
}

// EmployeeService serves the employee view of users.
type EmployeeService interface {
	ListEmployees(ctx context.Context, q ListQuery) (Page[Employee], error)
	// GetEmployee returns one employee with its teams and managed teams.
	GetEmployee(ctx context.Context, id string) (Employee, error)
}

// RoleService serves roles and their mappings to teams. The built-in roles
// (admin, member, viewer) are listed with the account roles and cannot be
// changed.
type RoleService interface {
	ListRoles(ctx context.Context, q ListQuery) (Page[Role], error)
	GetRole(ctx context.Context, id string) (Role, error)
	CreateRole(ctx context.Context, in RoleInput) (Role, error)
	UpdateRole(ctx context.Context, id string, in RolePatch) (Role, error)
	// DeleteRole deletes an account role, its mappings and its grants, and
	// takes it from the users holding it.
	DeleteRole(ctx context.Context, id string) error
	ListRoleMappings(ctx context.Context) ([]Role, error)
	CreateRoleMapping(ctx context.Context, in RoleMappingInput) (Role, error)
	DeleteRoleMapping(ctx context.Context, id string) error
}

// PermissionService serves the action catalogue, grants and effective permissions.
type PermissionService interface {
	ListActions(ctx context.Context) ([]ActionDescriptor, error)
	// AllowedActions returns what the current user may do on one item;
	// targetType is goal, metric, session or insightBoard.
	AllowedActions(ctx context.Context, targetType, targetID string) (AllowedActions, error)
	// DefaultAccess is the access a new item of itemType (session or
	// dashboard) gets.
	DefaultAccess(ctx context.Context, itemType string) (Access, error)
	// ItemAccess is the access of one item (session, goal or dashboard).
	ItemAccess(ctx context.Context, itemType, itemID string) (Access, error)
	// SetItemAccess replaces the access of a session or a goal (designed).
	SetItemAccess(ctx context.Context, itemType, itemID string, in Access) (Access, error)
	EffectivePermissions(ctx context.Context) (EffectivePermissions, error)
	GetPrincipalPermissions(ctx context.Context, principalID string) (PrincipalPermissions, error)
	SetPrincipalPermissions(ctx context.Context, principalID string, in PrincipalPermissionsInput) error
	GetPermission(ctx context.Context, id string) (Permission, error)
	// ListPermissions lists the account's grants with the listing query
	// (designed: a refetch of many grants by id is one call).
	ListPermissions(ctx context.Context, q ListQuery) (Page[Permission], error)
	CreatePermission(ctx context.Context, in PermissionInput) (Permission, error)
}
