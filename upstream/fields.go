package upstream

import "github.com/okrgate/okrgate/upstream/query"

// The field registries: for every listable resource, each field's JSON name,
// data type, whether it may be filtered and sorted on, and where it is stored.
// They drive filter validation, sort, projection, the lists schema endpoint
// and the GraphQL filter inputs — one source of truth. Fields with a Column
// are kept in their own indexed column by the SQL store; the rest live in
// the JSON document.
var (
	GoalFields    = query.NewRegistry("goal", goalFields()...)
	MetricFields  = query.NewRegistry("metric", metricFields()...)
	CheckInFields = query.NewRegistry("checkin", checkInFields()...)
	TaskFields    = query.NewRegistry("task", taskFields()...)
	SessionFields = query.NewRegistry("session", sessionFields()...)
	UserFields    = query.NewRegistry("user", userFields()...)
	TeamFields    = query.NewRegistry("team", teamFields()...)
)

func init() {
	GoalFields.SetSub("metrics", MetricFields)
	GoalFields.SetSub("tasks", TaskFields)
	MetricFields.SetSub("tasks", TaskFields)
}

// Field constructors keep the tables below readable.
func fs(name string, t query.Type) query.Field { // filterable and sortable
	return query.Field{Name: name, Type: t, Filterable: true, Sortable: true}
}
func ff(name string, t query.Type) query.Field { // filterable only
	return query.Field{Name: name, Type: t, Filterable: true}
}
func obj(name string) query.Field { // projectable only
	return query.Field{Name: name, Type: query.Object}
}
func col(f query.Field, column string) query.Field { f.Column = column; return f }

func baseFields() []query.Field {
	return []query.Field{
		col(fs("id", query.ID), "id"),
		col(fs("accountId", query.ID), "account_id"),
	}
}

func goalFields() []query.Field {
	return append(baseFields(),
		fs("name", query.String),
		fs("description", query.String),
		ff("richTextDescription", query.String),
		obj("access"),
		fs("aggregatedAttainment", query.Number),
		fs("childrenAggregatedAttainment", query.Number),
		fs("fullAggregatedAttainment", query.Number),
		fs("attainment", query.Number),
		fs("attainmentTypeString", query.String),
		fs("childrenCount", query.Integer),
		fs("subTreeCount", query.Integer),
		fs("fullSubTreeCount", query.Integer),
		obj("closedStatus"),
		fs("closedStatus.status", query.String),
		fs("closedStatus.reason", query.String),
		fs("createdById", query.ID),
		fs("modifiedById", query.ID),
		fs("dateCreated", query.DateTime),
		fs("dateFrom", query.DateTime),
		fs("dateTo", query.DateTime),
		fs("duration", query.Integer),
		obj("designScore"),
		obj("assignee"),
		fs("assignee.name", query.String),
		obj("assignees"),
		col(fs("ownerId", query.ID), "owner_id"),
		ff("ownerIds", query.StringList),
		fs("numberOfOwners", query.Integer),
		fs("locked", query.Bool),
		fs("obfuscated", query.Bool),
		fs("private", query.Bool),
		fs("orderId", query.Integer),
		col(fs("parentId", query.String), "parent_id"),
		fs("parentType", query.String),
		fs("parentGoalSessionId", query.String),
		col(fs("sessionId", query.ID), "session_id"),
		obj("metrics"),
		fs("metricsCount", query.Integer),
		fs("nonArchivedTasksCount", query.Integer),
		obj("tasks"),
		fs("tasksCount", query.Integer),
		obj("tags"),
		ff("watchers", query.StringList),
		obj("links"),
		fs("url", query.String),
		fs("externalId", query.String),
		fs("externalSystem", query.String),
		obj("workflow"),
		obj("currentUserAllowedActions"),
	)
}

func metricFields() []query.Field {
	return append(baseFields(),
		fs("name", query.String),
		fs("description", query.String),
		ff("richTextDescription", query.String),
		fs("actual", query.Number),
		fs("initialValue", query.Number),
		fs("target", query.Number),
		fs("critical", query.Number),
		fs("targetOperator", query.String),
		fs("cascadeType", query.String),
		fs("manualType", query.String),
		fs("dynamic", query.Bool),
		fs("fieldName", query.String),
		fs("insightName", query.String),
		fs("dueDate", query.Date),
		fs("softDueDate", query.Date),
		obj("format"),
		col(fs("goalId", query.ID), "goal_id"),
		fs("goalName", query.String),
		fs("goalDescription", query.String),
		fs("goalOwnerId", query.ID),
		ff("goalOwnerIds", query.StringList),
		obj("goalClosedStatus"),
		fs("goalClosedStatus.status", query.String),
		col(fs("ownerId", query.ID), "owner_id"),
		ff("ownerIds", query.StringList),
		fs("numberOfOwners", query.Integer),
		obj("assignee"),
		obj("assignees"),
		col(fs("sessionId", query.ID), "session_id"),
		fs("sourceMetricId", query.String),
		obj("targetMetrics"),
		fs("tasksCount", query.Integer),
		fs("obfuscated", query.Bool),
		fs("private", query.Bool),
		obj("currentUserAllowedActions"),
		obj("settings"),
		obj("tasks"),
		obj("links"),
		fs("url", query.String),
		fs("externalId", query.String),
		fs("attainment", query.Number),
		fs("confidence", query.Number),
		fs("lastCheckInDate", query.DateTime),
	)
}

func checkInFields() []query.Field {
	return append(baseFields(),
		col(fs("metricId", query.ID), "metric_id"),
		col(fs("goalId", query.ID), "goal_id"),
		fs("actual", query.Number),
		fs("previousActual", query.Number),
		fs("attainment", query.Number),
		fs("checkInDate", query.DateTime),
		fs("comment", query.String),
		fs("confidence", query.Number),
		fs("createdById", query.ID),
		fs("dateCreated", query.DateTime),
	)
}

func taskFields() []query.Field {
	return append(baseFields(),
		fs("name", query.String),
		fs("description", query.String),
		ff("richTextDescription", query.String),
		fs("status", query.String),
		fs("taskType", query.String),
		fs("priority", query.Integer),
		fs("archived", query.Bool),
		fs("dueDate", query.Date),
		col(fs("ownerId", query.ID), "owner_id"),
		obj("assignee"),
		col(fs("parentId", query.String), "parent_id"),
		fs("parentName", query.String),
		fs("parentType", query.String),
		col(fs("sessionId", query.String), "session_id"),
		fs("externalId", query.String),
		fs("externalSystem", query.String),
		fs("createdById", query.ID),
		fs("modifiedById", query.ID),
		fs("dateCreated", query.DateTime),
		fs("dateModified", query.DateTime),
		obj("access"),
		obj("lastComment"),
		obj("snapshots"),
	)
}

func sessionFields() []query.Field {
	return append(baseFields(),
		fs("title", query.String),
		fs("status", query.String),
		fs("start", query.DateTime),
		fs("end", query.DateTime),
		fs("color", query.String),
		fs("demo", query.Bool),
		fs("dynamicValueType", query.String),
		col(fs("parentId", query.String), "parent_id"),
		fs("inherits", query.Bool),
		fs("isSelfApproveAllowed", query.Bool),
		obj("currentUserAllowedActions"),
		obj("ownerPermissions"),
		obj("permissions"),
		obj("tags"),
		obj("cadence"),
		obj("cadenceStart"),
		fs("cadenceTimeZone", query.String),
		fs("cadenceType", query.String),
		obj("settings"),
		obj("workflow"),
	)
}

func userFields() []query.Field {
	return append(baseFields(),
		fs("accountDomain", query.String),
		fs("accountName", query.String),
		fs("clientId", query.String),
		fs("createdById", query.ID),
		fs("dateCreated", query.DateTime),
		fs("dateInvited", query.DateTime),
		fs("invitedBy", query.String),
		col(fs("email", query.String), "email"),
		fs("firstName", query.String),
		fs("lastName", query.String),
		fs("name", query.String),
		fs("language", query.String),
		fs("picture", query.String),
		fs("isActive", query.Bool),
		fs("isPrimary", query.Bool),
		fs("isSSOBased", query.Bool),
		fs("isSwitched", query.Bool),
		obj("identities"),
		obj("notificationSettings"),
		ff("permissions", query.StringList),
		obj("pictureInfo"),
		obj("roles"),
		fs("settings", query.String),
		fs("subscriptionType", query.String),
		ff("teamIds", query.StringList),
		obj("userSettings"),
	)
}

func teamFields() []query.Field {
	return append(baseFields(),
		fs("name", query.String),
		fs("description", query.String),
		ff("richTextDescription", query.String),
		fs("avatar", query.String),
		fs("color", query.String),
		fs("picture", query.String),
		col(fs("parentId", query.String), "parent_id"),
		fs("manager", query.String),
		obj("managerInfo"),
		ff("members", query.StringList),
		obj("membersInfo"),
		ff("movedExternalMembers", query.StringList),
		obj("mentions"),
		obj("badges"),
		obj("tags"),
		obj("ExternalTeamMapping"),
		fs("dynamicValueType", query.String),
		fs("createdById", query.ID),
		fs("modifiedById", query.ID),
		fs("dateCreated", query.DateTime),
	)
}
