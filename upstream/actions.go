package upstream

import "slices"

// Action names one protected operation kind: "<resource>:<verb>". Roles
// bundle actions; grants and per-item access allow or deny them. The
// catalogue (Actions) is what GET /api/v1/permissions/actions lists.
type Action string

// The action catalogue.
const (
	GoalsRead       Action = "goals:read"
	GoalsCreate     Action = "goals:create"
	GoalsUpdate     Action = "goals:update"
	GoalsDelete     Action = "goals:delete"
	MetricsRead     Action = "metrics:read"
	MetricsCreate   Action = "metrics:create"
	MetricsUpdate   Action = "metrics:update"
	MetricsDelete   Action = "metrics:delete"
	MetricsCheckIn  Action = "metrics:checkin"
	TasksRead       Action = "tasks:read"
	TasksCreate     Action = "tasks:create"
	TasksUpdate     Action = "tasks:update"
	TasksDelete     Action = "tasks:delete"
	SessionsRead    Action = "sessions:read"
	SessionsManage  Action = "sessions:manage"
	UsersRead       Action = "users:read"
	UsersManage     Action = "users:manage"
	TeamsRead       Action = "teams:read"
	TeamsManage     Action = "teams:manage"
	RolesRead       Action = "roles:read"
	RolesManage     Action = "roles:manage"
	PermsManage     Action = "permissions:manage"
	AccountRead     Action = "account:read"
	AccountManage   Action = "account:manage"
	TagsRead        Action = "tags:read"
	TagsManage      Action = "tags:manage"
	BadgesRead      Action = "badges:read"
	BadgesManage    Action = "badges:manage"
	BadgesAssign    Action = "badges:assign"
	BadgesApprove   Action = "badges:approve"
	DashboardsRead  Action = "dashboards:read"
	DashboardsEdit  Action = "dashboards:edit"
	DashboardsAdmin Action = "dashboards:manage"
	KPIsRead        Action = "kpis:read"
	KPIsManage      Action = "kpis:manage"
	ListsRead       Action = "lists:read"
	ListsManage     Action = "lists:manage"
	AnnounceRead    Action = "announcements:read"
	AnnounceManage  Action = "announcements:manage"
	CommentsCreate  Action = "comments:create"
)

// actionInfo gives each action of the catalogue its title and description.
var actionInfo = []struct {
	a            Action
	title, descr string
}{
	{GoalsRead, "Read objectives", "See objectives that are not private, or private ones you own or whose session you manage"},
	{GoalsCreate, "Create objectives", "Create objectives in open sessions"},
	{GoalsUpdate, "Edit objectives", "Change objectives, tag them and close them"},
	{GoalsDelete, "Delete objectives", "Delete objectives with their key results and tasks"},
	{MetricsRead, "Read key results", "See key results and their check-ins"},
	{MetricsCreate, "Create key results", "Add key results to objectives in open sessions"},
	{MetricsUpdate, "Edit key results", "Change key results"},
	{MetricsDelete, "Delete key results", "Delete key results with their check-ins and tasks"},
	{MetricsCheckIn, "Check in", "Record a key result's new actual value"},
	{TasksRead, "Read tasks", "See tasks"},
	{TasksCreate, "Create tasks", "Create tasks"},
	{TasksUpdate, "Edit tasks", "Change tasks"},
	{TasksDelete, "Delete tasks", "Delete tasks"},
	{SessionsRead, "Read sessions", "See planning sessions"},
	{SessionsManage, "Manage sessions", "Create, change and delete sessions; managers of a session see its private objectives"},
	{UsersRead, "Read users", "See the users and employees of the account"},
	{UsersManage, "Manage users", "Invite, change and deactivate users and issue their API tokens"},
	{TeamsRead, "Read teams", "See teams"},
	{TeamsManage, "Manage teams", "Create, change and delete teams and their members"},
	{RolesRead, "Read roles", "See roles and role mappings"},
	{RolesManage, "Manage roles", "Create, change and delete account roles and map them to teams"},
	{PermsManage, "Manage permissions", "Grant actions to users and roles; read anyone's permissions"},
	{AccountRead, "Read the account", "See the account and its settings"},
	{AccountManage, "Manage the account", "Change the account's name, domain, language and settings"},
	{TagsRead, "Read tags", "See tags"},
	{TagsManage, "Manage tags", "Create, activate and deactivate tags"},
	{BadgesRead, "Read badges", "See badges and who holds them"},
	{BadgesManage, "Manage badges", "Create and change badges"},
	{BadgesAssign, "Assign badges", "Assign badges to users and teams"},
	{BadgesApprove, "Approve badges", "Approve or reject badge assignments"},
	{DashboardsRead, "Read insight boards", "See insight boards and their parameters"},
	{DashboardsEdit, "Edit insight boards", "Change insight boards"},
	{DashboardsAdmin, "Manage insight boards", "Create, delete and share insight boards and their parameters"},
	{KPIsRead, "Read KPIs", "See KPI groups"},
	{KPIsManage, "Manage KPIs", "Create, change and delete KPI groups"},
	{ListsRead, "Read lists", "See saved lists and load them"},
	{ListsManage, "Manage lists", "Create, change, clone and delete saved lists"},
	{AnnounceRead, "Read announcements", "See announcements"},
	{AnnounceManage, "Manage announcements", "Post, change and delete announcements"},
	{CommentsCreate, "Comment", "Comment on key results one may read; delete one's own comments"},
}

// Actions returns the action catalogue, in a stable order.
func Actions() []ActionDescriptor {
	out := make([]ActionDescriptor, len(actionInfo))
	for i, a := range actionInfo {
		out[i] = ActionDescriptor{Name: string(a.a), Title: a.title, Description: a.descr}
	}
	return out
}

// KnownAction reports whether name is an action of the catalogue.
func KnownAction(name string) bool {
	for _, a := range actionInfo {
		if string(a.a) == name {
			return true
		}
	}
	return false
}

// Built-in role names.
const (
	RoleAdmin  = "admin"
	RoleMember = "member"
	RoleViewer = "viewer"
)

// BuiltinRole is one of the roles every account has. Actions are allowed
// everywhere; OwnActions only on items the holder owns (is in ownerIds,
// directly or through a team).
type BuiltinRole struct {
	ID, Name, Description string
	Actions, OwnActions   []Action
}

// readActions are the read actions of the catalogue.
func readActions() []Action {
	return []Action{GoalsRead, MetricsRead, TasksRead, SessionsRead, UsersRead, TeamsRead, RolesRead,
		AccountRead, TagsRead, BadgesRead, DashboardsRead, KPIsRead, ListsRead, AnnounceRead}
}

// BuiltinRoles returns admin, member and viewer. Their ids are fixed and
// the same in every account.
func BuiltinRoles() []BuiltinRole {
	out := make([]BuiltinRole, len(builtinRoles))
	for i := range builtinRoles {
		out[i] = builtinRoles[i].clone()
	}
	return out
}

// builtinRoles is the table BuiltinRoles copies: built once, never
// changed, read by NewSubject and ResolveRoleIDs for every caller without
// building the roles' action lists anew.
var builtinRoles = newBuiltinRoles()

func newBuiltinRoles() []BuiltinRole {
	all := make([]Action, len(actionInfo))
	for i, a := range actionInfo {
		all[i] = a.a
	}
	return []BuiltinRole{
		{ID: "000000000000000000000001", Name: RoleAdmin, Description: "Everything, everywhere in the account", Actions: all},
		{ID: "000000000000000000000002", Name: RoleMember,
			Description: "Reads what is not private; creates objectives, key results and tasks; edits and checks in what it owns",
			Actions:     append(readActions(), GoalsCreate, MetricsCreate, TasksCreate, BadgesAssign, CommentsCreate),
			OwnActions: []Action{GoalsUpdate, GoalsDelete, MetricsUpdate, MetricsDelete, MetricsCheckIn,
				TasksUpdate, TasksDelete, DashboardsEdit}},
		{ID: "000000000000000000000003", Name: RoleViewer, Description: "Reads what is not private", Actions: readActions()},
	}
}

// clone returns r with its own action lists.
func (r BuiltinRole) clone() BuiltinRole {
	r.Actions, r.OwnActions = slices.Clone(r.Actions), slices.Clone(r.OwnActions)
	return r
}

// builtinRole returns the shared table's role with id (read only), or nil.
func builtinRole(id string) *BuiltinRole {
	for i := range builtinRoles {
		if builtinRoles[i].ID == id {
			return &builtinRoles[i]
		}
	}
	return nil
}

// builtinRoleNamed returns the shared table's role named name (read only),
// or nil.
func builtinRoleNamed(name string) *BuiltinRole {
	for i := range builtinRoles {
		if builtinRoles[i].Name == name {
			return &builtinRoles[i]
		}
	}
	return nil
}

// BuiltinRoleByID returns the built-in role with id, if any.
func BuiltinRoleByID(id string) (BuiltinRole, bool) {
	if r := builtinRole(id); r != nil {
		return r.clone(), true
	}
	return BuiltinRole{}, false
}

// BuiltinRoleByName returns the built-in role named name, if any.
func BuiltinRoleByName(name string) (BuiltinRole, bool) {
	if r := builtinRoleNamed(name); r != nil {
		return r.clone(), true
	}
	return BuiltinRole{}, false
}
