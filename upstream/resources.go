package upstream

import (
	"reflect"
	"slices"

	"github.com/okrgate/okrgate/upstream/query"
)

// Resource describes one kind of item the service keeps per account: what
// the lists that must cover every resource are derived from, so that a
// resource added here is added to all of them (docs/howto/add-resource.md).
// Derived from Resources: the registries' Go types (RegistryTypes), the
// event types (EventTypes) and whose reading shows each (EventItemOf), the
// kinds with versions (VersionedKinds), the tables the SQL store searches
// for the users its items name (sqlstore's visibility classes), and the
// GraphQL types with filter inputs (graph/model.Resources). The lists that
// hold code per resource (store methods, resolvers, node fetchers, costs)
// are checked against it by tests that walk Resources.
type Resource struct {
	// Item is the Go type a listing of the resource returns, the type
	// whose JSON fields Fields describes (the tag listing's TagDetail).
	Item reflect.Type
	// Fields is the field registry of the resource's listing: filter,
	// sort, projection, the lists schema, the GraphQL filter inputs.
	Fields *query.Registry
	// GraphQL is the GraphQL object type of the resource, with a filter
	// input and an orderBy enum generated from Fields; "" when the schema
	// lists the items without a filter (a grant, a summary).
	GraphQL string
	// Forms are other GraphQL types of the resource described by Fields but
	// listed without filter inputs of their own (TagDetail).
	Forms []string
	// Tables are the SQL tables that hold the resource's rows.
	Tables []Table
	// Kind is the kind of the resource's versions (entity tags,
	// conditional writes: Precondition), "" when it has none.
	Kind string
	// Events are the event types of changes a reader of the item is shown
	// (EventItemOf gives them EventItem); Deleted is the type of its
	// deletion, shown to no one (who could read a deleted item is no
	// longer known). The events of a write are appended by the store.
	Events  []EventType
	Deleted EventType
	// EventItem is the kind of item whose reading, as the caller, decides
	// who sees the resource's events (EventVisible).
	EventItem EventItemKind
	// Actions are the actions of the catalogue that protect the resource.
	Actions []Action
	// Input and Patch are the types that create and change an item, nil
	// where GraphQL does neither: the GraphQL inputs Create<GraphQL>Input
	// and Update<GraphQL>Input are bound to them, and their scalar fields,
	// like the object type's from Item, are derived (graph/schemagen).
	Input, Patch reflect.Type
}

// Table is an SQL table of a resource. Users names where its rows name the
// users a decision compares with the caller's user id (owners, access
// entries, favourites): "doc" for the JSON document, another name for a
// column holding one user id, "" when its rows name no user. The SQL store
// searches the tables that name users when it tells callers that read alike
// apart (VisibilityClasser): a table that names users and is not searched
// would let callers of different rights share what live subscriptions see.
type Table struct {
	Name, Users string
}

// UsersInDoc is Table.Users of a table whose JSON document names users.
const UsersInDoc = "doc"

// Resources are the resources of the service, one entry each, in the order
// of the documentation's lists (events, GraphQL filter types).
var Resources = []Resource{
	{Item: reflect.TypeFor[Goal](), Fields: GoalFields, GraphQL: "Goal", Tables: []Table{{"goals", UsersInDoc}, {"goal_subtrees", ""}},
		Kind: KindGoal, Events: []EventType{EventGoalCreated, EventGoalUpdated, EventGoalRecomputed}, Deleted: EventGoalDeleted,
		EventItem: EventItemGoal, Actions: []Action{GoalsRead, GoalsCreate, GoalsUpdate, GoalsDelete}, Input: reflect.TypeFor[GoalInput](), Patch: reflect.TypeFor[GoalPatch]()},
	{Item: reflect.TypeFor[Metric](), Fields: MetricFields, GraphQL: "Metric", Tables: []Table{{"metrics", UsersInDoc}},
		Kind: KindMetric, Events: []EventType{EventMetricCreated, EventMetricUpdated}, Deleted: EventMetricDeleted,
		EventItem: EventItemMetric, Actions: []Action{MetricsRead, MetricsCreate, MetricsUpdate, MetricsDelete, MetricsCheckIn}, Input: reflect.TypeFor[MetricInput](), Patch: reflect.TypeFor[MetricPatch]()},
	{Item: reflect.TypeFor[CheckIn](), Fields: CheckInFields, GraphQL: "CheckIn", Tables: []Table{{"checkins", ""}},
		Events: []EventType{EventCheckInCreated}, EventItem: EventItemCheckIn, Actions: []Action{MetricsRead, MetricsCheckIn}},
	{Item: reflect.TypeFor[Task](), Fields: TaskFields, GraphQL: "Task", Tables: []Table{{"tasks", UsersInDoc}},
		Kind: KindTask, Events: []EventType{EventTaskCreated, EventTaskUpdated}, Deleted: EventTaskDeleted,
		EventItem: EventItemTask, Actions: []Action{TasksRead, TasksCreate, TasksUpdate, TasksDelete}, Input: reflect.TypeFor[TaskInput](), Patch: reflect.TypeFor[TaskPatch]()},
	{Item: reflect.TypeFor[Session](), Fields: SessionFields, GraphQL: "Session", Tables: []Table{{"sessions", UsersInDoc}},
		Kind: KindSession, Events: []EventType{EventSessionCreated, EventSessionUpdated}, Deleted: EventSessionDeleted,
		EventItem: EventItemSession, Actions: []Action{SessionsRead, SessionsManage}, Input: reflect.TypeFor[SessionInput](), Patch: reflect.TypeFor[SessionPatch]()},
	{Item: reflect.TypeFor[User](), Fields: UserFields, GraphQL: "User", Tables: []Table{{"users", ""}},
		Actions: []Action{UsersRead, UsersManage}, Input: reflect.TypeFor[UserInput](), Patch: reflect.TypeFor[UserPatch]()},
	{Item: reflect.TypeFor[Team](), Fields: TeamFields, GraphQL: "Team", Tables: []Table{{"teams", ""}},
		Actions: []Action{TeamsRead, TeamsManage}, Input: reflect.TypeFor[TeamInput](), Patch: reflect.TypeFor[TeamPatch]()},
	{Item: reflect.TypeFor[Employee](), Fields: EmployeeFields, GraphQL: "Employee", Actions: []Action{UsersRead}},
	{Item: reflect.TypeFor[Role](), Fields: RoleFields, GraphQL: "Role", Tables: []Table{{"roles", ""}, {"role_mappings", ""}},
		Actions: []Action{RolesRead, RolesManage}, Input: reflect.TypeFor[RoleInput](), Patch: reflect.TypeFor[RolePatch]()},
	{Item: reflect.TypeFor[Permission](), Fields: PermissionFields, Tables: []Table{{"permissions", ""}},
		Actions: []Action{PermsManage}},
	{Item: reflect.TypeFor[TagDetail](), Fields: TagFields, GraphQL: "Tag", Forms: []string{"TagDetail"}, Tables: []Table{{"tags", ""}},
		Actions: []Action{TagsRead, TagsManage}},
	{Item: reflect.TypeFor[Tagging](), Fields: TaggingFields, Tables: []Table{{"item_tags", ""}}, Actions: []Action{TagsRead}},
	{Item: reflect.TypeFor[Dashboard](), Fields: DashboardFields, GraphQL: "Dashboard", Tables: []Table{{"dashboards", UsersInDoc}},
		Actions: []Action{DashboardsRead, DashboardsEdit, DashboardsAdmin}, Input: reflect.TypeFor[DashboardInput](), Patch: reflect.TypeFor[DashboardPatch]()},
	{Item: reflect.TypeFor[DashboardParameter](), Fields: DashboardParameterFields, GraphQL: "DashboardParameter",
		Tables: []Table{{"dashboard_parameters", ""}}, Actions: []Action{DashboardsRead, DashboardsAdmin}},
	{Item: reflect.TypeFor[DashboardTagUsage](), Fields: DashboardTagUsageFields, Actions: []Action{DashboardsRead, TagsRead}},
	{Item: reflect.TypeFor[Badge](), Fields: BadgeFields, GraphQL: "Badge", Tables: []Table{{"badges", UsersInDoc}},
		Actions: []Action{BadgesRead, BadgesManage}, Input: reflect.TypeFor[BadgeInput](), Patch: reflect.TypeFor[BadgePatch]()},
	{Item: reflect.TypeFor[AssignedBadge](), Fields: AssignedBadgeFields, GraphQL: "AssignedBadge",
		Tables: []Table{{"badge_assignments", UsersInDoc}}, Actions: []Action{BadgesRead, BadgesAssign, BadgesApprove}},
	{Item: reflect.TypeFor[KPIGroup](), Fields: KPIGroupFields, GraphQL: "KpiGroup",
		Tables: []Table{{"kpi_groups", UsersInDoc}, {"kpi_favorites", "user_id"}}, Actions: []Action{KPIsRead, KPIsManage}},
	{Item: reflect.TypeFor[KPI](), Fields: KPIFields, GraphQL: "Kpi", Tables: []Table{{"kpis", UsersInDoc}},
		Actions: []Action{KPIsRead, KPIsManage}, Input: reflect.TypeFor[KPIInput](), Patch: reflect.TypeFor[KPIPatch]()},
	{Item: reflect.TypeFor[List](), Fields: ListFields, GraphQL: "List", Tables: []Table{{"lists", UsersInDoc}},
		Actions: []Action{ListsRead, ListsManage}, Input: reflect.TypeFor[ListInput](), Patch: reflect.TypeFor[ListPatch]()},
	{Item: reflect.TypeFor[Announcement](), Fields: AnnouncementFields, GraphQL: "Announcement",
		Tables: []Table{{"announcements", UsersInDoc}}, Actions: []Action{AnnounceRead, AnnounceManage}, Input: reflect.TypeFor[AnnouncementInput]()},
	{Item: reflect.TypeFor[Comment](), Fields: CommentFields, GraphQL: "Comment", Tables: []Table{{"comments", ""}},
		Actions: []Action{MetricsRead, CommentsCreate}, Input: reflect.TypeFor[CommentInput]()},
}

// ResourceOfKind returns the resource whose versions are of kind (Kind),
// if any.
func ResourceOfKind(kind string) (Resource, bool) {
	if kind == "" {
		return Resource{}, false
	}
	i := slices.IndexFunc(Resources, func(r Resource) bool { return r.Kind == kind })
	if i < 0 {
		return Resource{}, false
	}
	return Resources[i], true
}

// FieldsOf returns the field registry of the resource whose Item is item,
// nil when no resource's is: how a listing's registry is found from the
// type it lists (the HTTP client's generated listings).
func FieldsOf(item reflect.Type) *query.Registry {
	for _, r := range Resources {
		if r.Item == item {
			return r.Fields
		}
	}
	return nil
}

// VersionedKinds returns the kinds of the resources that carry versions,
// in the order of Resources.
func VersionedKinds() []string {
	var out []string
	for _, r := range Resources {
		if r.Kind != "" {
			out = append(out, r.Kind)
		}
	}
	return out
}

// UserNamingTables returns the tables of the resources whose rows name
// users (Table.Users not empty), in the order of Resources.
func UserNamingTables() []Table {
	var out []Table
	for _, r := range Resources {
		for _, t := range r.Tables {
			if t.Users != "" {
				out = append(out, t)
			}
		}
	}
	return out
}

// eventItems maps every event type of Resources that a reader is shown to
// the kind of item whose reading decides it (EventItemOf).
var eventItems = func() map[EventType]EventItemKind {
	out := map[EventType]EventItemKind{}
	for _, r := range Resources {
		for _, e := range r.Events {
			out[e] = r.EventItem
		}
	}
	return out
}()
