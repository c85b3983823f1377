package upstream

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
)
