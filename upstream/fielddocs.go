package upstream

import (
	"strings"
	"unicode"
)

// The descriptions of the JSON fields of the resources and inputs: one text
// per field name, shared by every type that carries the field, with
// type-specific texts where a name means something else in one type. The
// OpenAPI document (upstream/rest) takes its property descriptions from
// FieldDoc, and the field registries (fields*.go) name the same fields, so a
// description written here documents the field everywhere it appears.

// FieldDoc describes the JSON field name of the Go type typeName (e.g.
// "Metric", "MetricInput"). The text is never empty: a field with no text
// of its own gets one derived from its name.
func FieldDoc(typeName, name string) string {
	if d, ok := typeFieldDocs[typeName+"."+name]; ok {
		return d
	}
	if d, ok := fieldDocs[name]; ok {
		return d
	}
	if d, ok := contentFieldDocs[name]; ok {
		return d
	}
	return derivedFieldDoc(name)
}

// HasFieldDoc reports whether name has a written description (for typeName
// or shared), as opposed to one derived from its name.
func HasFieldDoc(typeName, name string) bool {
	_, typed := typeFieldDocs[typeName+"."+name]
	_, shared := fieldDocs[name]
	_, content := contentFieldDocs[name]
	return typed || shared || content
}

// RequiredInputFields names the fields a create or replace body must carry:
// a body without one of them is a 400 invalid_input naming the field. The
// OpenAPI document marks them required; TestRequiredInputFields holds the
// store to it.
func RequiredInputFields(typeName string) []string {
	return requiredInputs[typeName]
}

var requiredInputs = map[string][]string{
	"GoalInput":               {"name", "sessionId"},
	"MetricInput":             {"name", "goalId", "target"},
	"CheckInInput":            {"actual"},
	"TaskInput":               {"name"},
	"SessionInput":            {"title", "start", "end"},
	"TeamInput":               {"name"},
	"UserInput":               {"email"},
	"RoleInput":               {"name"},
	"RoleMappingInput":        {"roleId"},
	"PermissionInput":         {"action"},
	"BadgeInput":              {"name"},
	"AssignBadgeInput":        {"badgeId", "assigneeIds"},
	"DashboardInput":          {"name"},
	"DashboardParameterInput": {"key", "title"},
	"KPIGroupInput":           {"name"},
	"KPIInput":                {"name"},
	"ListInput":               {"title", "listType"},
	"AnnouncementInput":       {"comment"},
	"TagInput":                {"title"},
}

// typeFieldDocs are the texts of fields whose meaning depends on the type.
var typeFieldDocs = map[string]string{
	"Goal.name":                   "The objective's title.",
	"Goal.attainment":             "The objective's attainment as a fraction (1 = 100%), computed by its attainmentTypeString from its key results and/or child objectives; never below 0, not capped above.",
	"Goal.parentId":               "Id of the parent objective; empty for a root objective.",
	"Goal.parentType":             "What the parent is: goal, or empty for a root objective.",
	"Goal.metrics":                "The objective's key results (only with fields=metrics{...}).",
	"Goal.tasks":                  "The objective's tasks (only with fields=tasks{...}).",
	"Goal.url":                    "Link to the objective in the web application.",
	"Goal.links":                  "Links to the objective's related pages.",
	"Metric.name":                 "The key result's title.",
	"Metric.attainment":           "The key result's attainment as a fraction (1 = 100%), computed from initialValue, target, actual and targetOperator; never below 0, not capped above.",
	"Metric.actual":               "The current value; changed only by a check-in (POST /api/v1/metrics/{id}/checkin).",
	"Metric.settings":             "Per-key-result settings as name/value pairs.",
	"Metric.url":                  "Link to the key result in the web application.",
	"Metric.links":                "Links to the key result's related pages.",
	"MetricInput.actual":          "The starting actual value; defaults to initialValue. Later changes are check-ins.",
	"MetricInput.target":          "The value to reach (or stay above/below); required.",
	"CheckIn.actual":              "The key result's actual value recorded by this check-in.",
	"CheckIn.attainment":          "The key result's attainment after this check-in, as a fraction.",
	"CheckInInput.actual":         "The key result's new actual value; required. For manualType boolean: 0 or 1.",
	"CheckInInput.checkInDate":    "When the value was observed, RFC 3339 or yyyy-mm-dd; defaults to now.",
	"CheckInInput.comment":        "A comment shown in the key result's history.",
	"CheckInInput.confidence":     "How confident the owner is that the target will be met, 0 to 1 (or the account's confidence scale).",
	"Task.name":                   "The task's title.",
	"Task.status":                 "todo, inprogress or done.",
	"Task.parentId":               "Id of the objective or key result the task belongs to; empty for a free task.",
	"Task.parentType":             "goal, metric, or empty for a free task.",
	"TaskInput.status":            "todo (default), inprogress or done.",
	"Session.title":               "The session's name, e.g. \"Q4 2026\".",
	"Session.status":              "open (all edits), locked (only check-ins and task changes) or closed (read-only).",
	"Session.start":               "First day of the session (RFC 3339 timestamp).",
	"Session.end":                 "Last day of the session (RFC 3339 timestamp).",
	"Session.settings":            "The session's settings: limits per owner and per objective, approval, design policy.",
	"SessionInput.status":         "open (default), locked or closed.",
	"SessionInput.start":          "First day of the session, yyyy-mm-dd or RFC 3339; required.",
	"SessionInput.end":            "Last day of the session, yyyy-mm-dd or RFC 3339, not before start; required.",
	"User.name":                   "The user's display name (first and last name).",
	"User.settings":               "The user's personal settings.",
	"Team.name":                   "The team's name.",
	"Team.members":                "Ids of the team's members.",
	"Team.manager":                "Id of the team's manager.",
	"Account.name":                "The company's name.",
	"Account.settings":            "Account-wide settings.",
	"Account.type":                "The account's type (customer, trial, ...).",
	"Role.mappingId":              "Id of the role's mapping to a team (role mappings only): the id that DELETE /api/v1/roles/account/mapping/{id} takes.",
	"Role.teamId":                 "The team the role is mapped to (role mappings only).",
	"Role.userCount":              "Number of users holding the role.",
	"Problem.type":                "URI naming the problem type, urn:okrgate:problem:<code>.",
	"Problem.title":               "The HTTP status text.",
	"Problem.status":              "The HTTP status code.",
	"Problem.detail":              "What went wrong, for a human.",
	"Problem.code":                "Stable machine code in snake_case: invalid_input, invalid_filter, not_found, unauthenticated, forbidden, session_locked, session_closed, limit_exceeded, conflict, precondition_failed, ...",
	"Problem.errors":              "The fields at fault, for invalid input.",
	"Problem.requestId":           "The request's id, also in the X-Request-Id header and the server log.",
	"FieldError.field":            "The JSON field at fault.",
	"FieldError.message":          "What is wrong with it.",
	"Tag.name":                    "The tag's identity: its title lowercased and trimmed.",
	"Tag.title":                   "The tag as written.",
	"Tag.items":                   "Ids of the items carrying the tag.",
	"ClosedStatus.status":         "active (default), achieved or abandoned; check-ins on an abandoned objective's key results are refused.",
	"ClosedStatus.reason":         "Why the objective was closed.",
	"MetricFormat.ID":             "Id of the display format (the contract's spelling).",
	"Access.inherits":             "Whether the item inherits the access of its parent.",
	"Access.permissions":          "Explicit grants: principals and their actions.",
	"Access.ownerPermissions":     "What the item's owners may do.",
	"NewToken.token":              "The token itself, shown only in this answer: send it as Authorization: Bearer <token>.",
	"Token.name":                  "A label for the token.",
	"GoalsGroupedBy.items":        "One entry per owner: the owner and the objectives they own.",
	"ModifiedCount.modifiedCount": "Number of tags whose state changed.",
}

// fieldDocs are the shared texts, by JSON field name.
var fieldDocs = map[string]string{
	"id":                           "The item's id: 24 lowercase hex characters, unique across all types.",
	"accountId":                    "Id of the account (company) the item belongs to.",
	"name":                         "The item's name.",
	"title":                        "The item's title.",
	"description":                  "Plain-text description; mentions are written @[Name:email:id] (formatting=plainText turns them into @Name).",
	"richTextDescription":          "The description as rich text (HTML).",
	"access":                       "Who may see and change the item: inheritance, owner permissions and explicit grants.",
	"aggregatedAttainment":         "Mean attainment over all descendant objectives (not the objective itself), as a fraction.",
	"childrenAggregatedAttainment": "Mean attainment of the direct child objectives, as a fraction.",
	"fullAggregatedAttainment":     "Mean attainment over the objective and all its descendants, as a fraction.",
	"attainment":                   "Attainment as a fraction: 1 means 100%.",
	"attainmentTypeString":         "How the objective's attainment is computed: average_kr (default; mean of its key results), average_children (mean of its child objectives) or average_kr_and_children.",
	"childrenCount":                "Number of direct child objectives.",
	"subTreeCount":                 "Number of descendant objectives in the same session.",
	"fullSubTreeCount":             "Number of descendant objectives in any session.",
	"closedStatus":                 "Whether the objective is active, achieved or abandoned, and why.",
	"createdById":                  "Id of the user who created the item.",
	"modifiedById":                 "Id of the user who last changed the item.",
	"createdBy":                    "Id of the user who created the item.",
	"modifiedBy":                   "Id of the user who last changed the item.",
	"dateCreated":                  "When the item was created (RFC 3339 UTC with milliseconds).",
	"dateModified":                 "When the item was last changed (RFC 3339 UTC with milliseconds).",
	"dateUpdated":                  "When the item was last changed (RFC 3339 UTC with milliseconds).",
	"createdAt":                    "When the item was created (RFC 3339 UTC with milliseconds).",
	"modifiedAt":                   "When the item was last changed (RFC 3339 UTC with milliseconds).",
	"dateFrom":                     "Start of the objective's period (RFC 3339).",
	"dateTo":                       "End of the objective's period (RFC 3339).",
	"duration":                     "Days from dateFrom to dateTo.",
	"designScore":                  "How well the objective follows the session's design policy, and which checks it passed.",
	"assignee":                     "The first owner, as embedded in the item.",
	"assignees":                    "All owners (users or teams), as embedded in the item.",
	"ownerId":                      "Id of the (first) owner: a user or a team.",
	"ownerIds":                     "Ids of all owners: users or teams.",
	"numberOfOwners":               "Number of owners.",
	"locked":                       "Whether the objective is locked against edits.",
	"obfuscated":                   "Whether the item is shown without its content because the caller may not read it.",
	"private":                      "Whether only the owners and those granted access may see the item.",
	"orderId":                      "Position among its siblings.",
	"parentId":                     "Id of the parent item; empty at the root.",
	"parentType":                   "Type of the parent item.",
	"parentGoalSessionId":          "Session of the parent objective, when it lies in another session.",
	"parentName":                   "Name of the parent item.",
	"sessionId":                    "Id of the session (period) the item belongs to.",
	"metricsCount":                 "Number of key results.",
	"nonArchivedTasksCount":        "Number of tasks that are not archived.",
	"tasksCount":                   "Number of tasks.",
	"currentUserAllowedActions":    "The actions the caller may perform on the item (see GET /api/v1/permissions/actions).",
	"tags":                         "Tags on the item.",
	"watchers":                     "Ids of the users notified of changes.",
	"links":                        "Links to related pages.",
	"url":                          "Link to the item in the web application.",
	"workflow":                     "The review workflow's state.",
	"metrics":                      "Key results.",
	"tasks":                        "Tasks.",
	"actual":                       "The current value.",
	"initialValue":                 "The value at the start; attainment is measured from it.",
	"target":                       "The value to reach.",
	"critical":                     "A critical threshold below (or above, for at_most) which the key result is at risk; null for none.",
	"targetOperator":               "How attainment is computed: at_least (should increase), at_most (should decrease), stay_above or stay_below.",
	"cascadeType":                  "How the key result's value cascades from linked key results.",
	"manualType":                   "double (a number) or boolean (0 or 1).",
	"dynamic":                      "Whether the value comes from a data source instead of check-ins.",
	"fieldName":                    "The data source field of a dynamic key result.",
	"insightName":                  "The insight a dynamic key result follows.",
	"dueDate":                      "Due date (yyyy-mm-dd).",
	"softDueDate":                  "Soft due date (yyyy-mm-dd): a reminder before dueDate.",
	"format":                       "How the value is displayed: prefix, suffix and decimals.",
	"goalId":                       "Id of the objective the key result belongs to.",
	"goalName":                     "Name of the objective the key result belongs to.",
	"goalDescription":              "Description of the objective the key result belongs to.",
	"goalOwnerId":                  "Owner of the key result's objective.",
	"goalOwnerIds":                 "All owners of the key result's objective.",
	"goalClosedStatus":             "The closed status of the key result's objective.",
	"sourceMetricId":               "The key result this one copies its value from, if any.",
	"targetMetrics":                "Key results that copy this one's value.",
	"settings":                     "Settings.",
	"confidence":                   "How confident the owner is that the target will be met; null when not given.",
	"lastCheckInDate":              "When the last check-in was recorded.",
	"metricId":                     "Id of the key result.",
	"previousActual":               "The actual value before this check-in.",
	"checkInDate":                  "When the value was observed.",
	"comment":                      "A comment.",
	"richTextComment":              "The comment as rich text (HTML).",
	"archived":                     "Whether the task is archived (hidden from the default lists).",
	"externalId":                   "The item's id in an external system.",
	"externalSystem":               "The external system the item comes from.",
	"lastComment":                  "The latest comment.",
	"priority":                     "Priority, 0 (none) to 3 (high).",
	"snapshots":                    "Earlier states of the task.",
	"status":                       "The item's state.",
	"taskType":                     "The kind of task.",
	"cadence":                      "How often owners check in and report.",
	"cadenceStart":                 "When the cadence starts.",
	"cadenceTimeZone":              "IANA time zone of the cadence, e.g. Europe/Paris.",
	"color":                        "Display color, e.g. #3b82f6.",
	"demo":                         "Whether the item is demo data (hidden unless includeDemo=true).",
	"dynamicValueType":             "For dynamic values: what the value stands for.",
	"end":                          "End (RFC 3339).",
	"start":                        "Start (RFC 3339).",
	"inherits":                     "Whether permissions are inherited from the parent.",
	"isSelfApproveAllowed":         "Whether owners may approve their own objectives.",
	"ownerPermissions":             "What the owners may do.",
	"permissions":                  "Explicit grants.",
	"accountDomain":                "The account's email domain.",
	"accountName":                  "The account's name.",
	"clientId":                     "The identity provider's client id.",
	"dateInvited":                  "When the user was invited.",
	"email":                        "Email address.",
	"firstName":                    "First name.",
	"lastName":                     "Last name.",
	"identities":                   "Sign-in identities of the user.",
	"invitedBy":                    "Id of the user who sent the invitation.",
	"isActive":                     "Whether the item is active.",
	"isPrimary":                    "Whether this is the account's primary user.",
	"isSSOBased":                   "Whether the user signs in through single sign-on.",
	"isSwitched":                   "Whether the user switched to another account.",
	"language":                     "Language code, e.g. en.",
	"notificationSettings":         "Which notifications are sent.",
	"picture":                      "URL of the picture.",
	"pictureInfo":                  "The picture's source and whether it may be edited.",
	"roles":                        "Roles held.",
	"subscriptionType":             "The user's subscription.",
	"teamIds":                      "Ids of the teams the user belongs to.",
	"userSettings":                 "The user's personal settings.",
	"avatar":                       "URL of the avatar image.",
	"badges":                       "Badges.",
	"manager":                      "Id of the manager.",
	"managerInfo":                  "The manager, embedded.",
	"members":                      "Ids of the members.",
	"membersInfo":                  "The members, embedded.",
	"mentions":                     "Users mentioned.",
	"ExternalTeamMapping":          "Mapping of the team to an external directory group (the contract's spelling).",
	"movedExternalMembers":         "Members moved from an external directory group.",
	"billingSystem":                "The billing system of the account.",
	"confidenceSettings":           "How confidence is scored and shown.",
	"csManaged":                    "Whether customer success manages the account.",
	"domain":                       "The email domain.",
	"edition":                      "The product edition and its features.",
	"notifications":                "Notification settings.",
	"subscriptionId":               "Id of the subscription.",
	"subscriptions":                "Subscriptions.",
	"trackingProperties":           "Analytics properties of the account.",
	"trialEnds":                    "When the trial ends.",
	"type":                         "The item's type.",
	"code":                         "A machine-readable code.",
	"detail":                       "Details.",
	"errors":                       "Errors.",
	"requestId":                    "The request's id.",
	"items":                        "The items of this page.",
	"totalCount":                   "Number of items matching the query, over all pages.",
	"count":                        "Number of items.",
	"modifiedCount":                "Number of items changed.",
	"builtIn":                      "Whether the item is built in (cannot be changed or deleted).",
	"mappingId":                    "Id of the mapping.",
	"teamId":                       "Id of the team.",
	"userId":                       "Id of the user.",
	"roleId":                       "Id of the role.",
	"roleIds":                      "Ids of the roles.",
	"userCount":                    "Number of users.",
	"action":                       "An action name, e.g. goal.update (see GET /api/v1/permissions/actions).",
	"actions":                      "Action names.",
	"principals":                   "Users and teams the grant applies to.",
	"principalId":                  "Id of the user or team.",
	"principalKind":                "user or team.",
	"grant":                        "Actions granted.",
	"deny":                         "Actions denied.",
	"token":                        "The token.",
	"expiresAt":                    "When it expires (RFC 3339); null for never.",
	"expiresIn":                    "Lifetime in seconds; the server's token policy bounds it. At most one of expiresIn and expiresAt.",
	"lastUsedAt":                   "When it was last used.",
	"scopes":                       "What the token may do, e.g. read-only.",
	"key":                          "A key, unique in the account.",
	"value":                        "The value.",
	"text":                         "Text.",
	"message":                      "A message.",
	"date":                         "A date.",
	"from":                         "Start of the range.",
	"to":                           "End of the range.",
	"range":                        "A range.",
	"ranges":                       "Ranges.",
	"filter":                       "A filter in the filter language (Mongo-style JSON).",
	"filters":                      "Filters.",
	"sort":                         "Sort: comma-separated fields, - for descending.",
	"fields":                       "Projection: comma-separated fields, nested as metrics{id,name}.",
	"skip":                         "Items to skip.",
	"limit":                        "Page size, at most 1000.",
	"columns":                      "Columns.",
	"listType":                     "The target type of the list: goal, metric, task, ...",
	"dataType":                     "The field's data type.",
	"operationalType":              "How the field is compared in filters.",
	"supportedOperators":           "Filter operators that apply to the field.",
	"isFilterable":                 "Whether the field may be filtered on.",
	"isSortable":                   "Whether the field may be sorted on.",
	"isSelectable":                 "Whether the field may be projected.",
	"displayName":                  "Human name.",
	"dashboardId":                  "Id of the dashboard.",
	"insightId":                    "Id of the insight.",
	"badgeId":                      "Id of the badge.",
	"assigneeIds":                  "Ids of the users or teams.",
	"tagIds":                       "Ids of the tags.",
	"tagName":                      "The tag's name.",
	"tagTitle":                     "The tag's title.",
	"titles":                       "Titles.",
	"names":                        "Names.",
	"reactions":                    "Reactions.",
	"reactionId":                   "The reaction, e.g. an emoji name.",
	"author":                       "The author.",
	"authorId":                     "Id of the author.",
	"authorID":                     "Id of the author (the contract's spelling).",
	"announcementType":             "The kind of announcement.",
	"announcementTargetId":         "The item the announcement is about.",
	"layout":                       "Layout of the dashboard.",
	"favorite":                     "Whether the caller marked it as a favorite.",
	"groupIds":                     "Ids of the groups.",
	"parameters":                   "Parameters.",
	"parameterIds":                 "Ids of the parameters.",
	"review":                       "Review settings.",
	"reviewers":                    "Reviewers.",
	"goals":                        "Objectives.",
	"sessions":                     "Sessions.",
	"teams":                        "Teams.",
	"owner":                        "The owner.",
	"policy":                       "Policy.",
	"policies":                     "Policies.",
	"score":                        "Score.",
	"source":                       "Source.",
	"summary":                      "Summary.",
	"icon":                         "Icon.",
	"header":                       "Header.",
	"width":                        "Width.",
	"background":                   "Background.",
	"pattern":                      "Pattern.",
	"prefix":                       "Text before the value.",
	"suffix":                       "Text after the value.",
	"fractionSize":                 "Decimals shown.",
	"timezone":                     "IANA time zone.",
	"hour":                         "Hour of the day, 0-23.",
	"minute":                       "Minute, 0-59.",
	"weekday":                      "Day of the week.",
	"dayOfTheWeek":                 "Day of the week.",
	"dayOfMonth":                   "Day of the month.",
	"goalsPerOwnerLimit":           "Most objectives one owner may have in the session; 0 for no limit (400 limit_exceeded above).",
	"metricsPerGoalLimit":          "Most key results one objective may have; 0 for no limit (400 limit_exceeded above).",
}

// derivedFieldDoc describes a field from its name alone: "teamGoalCount" →
// "Team goal count.", "dashboardsIds" → "Ids of the dashboards.".
func derivedFieldDoc(name string) string {
	words := splitWords(name)
	if len(words) == 0 {
		return "A field."
	}
	last := words[len(words)-1]
	rest := strings.Join(words[:len(words)-1], " ")
	switch {
	case last == "ids" && rest != "":
		return "Ids of the " + rest + "."
	case last == "id" && rest != "":
		return "Id of the " + rest + "."
	case last == "count" && rest != "":
		return "Number of " + rest + "."
	case words[0] == "is" || words[0] == "has" || words[0] == "can" || words[0] == "should" || words[0] == "include" || words[0] == "enable" || words[0] == "allow":
		return "Whether " + strings.Join(words, " ") + "."
	case last == "at" || last == "date":
		return "When: " + strings.Join(words, " ") + " (RFC 3339)."
	}
	s := strings.Join(words, " ")
	return strings.ToUpper(s[:1]) + s[1:] + "."
}

// splitWords splits camelCase, snake_case and ALLCAPS runs into lower-case
// words.
func splitWords(name string) []string {
	var words []string
	var cur []rune
	rs := []rune(name)
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	for i, r := range rs {
		switch {
		case r == '_' || r == '.' || r == '-':
			flush()
		case unicode.IsUpper(r) && len(cur) > 0 && (unicode.IsLower(cur[len(cur)-1]) || (i+1 < len(rs) && unicode.IsLower(rs[i+1]))):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
	}
	flush()
	return words
}
