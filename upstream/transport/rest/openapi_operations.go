package rest

import (
	"net/http"

	"github.com/okrgate/okrgate/upstream"
)

// opSpec gives the Go types of an operation's request body and success
// response, for the OpenAPI document. Nil means none.
type opSpec struct {
	body any
	resp any
	// optionalBody: the body may be left out (list load, GET listings that
	// take their query from a body).
	optionalBody bool
	// also are further success statuses (besides Route.Success).
	also []int
	// summary overrides the one generated from the handler's name.
	summary string
	// desc is what only this operation does, appended to the generated
	// description (openapi_text.go).
	desc string
	// upload: the body is a multipart/form-data form holding a file in its
	// part "file" (avatars.go), not JSON.
	upload bool
}

// v1ListingDesc describes the v1 listings the real platform's clients call.
const v1ListingDesc = "The v1 listing the real platform's clients call: the v2 listing's page and parameters, plus property parameters " +
	"(each field = value, or any of a comma list of values) added to the filter with AND."

// v2ListingDesc, v1UsersDesc and v1TasksDesc describe the operations the
// real platform's integrations call beyond the contract (integrations.go).
const (
	v2ListingDesc = "The real platform's v2 listing, beside its /api/v2/integrations counterpart: the same page and parameters."
	v1UsersDesc   = "The real platform's v1 users operation: the same user documents and rules as its /api/v2/users counterpart."
	v1TasksDesc   = "The real platform's v1 tasks operation: the same task documents and rules as its /api/v2/integrations/tasks counterpart."
)

type (
	itemsOf[T any] struct {
		Items []T `json:"items"`
	}
)

// opSpecs maps "METHOD pattern" to the operation's types. A route missing
// here is still documented, with untyped bodies (x-untyped: true); the
// OpenAPI tests list such routes.
func opSpecs() map[string]opSpec {
	u := func(v any) any { return v }
	return map[string]opSpec{
		// Goals.
		"GET /api/v2/integrations/goals": {resp: upstream.Page[upstream.Goal]{}},
		"GET /api/v2/integrations/goals/groupBy/owners": {resp: upstream.GoalsGroupedBy{},
			desc: "Groups the objectives by owner: one entry per owner with the objectives they own. Its filter parameter is a deadline filter (current, past or future), not the filter language of the other listings."},
		"POST /api/v2/integrations/goals/{id}/tags": {body: upstream.TagInput{}, resp: upstream.Tag{}, also: []int{http.StatusOK, http.StatusNotModified}},
		"POST /api/v1/goals":                        {body: upstream.GoalInput{}, resp: upstream.Goal{}},
		"GET /api/v1/goals/{id}":                    {resp: upstream.Goal{}, desc: "The objective always carries metrics, its key results ([] when it has none)."},
		"PATCH /api/v1/goals/{id}":                  {body: upstream.GoalPatch{}, resp: upstream.Goal{}},
		"DELETE /api/v1/goals/{id}":                 {},
		// Metrics.
		"GET /api/v2/metrics":                     {resp: upstream.Page[upstream.Metric]{}},
		"GET /api/v1/metrics/checkin/{checkinId}": {resp: upstream.Metric{}},
		"GET /api/v1/metrics/owner/{ownerId}":     {resp: itemsOf[upstream.Metric]{}},
		"POST /api/v1/metrics":                    {body: upstream.MetricInput{}, resp: upstream.Metric{}},
		"GET /api/v1/metrics/{id}": {resp: upstream.Metric{},
			desc: "With expand=tasks (or fields naming tasks) the key result carries its tasks; such an answer has no ETag, as the key result's version does not follow its tasks."},
		"PATCH /api/v1/metrics/{id}":  {body: upstream.MetricPatch{}, resp: upstream.Metric{}},
		"DELETE /api/v1/metrics/{id}": {},
		"POST /api/v1/metrics/{id}/checkin": {body: upstream.CheckInInput{}, resp: upstream.CheckIn{},
			desc: "Records a check-in: sets the key result's actual value, keeps the snapshot (GET /api/v1/metrics/checkin/{checkinId}) and recomputes the attainment of the key result, its objective and every ancestor objective in one transaction. A closed session is a 403 session_closed, an abandoned objective a 403 goal_abandoned."},
		"GET /api/v1/metrics/{id}/checkins": {resp: upstream.Page[upstream.CheckIn]{}},
		// Tasks.
		"GET /api/v2/integrations/tasks":             {resp: upstream.Page[upstream.Task]{}},
		"GET /api/v2/integrations/tasks/{taskId}":    {resp: upstream.Task{}},
		"POST /api/v2/integrations/tasks":            {body: upstream.TaskInput{}, resp: upstream.Task{}},
		"PATCH /api/v2/integrations/tasks/{taskId}":  {body: upstream.TaskPatch{}, resp: upstream.Task{}},
		"DELETE /api/v2/integrations/tasks/{taskId}": {},
		// The v1 listings (legacy.go).
		"GET /api/v1/goals":   {resp: upstream.Page[upstream.Goal]{}, summary: "List objectives (v1: by sessionId, ownerId, parentId, or a filter)", desc: v1ListingDesc},
		"GET /api/v1/metrics": {resp: upstream.Page[upstream.Metric]{}, summary: "List key results (v1: by goalId, sessionId, ownerId, or a filter)", desc: v1ListingDesc},
		"GET /api/v1/tasks":   {resp: upstream.Page[upstream.Task]{}, summary: "List tasks (v1: by parentId, ownerId, status, or a filter)", desc: v1ListingDesc},
		"GET /api/v1/sessions": {resp: upstream.Page[upstream.Session]{}, summary: "List sessions (v1: current, past or future, by status)",
			desc: v1ListingDesc + " Its filter is a named period — current (start ≤ now ≤ end), past (ended) or future (not begun) — or a filter in the filter language; status is open, locked or closed, or a comma list of them."},
		// The operations integrations call beyond the contract (integrations.go).
		"GET /api/v2/goals":            {resp: upstream.Page[upstream.Goal]{}, summary: "List objectives (v2)", desc: v2ListingDesc},
		"GET /api/v2/tasks":            {resp: upstream.Page[upstream.Task]{}, summary: "List tasks (v2)", desc: v2ListingDesc},
		"GET /api/v1/users":            {resp: upstream.Page[upstream.User]{}, summary: "List users (v1)", desc: v1UsersDesc},
		"GET /api/v1/users/{id}":       {resp: upstream.User{}, summary: "Get a user (v1)", desc: v1UsersDesc},
		"POST /api/v1/users":           {body: upstream.UserInput{}, resp: upstream.User{}, summary: "Create a user (v1)", desc: v1UsersDesc},
		"PATCH /api/v1/users/{id}":     {body: upstream.UserPatch{}, resp: upstream.User{}, summary: "Update a user (v1)", desc: v1UsersDesc},
		"POST /api/v1/tasks":           {body: upstream.TaskInput{}, resp: upstream.Task{}, summary: "Create a task (v1)", desc: v1TasksDesc},
		"GET /api/v1/tasks/{taskId}":   {resp: upstream.Task{}, summary: "Get a task (v1)", desc: v1TasksDesc},
		"PATCH /api/v1/tasks/{taskId}": {body: upstream.TaskPatch{}, resp: upstream.Task{}, summary: "Update a task (v1)", desc: v1TasksDesc},
		"PUT /api/v1/tasks/{taskId}": {body: upstream.TaskPatch{}, resp: upstream.Task{}, summary: "Update a task (v1, the platform's PUT)",
			desc: "The real platform's task update, as its task integrations send it: the task document as read, changed. " +
				"The fields PATCH takes are updated and a field left out keeps its value; the document's read-only fields " +
				"(id, accountId, dateCreated, dateModified, modifiedAt, assignee, …) and customFields are ignored and named in " + IgnoredFieldsHeader + "; any other name is a 400."},
		"DELETE /api/v1/tasks/{taskId}": {summary: "Delete a task (v1)", desc: v1TasksDesc},
		"GET /api/v1/metrics/{id}/values": {resp: upstream.Page[upstream.MetricValue]{}, summary: "Read a key result's value history",
			desc: "One point per check-in observed within from and to (each optional), oldest first: the value it set, the attainment it gave and its date. An unknown key result is a 404, not an empty history."},
		// Sessions.
		"GET /api/v2/sessions":                     {resp: upstream.Page[upstream.Session]{}},
		"GET /api/v1/sessions/{id}/stats/goalsMet": {resp: itemsOf[upstream.Goal]{}},
		"POST /api/v1/sessions":                    {body: upstream.SessionInput{}, resp: upstream.Session{}},
		"GET /api/v1/sessions/{id}":                {resp: upstream.Session{}},
		"PATCH /api/v1/sessions/{id}":              {body: upstream.SessionPatch{}, resp: upstream.Session{}},
		"DELETE /api/v1/sessions/{id}":             {},
		// The organisation (rest/org.go).
		"GET /api/v1/accounts/{id}":                {resp: upstream.Account{}},
		"PUT /api/v1/accounts/{id}":                {body: upstream.AccountPatch{}, resp: upstream.Account{}},
		"POST /api/v1/accounts/domain":             {body: upstream.DomainCheck{}, resp: upstream.DomainAvailability{}},
		"PUT /api/v1/accounts/{id}/confidence":     {body: upstream.ConfidenceSettings{}},
		"PUT /api/v1/accounts/{id}/notifications":  {body: upstream.NotificationSettings{}, resp: upstream.NotificationSettings{}},
		"GET /api/v1/accounts/users":               {resp: upstream.Page[upstream.User]{}},
		"GET /api/v2/users":                        {resp: upstream.Page[upstream.User]{}},
		"GET /api/v2/users/{id}":                   {resp: upstream.User{}},
		"POST /api/v2/users":                       {body: upstream.UserInput{}, resp: upstream.User{}},
		"PATCH /api/v2/users/{id}":                 {body: upstream.UserPatch{}, resp: upstream.User{}},
		"POST /api/v2/users/{id}/tokens":           {body: upstream.TokenInput{}, optionalBody: true, resp: upstream.NewToken{}},
		"GET /api/v2/users/me/tokens":              {resp: itemsOf[upstream.Token]{}},
		"POST /api/v2/users/me/tokens":             {body: upstream.TokenInput{}, optionalBody: true, resp: upstream.NewToken{}},
		"DELETE /api/v2/users/me/tokens/{tokenId}": {},
		// The event feed (events.go).
		"GET /api/v2/events": {resp: upstream.EventFeed{}, summary: "Read the event feed",
			desc: "The events of the caller's account after the position after, oldest first, and the head of the log. " +
				"An event whose item the caller may not read (or that was deleted) is only its position, marked hidden. " +
				"Poll with after set to the last position seen; positions increase with every event."},
		// Webhooks (webhooks.go).
		"GET /api/v1/webhooks": {resp: itemsOf[upstream.Webhook]{}, desc: webhookDesc},
		"POST /api/v1/webhooks": {body: upstream.WebhookInput{}, resp: upstream.NewWebhook{},
			desc: webhookDesc + " The answer is the only place the secret is shown (generated when the body gives none)."},
		"GET /api/v1/webhooks/{id}": {resp: upstream.Webhook{}, desc: webhookDesc},
		"PATCH /api/v1/webhooks/{id}": {body: upstream.WebhookPatch{}, resp: UpdatedWebhook{},
			desc: webhookDesc + " The answer carries the secret only when the patch replaced it (\"secret\": \"\" generates a new one)."},
		"DELETE /api/v1/webhooks/{id}": {desc: webhookDesc + " Its pending deliveries are dropped."},
		"GET /api/v1/webhooks/{id}/deliveries": {resp: itemsOf[upstream.WebhookDelivery]{},
			desc: webhookDesc + " Deliveries are listed newest event first, each with its attempts; before (an event position) pages back, limit (1 to 100) bounds a page."},
		"GET /api/v2/employees":                          {resp: upstream.Page[upstream.Employee]{}},
		"GET /api/v1/employees/{employeeId}":             {resp: upstream.EmployeeInfo{}},
		"GET /api/v2/teams":                              {resp: upstream.Page[upstream.Team]{}},
		"GET /api/v1/teams/{teamId}":                     {resp: upstream.Team{}},
		"POST /api/v1/teams":                             {body: upstream.TeamInput{}, resp: upstream.Team{}},
		"PATCH /api/v1/teams/{teamId}":                   {body: upstream.TeamPatch{}, resp: upstream.Team{}},
		"DELETE /api/v1/teams/{teamId}":                  {},
		"PUT /api/v1/teams/{teamId}/members/{userId}":    {resp: upstream.Team{}},
		"DELETE /api/v1/teams/{teamId}/members/{userId}": {},
		"GET /api/v2/roles":                              {resp: upstream.Page[upstream.Role]{}},
		"GET /api/v1/roles/account/mapping/": {resp: upstream.Page[upstream.Role]{},
			desc: "Each item is a role with the team it is mapped to (teamId) and the mapping's own id (mappingId), which DELETE /api/v1/roles/account/mapping/{id} takes."},
		"GET /api/v1/roles/{id}":     {resp: upstream.Role{}},
		"POST /api/v1/roles/account": {body: upstream.RoleInput{}, resp: upstream.Role{}},
		"POST /api/v1/roles/account/mapping": {body: upstream.RoleMappingInput{}, resp: upstream.Role{},
			desc: "Answers the role with teamId and mappingId: keep mappingId, it is the id DELETE /api/v1/roles/account/mapping/{id} takes."},
		"PUT /api/v1/roles/account/{id}":                                {body: upstream.RolePatch{}, resp: upstream.Role{}},
		"DELETE /api/v1/roles/account/mapping/{id}":                     {desc: "The id is the mapping's mappingId (returned by POST /api/v1/roles/account/mapping and GET /api/v1/roles/account/mapping/), not the role's id."},
		"DELETE /api/v1/roles/account/{id}":                             {},
		"GET /api/v1/permissions/actions":                               {resp: itemsOf[upstream.ActionDescriptor]{}},
		"GET /api/v1/permissions/currentUser-allowedActions/{targetId}": {resp: upstream.AllowedActions{}},
		"GET /api/v1/permissions/default-access/{itemType}": {resp: upstream.Access{},
			desc: "The access a new item of the type gets. itemType is session or dashboard; any other value is a 404 not_found."},
		"GET /api/v1/permissions/default-access/{itemType}/{itemId}": {resp: upstream.Access{}},
		"PUT /api/v1/permissions/default-access/{itemType}/{itemId}": {body: upstream.Access{}, resp: upstream.Access{}},
		"GET /api/v1/permissions/effective":                          {resp: upstream.EffectivePermissions{}},
		"GET /api/v1/permissions/principal/{id}":                     {resp: upstream.PrincipalPermissions{}},
		"PUT /api/v1/permissions/principal/{id}":                     {body: upstream.PrincipalPermissionsInput{}},
		"GET /api/v1/permissions/{id}":                               {resp: upstream.Permission{}},
		"POST /api/v1/permissions":                                   {body: upstream.PermissionInput{}, resp: upstream.Permission{}},

		// Announcements.
		"GET /api/v1/announcements":             {resp: upstream.Page[upstream.Announcement]{}},
		"GET /api/v1/announcements/{id}":        {resp: upstream.Announcement{}},
		"POST /api/v1/announcements":            {body: upstream.AnnouncementInput{}, resp: upstream.Announcement{}},
		"POST /api/v1/announcements/{id}/react": {body: upstream.ReactionInput{}, resp: upstream.Announcement{}},
		"PATCH /api/v1/announcements/{id}":      {body: upstream.AnnouncementPatch{}, resp: upstream.Announcement{}},
		"DELETE /api/v1/announcements/{id}":     {},
		// KPI groups and KPIs.
		"GET /api/v1/kpis/groups":                       {body: ListBody{}, optionalBody: true, resp: upstream.CountedPage[upstream.KPIGroup]{}},
		"GET /api/v1/kpis/groups/{groupId}":             {resp: upstream.KPIGroup{}},
		"POST /api/v1/kpis/groups":                      {body: upstream.KPIGroupInput{}, resp: upstream.KPIGroup{}},
		"PATCH /api/v1/kpis/groups/{groupId}":           {body: upstream.KPIGroupInput{}, resp: upstream.KPIGroup{}},
		"DELETE /api/v1/kpis/groups/{groupId}":          {},
		"PUT /api/v1/kpis/groups/{groupId}/favorite":    {},
		"DELETE /api/v1/kpis/groups/{groupId}/favorite": {},
		"PUT /api/v1/kpis/{kpiId}/groups/{groupId}":     {},
		"DELETE /api/v1/kpis/{kpiId}/groups/{groupId}":  {},
		"GET /api/v1/kpis":                              {resp: upstream.Page[upstream.KPI]{}},
		"POST /api/v1/kpis":                             {body: upstream.KPIInput{}, resp: upstream.KPI{}},
		"GET /api/v1/kpis/{kpiId}":                      {resp: upstream.KPI{}},
		"PATCH /api/v1/kpis/{kpiId}":                    {body: upstream.KPIPatch{}, resp: upstream.KPI{}},
		"DELETE /api/v1/kpis/{kpiId}":                   {},
		// Lists.
		"GET /api/v1/lists":                     {resp: upstream.Page[upstream.List]{}},
		"GET /api/v1/lists/supported-types":     {resp: upstream.SupportedTypes{}},
		"GET /api/v1/lists/{listId}":            {resp: upstream.List{}},
		"GET /api/v1/lists/{targetType}/schema": {resp: upstream.ListSchema{}},
		"POST /api/v1/lists":                    {body: upstream.ListInput{}, resp: upstream.List{}},
		"POST /api/v1/lists/{id}/clone":         {resp: upstream.List{}},
		"POST /api/v1/lists/{id}/load":          {body: upstream.ListLoadInput{}, optionalBody: true, resp: upstream.ListData{}},
		"PATCH /api/v1/lists/{id}":              {body: upstream.ListPatch{}, resp: upstream.List{}},
		"DELETE /api/v1/lists/{id}":             {},
		// Tags.
		"GET /api/v2/integrations/tags":              {resp: upstream.TagsPage[upstream.TagDetail]{}},
		"POST /api/v1/dashboards/{dashboardId}/tags": {body: upstream.TagInput{}, resp: upstream.Tag{}},
		"POST /api/v2/integrations/insights/{id}/tags": {body: upstream.TagInput{}, resp: upstream.Tag{}, also: []int{http.StatusOK},
			desc: "Adds a tag to an insight, creating the tag on first use: 201 when added, 200 when the insight already carried it."},
		"POST /api/v1/tags":            {body: upstream.TagCreateInput{}, resp: upstream.TagsPage[upstream.Tag]{}},
		"POST /api/v1/tags/activate":   {body: upstream.TagIDsInput{}, resp: upstream.ModifiedCount{}, also: []int{http.StatusNotModified}},
		"POST /api/v1/tags/deactivate": {body: upstream.TagIDsInput{}, resp: upstream.ModifiedCount{}, also: []int{http.StatusNotModified}},
		// Dashboard parameters.
		"GET /api/v1/dashboards/parameters":                  {resp: upstream.Page[upstream.DashboardParameter]{}},
		"GET /api/v1/dashboards/parameters/{parameterId}":    {resp: upstream.DashboardParameter{}},
		"POST /api/v1/dashboards/parameters":                 {body: upstream.DashboardParameterInput{}, resp: upstream.DashboardParameter{}},
		"PUT /api/v1/dashboards/parameters/{parameterId}":    {body: upstream.DashboardParameterInput{}, resp: upstream.DashboardParameter{}},
		"DELETE /api/v1/dashboards/parameters/{parameterId}": {},
		// Dashboards.
		"GET /api/v2/dashboards":                  {body: ListBody{}, optionalBody: true, resp: upstream.CountedPage[upstream.Dashboard]{}},
		"GET /api/v1/dashboards/reports":          {resp: u([]upstream.ReportSummary{})},
		"GET /api/v1/dashboards/tag/{tag}":        {resp: u([]upstream.Dashboard{})},
		"GET /api/v1/dashboards/tags/usages":      {resp: itemsOf[upstream.DashboardTagUsage]{}},
		"GET /api/v1/dashboards/{dashboardId}":    {resp: upstream.Dashboard{}},
		"POST /api/v1/dashboards":                 {body: upstream.DashboardInput{}, resp: upstream.Dashboard{}},
		"PATCH /api/v1/dashboards/{dashboardId}":  {body: upstream.DashboardPatch{}, resp: upstream.Dashboard{}},
		"DELETE /api/v1/dashboards/{dashboardId}": {},
		// Badges.
		"GET /api/v1/badges":                 {resp: upstream.Page[upstream.Badge]{}},
		"GET /api/v1/badges/approve":         {resp: upstream.Page[upstream.AssignedBadge]{}},
		"GET /api/v1/badges/assign":          {resp: upstream.Page[upstream.AssignedBadge]{}},
		"GET /api/v1/badges/assign/{id}":     {resp: upstream.BadgeAssignees{}},
		"GET /api/v1/badges/current":         {resp: upstream.Page[upstream.AssignedBadge]{}},
		"GET /api/v1/badges/{id}":            {resp: upstream.Badge{}},
		"POST /api/v1/badges":                {body: upstream.BadgeInput{}, resp: upstream.Badge{}},
		"POST /api/v1/badges/approve/{id}":   {resp: upstream.AssignedBadge{}, also: []int{http.StatusNotModified}},
		"POST /api/v1/badges/assign":         {body: upstream.AssignBadgeInput{}, resp: upstream.AssignedBadge{}},
		"PATCH /api/v1/badges/{id}":          {body: upstream.BadgePatch{}, resp: upstream.Badge{}, also: []int{http.StatusOK}},
		"DELETE /api/v1/badges/approve/{id}": {resp: upstream.AssignedBadge{}, also: []int{http.StatusOK, http.StatusNotModified}},
		"DELETE /api/v1/badges/{id}":         {},
		// The gateway's listings (rest/gateway.go).
		"GET /api/v2/users/me": {resp: upstream.Whoami{}, summary: "The caller: user, account, roles, token id and scopes"},
		"GET /api/v2/checkins": {resp: upstream.Page[upstream.CheckIn]{}, summary: "List check-ins of any key results (filter metricId with $in)"},
		"GET /api/v2/checkins/snapshots": {resp: upstream.Page[upstream.CheckInSnapshot]{},
			summary: "List check-ins, each with the key result as it was right after it"},
		"GET /api/v2/integrations/taggings": {resp: upstream.Page[upstream.Tagging]{}, summary: "List tag assignments (filter tagId, itemId, itemType)"},
		"GET /api/v2/badges/assignments":    {resp: upstream.Page[upstream.AssignedBadge]{}, summary: "List badge assignments in any status (filter badgeId, status, assigneeIds)"},
		"GET /api/v2/dashboards/parameters": {resp: upstream.Page[upstream.DashboardParameter]{}, summary: "List dashboard parameters with filter and sort"},
		"GET /api/v2/announcements":         {resp: upstream.Page[upstream.Announcement]{}, summary: "List announcements with filter and sort"},
		"GET /api/v2/permissions":           {resp: upstream.Page[upstream.Permission]{}, summary: "List grants with filter and sort (needs permissions:manage)"},

		// Users' pictures (avatars.go).
		"POST /api/v1/fileserver/avatar/{userId}": {upload: true, resp: upstream.User{}, summary: "Upload a user's picture", desc: avatarUploadDesc},
		"DELETE /api/v1/fileserver/avatar/{userId}": {summary: "Delete a user's uploaded picture",
			desc: "Deletes the picture uploaded for the user and empties its picture; 404 not_found when it has none. The user themself, or a holder of users:manage."},
	}
}
