package rest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"

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
}

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
		"GET /api/v1/goals/{id}":                    {resp: upstream.Goal{}},
		"PATCH /api/v1/goals/{id}":                  {body: upstream.GoalPatch{}, resp: upstream.Goal{}},
		"DELETE /api/v1/goals/{id}":                 {},
		// Metrics.
		"GET /api/v2/metrics":                     {resp: upstream.Page[upstream.Metric]{}},
		"GET /api/v1/metrics/checkin/{checkinId}": {resp: upstream.Metric{}},
		"GET /api/v1/metrics/owner/{ownerId}":     {resp: itemsOf[upstream.Metric]{}},
		"POST /api/v1/metrics":                    {body: upstream.MetricInput{}, resp: upstream.Metric{}},
		"GET /api/v1/metrics/{id}":                {resp: upstream.Metric{}},
		"PATCH /api/v1/metrics/{id}":              {body: upstream.MetricPatch{}, resp: upstream.Metric{}},
		"DELETE /api/v1/metrics/{id}":             {},
		"POST /api/v1/metrics/{id}/checkin": {body: upstream.CheckInInput{}, resp: upstream.CheckIn{},
			desc: "Records a check-in: sets the key result's actual value, keeps the snapshot (GET /api/v1/metrics/checkin/{checkinId}) and recomputes the attainment of the key result, its objective and every ancestor objective in one transaction. A closed session is a 403 session_closed, an abandoned objective a 403 goal_abandoned."},
		"GET /api/v1/metrics/{id}/checkins": {resp: upstream.Page[upstream.CheckIn]{}},
		// Tasks.
		"GET /api/v2/integrations/tasks":             {resp: upstream.Page[upstream.Task]{}},
		"GET /api/v2/integrations/tasks/{taskId}":    {resp: upstream.Task{}},
		"POST /api/v2/integrations/tasks":            {body: upstream.TaskInput{}, resp: upstream.Task{}},
		"PATCH /api/v2/integrations/tasks/{taskId}":  {body: upstream.TaskPatch{}, resp: upstream.Task{}},
		"DELETE /api/v2/integrations/tasks/{taskId}": {},
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
		"GET /api/v2/users/me":              {resp: upstream.Whoami{}, summary: "The caller: user, account, roles, token id and scopes"},
		"GET /api/v2/checkins":              {resp: upstream.Page[upstream.CheckIn]{}, summary: "List check-ins of any key results (filter metricId with $in)"},
		"GET /api/v2/integrations/taggings": {resp: upstream.Page[upstream.Tagging]{}, summary: "List tag assignments (filter tagId, itemId, itemType)"},
		"GET /api/v2/badges/assignments":    {resp: upstream.Page[upstream.AssignedBadge]{}, summary: "List badge assignments in any status (filter badgeId, status, assigneeIds)"},
		"GET /api/v2/dashboards/parameters": {resp: upstream.Page[upstream.DashboardParameter]{}, summary: "List dashboard parameters with filter and sort"},
		"GET /api/v2/announcements":         {resp: upstream.Page[upstream.Announcement]{}, summary: "List announcements with filter and sort"},
		"GET /api/v2/permissions":           {resp: upstream.Page[upstream.Permission]{}, summary: "List grants with filter and sort (needs permissions:manage)"},
	}
}

// openAPILicense is the document's license block. The repository carries no
// LICENSE file yet: change this together with the one that is chosen.
var openAPILicense = map[string]any{"name": "Apache 2.0", "identifier": "Apache-2.0"}

// ListBody is the JSON body a GET listing (dashboards v2, KPI groups) may
// carry instead of query parameters.
type ListBody struct {
	// Filter is a filter object, or a string in the filter language.
	Filter any    `json:"filter"`
	Sort   string `json:"sort"`
	Fields string `json:"fields"`
	Skip   int    `json:"skip"`
	Limit  int    `json:"limit"`
}

// GenerateOpenAPI returns the OpenAPI 3.1 document of every route of the
// table, with schemas derived from the Go types by reflection: what the
// committed openapi.json must equal.
func GenerateOpenAPI() ([]byte, error) {
	g := &oaGen{schemas: map[string]any{}, inputs: map[reflect.Type]bool{}}
	specs := opSpecs()
	for _, sp := range specs {
		if sp.body != nil {
			g.markInputs(reflect.TypeOf(sp.body))
		}
	}
	paths := map[string]map[string]any{}
	seenOps := map[string]int{}
	shapes := map[string]string{}
	for _, e := range table() {
		key := e.Method + " " + e.Pattern
		sp, typed := specs[key]
		op := g.operation(e, sp, typed)
		id := handlerName(e.h)
		if n := seenOps[id]; n > 0 {
			op["operationId"] = id + strconv.Itoa(n+1)
		} else {
			op["operationId"] = id
		}
		seenOps[id]++
		// OpenAPI forbids two templates of one shape ("/lists/{listId}" and
		// "/lists/{id}", as the contract spells them): the first one of the
		// table names the path; the others are noted.
		shape := PathShape(e.Pattern)
		path, seen := shapes[shape]
		if !seen {
			path = e.Pattern
			shapes[shape] = path
		}
		if path != e.Pattern {
			op["x-contract-path"] = e.Pattern
			op["parameters"] = g.pathParams(e, path, op["parameters"].([]any))
		}
		if paths[path] == nil {
			paths[path] = map[string]any{}
		}
		paths[path][strings.ToLower(e.Method)] = op
	}
	paths[OpenAPIPath] = map[string]any{"get": map[string]any{
		"operationId": "openAPIDocument",
		"summary":     "This OpenAPI document",
		"description": "The OpenAPI 3.1 document of the REST facade, generated from the route table and the Go types. Needs no credentials: it describes the API and holds no data.",
		"tags":        []string{"meta"},
		"security":    []any{},
		"responses": map[string]any{
			"200": map[string]any{"description": "the document",
				"content": map[string]any{"application/json": map[string]any{"schema": map[string]any{"type": "object", "description": "an OpenAPI 3.1 document"}}}},
			"414": map[string]any{"$ref": "#/components/responses/" + problemResponseName(http.StatusRequestURITooLong)},
		},
	}}
	g.ref(reflect.TypeOf(Problem{}))
	var tags []any
	seenTags := map[string]bool{}
	for _, e := range table() {
		if t := tagOf(e.Pattern); !seenTags[t] {
			seenTags[t] = true
			tags = append(tags, map[string]any{"name": t, "description": tagDoc(t)})
		}
	}
	tags = append(tags, map[string]any{"name": "meta", "description": tagDoc("meta")})
	doc := map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{
			"title":   "okrgate REST API",
			"version": "1.0.0",
			"description": "The documented OKR REST API (shared/spec/okr-rest-api.md) as okrgate serves it, generated from the route table " +
				"(upstream/rest) and the Go types (upstream). Operations marked x-designed are designed where the contract shows none; " +
				"see docs/contract.md. Errors are RFC 9457 problem documents. Every call needs Authorization: Bearer <token>.",
			"license": openAPILicense,
		},
		"servers": []any{
			map[string]any{"url": "/", "description": "the server this document was fetched from"},
			map[string]any{"url": "{scheme}://{host}", "description": "an okrgate server (okrgate serve listens on 127.0.0.1:8080 by default)",
				"variables": map[string]any{
					"scheme": map[string]any{"default": "http", "enum": []string{"http", "https"}, "description": "http, or https behind a TLS proxy"},
					"host":   map[string]any{"default": "127.0.0.1:8080", "description": "host and port"},
				}},
		},
		"tags":     tags,
		"security": []any{map[string]any{"bearerAuth": []any{}}},
		"paths":    paths,
		"components": map[string]any{
			"securitySchemes": map[string]any{"bearerAuth": map[string]any{"type": "http", "scheme": "bearer",
				"description": "an API token of one user of one account (okrgate token create, or POST /api/v2/users/me/tokens)"}},
			"schemas":   g.schemas,
			"responses": problemResponses(),
		},
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// handlerName is the Go name of a handler, e.g. "listGoals".
func handlerName(h handlerFunc) string {
	name := runtime.FuncForPC(reflect.ValueOf(h).Pointer()).Name()
	name = name[strings.LastIndexByte(name, '.')+1:]
	return strings.TrimSuffix(name, "-fm")
}

var pathParamRE = regexp.MustCompile(`\{([^}]+)\}`)

// PathShape is a path template with its parameter names erased:
// "/api/v1/lists/{id}" → "/api/v1/lists/{}".
func PathShape(pattern string) string { return pathParamRE.ReplaceAllString(pattern, "{}") }

// pathParams replaces the path parameters of params by those of path.
func (g *oaGen) pathParams(e entry, path string, params []any) []any {
	var out []any
	for _, m := range pathParamRE.FindAllStringSubmatch(path, -1) {
		out = append(out, g.pathParam(e, m[1]))
	}
	for _, p := range params {
		if p.(map[string]any)["in"] != "path" {
			out = append(out, p)
		}
	}
	return out
}

// etagHeader documents the ETag response header of versioned resources.
var etagHeader = map[string]any{"schema": map[string]any{"type": "string"},
	"description": "strong entity tag of the stored version; send it back in If-Match (writes) or If-None-Match (reads)"}

// withHeader adds one header to a response's headers object (nil or a map).
func withHeader(headers any, name string, h map[string]any) map[string]any {
	m, _ := headers.(map[string]any)
	if m == nil {
		m = map[string]any{}
	}
	m[name] = h
	return m
}

// conditionalParams are the header parameters of conditional and
// idempotent requests that the route honours.
func conditionalParams(e entry) []any {
	header := func(name, desc string) map[string]any {
		return map[string]any{"name": name, "in": "header", "required": false, "schema": map[string]any{"type": "string"}, "description": desc}
	}
	var out []any
	switch {
	case e.Versioned != "" && e.Method == http.MethodGet:
		out = append(out, header("If-None-Match", "entity tags (or *); when one matches the current version the answer is 304 without a body"))
	case e.Versioned != "":
		out = append(out, header("If-Match", "entity tags (or *); unless one matches the stored version, nothing is written and the answer is 412 precondition_failed"))
	}
	if representationRoutes[e.Method+" "+e.Pattern] {
		out = append(out, header("Prefer", "return=representation answers 200 with the item as stored (and Preference-Applied) instead of a body-less answer"))
	}
	if e.Idempotent {
		out = append(out, header("Idempotency-Key", "1 to 255 printable ASCII characters; a retry with the same key and body answers the recorded answer without writing again (kept 24 h); the same key with another body is 422 idempotency_key_reused"))
	}
	return out
}

// errorStatuses are the problem answers every operation may give; writes
// may also conflict (409) and bodies may be too large or not JSON.
var errorStatuses = []int{400, 401, 402, 403, 404, 500}

func (g *oaGen) operation(e entry, sp opSpec, typed bool) map[string]any {
	op := map[string]any{
		"tags":        []string{tagOf(e.Pattern)},
		"summary":     sp.summary,
		"description": operationDescription(e, sp),
	}
	if sp.summary == "" {
		op["summary"] = operationSummary(handlerName(e.h))
	}
	if !typed {
		op["x-untyped"] = true
	}
	if e.Deprecated {
		op["deprecated"] = true
	}
	if e.Designed {
		op["x-designed"] = true
	}
	if e.Gateway {
		op["x-gateway"] = true
	}
	var params []any
	for _, m := range pathParamRE.FindAllStringSubmatch(e.Pattern, -1) {
		params = append(params, g.pathParam(e, m[1]))
	}
	hdr := map[string]any{"name": "service-accountId", "in": "header", "required": e.Account, "schema": map[string]any{"type": "string"},
		"description": "the account id; must be the token's account"}
	params = append(params, hdr)
	for _, p := range e.Params {
		params = append(params, queryParam(e, p))
	}
	params = append(params, conditionalParams(e)...)
	op["parameters"] = params

	hasBody := sp.body != nil || (!typed && (e.Method == http.MethodPost || e.Method == http.MethodPut || e.Method == http.MethodPatch))
	if hasBody {
		var schema any = map[string]any{"type": "object"}
		if sp.body != nil {
			schema = g.ref(reflect.TypeOf(sp.body))
		}
		media := map[string]any{"schema": schema}
		if sp.body != nil {
			if ex := inputExample(reflect.TypeOf(sp.body)); ex != nil {
				media["example"] = ex
			}
		}
		op["requestBody"] = map[string]any{"required": !sp.optionalBody, "description": "the JSON body",
			"content": map[string]any{"application/json": media}}
	}
	resps := map[string]any{}
	success := append([]int{e.Success}, sp.also...)
	for _, st := range success {
		r := map[string]any{"description": successDoc(e, st)}
		switch {
		case st == http.StatusNoContent:
		case st == http.StatusNotModified:
			r["description"] = "nothing changed; no body, the message is in the X-Message header"
			r["headers"] = map[string]any{"X-Message": map[string]any{"schema": map[string]any{"type": "string"}, "description": "why nothing changed"}}
		case sp.resp != nil:
			r["content"] = map[string]any{"application/json": map[string]any{"schema": g.ref(reflect.TypeOf(sp.resp))}}
		case !typed:
			r["content"] = map[string]any{"application/json": map[string]any{"schema": map[string]any{}}}
		}
		if e.Deprecated {
			r["headers"] = map[string]any{
				"Deprecation": map[string]any{"schema": map[string]any{"type": "string"}, "description": "RFC 9745 date of deprecation"},
				"Link":        map[string]any{"schema": map[string]any{"type": "string"}, "description": "successor-version or deprecation link"},
			}
		}
		if representationRoutes[e.Method+" "+e.Pattern] && st == http.StatusOK {
			r["description"] = "with Prefer: return=representation: the item as stored"
			r["headers"] = withHeader(r["headers"], "Preference-Applied", map[string]any{"schema": map[string]any{"type": "string", "enum": []string{"return=representation"}}})
		}
		if e.Versioned != "" && st == http.StatusOK {
			r["headers"] = map[string]any{"ETag": etagHeader}
		}
		if e.Idempotent && st >= 200 && st < 300 {
			r["headers"] = withHeader(r["headers"], "Idempotent-Replayed", map[string]any{"schema": map[string]any{"type": "string", "enum": []string{"true"}},
				"description": "present when the answer is the recorded one of an earlier request with the same Idempotency-Key"})
		}
		resps[strconv.Itoa(st)] = r
	}
	if e.Versioned != "" && e.Method == http.MethodGet {
		resps["304"] = map[string]any{"description": "the version named in If-None-Match is current; no body",
			"headers": map[string]any{"ETag": etagHeader}}
	}
	errs := slices.Clone(errorStatuses)
	// Any request may be refused for its size before it is read.
	errs = append(errs, http.StatusRequestEntityTooLarge, http.StatusRequestURITooLong, http.StatusRequestHeaderFieldsTooLarge)
	if e.Method != http.MethodGet {
		errs = append(errs, http.StatusConflict)
	} else {
		errs = append(errs, http.StatusServiceUnavailable) // the read deadline (deadline.go)
	}
	if e.Versioned != "" && e.Method != http.MethodGet {
		errs = append(errs, http.StatusPreconditionFailed)
	}
	if e.Idempotent {
		errs = append(errs, http.StatusUnprocessableEntity)
	}
	if hasBody {
		errs = append(errs, http.StatusUnsupportedMediaType)
	}
	for _, st := range errs {
		resps[strconv.Itoa(st)] = map[string]any{"$ref": "#/components/responses/" + problemResponseName(st)}
	}
	op["responses"] = resps
	return op
}

// pathParam documents a path parameter of e.
func (g *oaGen) pathParam(e entry, name string) map[string]any {
	desc, enum := pathParamDoc(e, name)
	schema := map[string]any{"type": "string"}
	if enum != nil {
		schema["enum"] = enum
	}
	return map[string]any{"name": name, "in": "path", "required": true, "schema": schema, "description": desc}
}

// problemResponses are the error answers, one per status, that operations
// refer to: a problem document with its description and an example.
func problemResponses() map[string]any {
	out := map[string]any{}
	sts := append(slices.Clone(errorStatuses), http.StatusConflict, http.StatusPreconditionFailed, http.StatusRequestEntityTooLarge,
		http.StatusRequestURITooLong, http.StatusUnsupportedMediaType, http.StatusUnprocessableEntity, http.StatusRequestHeaderFieldsTooLarge,
		http.StatusServiceUnavailable)
	for _, st := range sts {
		out[problemResponseName(st)] = map[string]any{"description": statusDoc(st),
			"content": map[string]any{"application/problem+json": map[string]any{
				"schema":  map[string]any{"$ref": "#/components/schemas/Problem"},
				"example": problemExample(st)}}}
	}
	return out
}

// problemResponseName names the shared error answer of a status, e.g.
// "NotFound".
func problemResponseName(st int) string {
	return strings.NewReplacer(" ", "", "-", "").Replace(http.StatusText(st))
}

// successDoc describes a success status.
func successDoc(e entry, st int) string {
	switch st {
	case http.StatusCreated:
		return "created; the body is the new item"
	case http.StatusNoContent:
		return "done; no body"
	case http.StatusOK:
		if e.Method == http.MethodGet {
			return "the requested data"
		}
		return "done; the body is the item as stored"
	}
	return http.StatusText(st)
}

func tagOf(pattern string) string {
	parts := strings.Split(strings.Trim(pattern, "/"), "/")
	for _, p := range parts[2:] {
		if p != "integrations" && !strings.HasPrefix(p, "{") {
			return p
		}
	}
	return parts[len(parts)-1]
}
