package rest

import (
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"unicode"

	"github.com/okrgate/okrgate/upstream"
)

// The prose of the OpenAPI document: operation summaries and descriptions,
// parameter and response descriptions, tags. Everything is derived from the
// route table (method, pattern, success status, flags) and the handler's
// name, so a route added to the table is described like the others;
// opSpec.desc adds what only that operation does.

// operationSummary is a short title from the handler's name:
// "createMetricCheckIn" → "Create metric check-in".
func operationSummary(handler string) string {
	words := splitCamel(handler)
	s := strings.Join(words, " ")
	s = strings.NewReplacer("check in", "check-in", "kpi", "KPI", "kp is", "KPIs", "api", "API", "open api", "OpenAPI").Replace(s)
	return strings.ToUpper(s[:1]) + s[1:]
}

// splitCamel splits a Go identifier into lower-case words; runs of capitals
// stay one word ("KPIGroups" → "kpi", "groups").
func splitCamel(name string) []string {
	var words []string
	rs := []rune(name)
	start := 0
	for i := 1; i < len(rs); i++ {
		if unicode.IsUpper(rs[i]) && (unicode.IsLower(rs[i-1]) || (i+1 < len(rs) && unicode.IsLower(rs[i+1]))) {
			words = append(words, strings.ToLower(string(rs[start:i])))
			start = i
		}
	}
	return append(words, strings.ToLower(string(rs[start:])))
}

// operationDescription says what the operation does and under which rules,
// from the route's facts, followed by the operation's own text.
func operationDescription(e entry, sp opSpec) string {
	var b strings.Builder
	one, many := resourceNouns(e, sp)
	// A feed read after a position (after) is not paged by skip.
	list := (hasParam(e, "limit") || hasParam(e, "take")) && !hasParam(e, "after")
	verb := splitCamel(handlerName(e.h))[0]
	plain := map[string]bool{"create": true, "get": true, "list": true, "update": true, "delete": true, "set": true, "replace": true}[verb]
	switch {
	case !plain && !list && e.Method == http.MethodGet:
		fmt.Fprintf(&b, "Reads %s. ", strings.Join(splitCamel(handlerName(e.h)), " "))
	case !plain && !list:
		// An action ("approveBadge", "removeTeamMember"): its name says it.
		fmt.Fprintf(&b, "%s; answers %d. ", operationSummary(handlerName(e.h)), e.Success)
	case e.Method == http.MethodGet && list:
		fmt.Fprintf(&b, "Lists %s of the caller's account, one page at a time (skip, then limit or take: default %d, at most %d; above the maximum is a 400, never a silent clamp). ",
			many, upstream.DefaultLimit, upstream.MaxLimit)
		if hasParam(e, "filter") && !isGroupBy(e) {
			b.WriteString("filter takes the Mongo-style filter language on the resource's registered fields (GET /api/v1/lists/{targetType}/schema lists them); an unknown field or operator is a 400. ")
		}
		if hasParam(e, "sort") {
			b.WriteString("Every sort ends with the id, so paging is stable. ")
		}
	case e.Method == http.MethodGet && strings.Contains(e.Pattern, "{"):
		fmt.Fprintf(&b, "Reads %s. An id that does not exist, or that the caller may not see, is a 404 not_found. ", withArticle(one))
	case e.Method == http.MethodGet:
		fmt.Fprintf(&b, "Reads %s. ", many)
	case e.Method == http.MethodPost && e.Success == http.StatusCreated:
		fmt.Fprintf(&b, "Creates %s and answers it with 201. An invalid body is a 400 invalid_input naming the fields. ", withArticle(one))
	case e.Method == http.MethodPatch:
		fmt.Fprintf(&b, "Changes %s: the fields given in the body change, fields left out keep their value. Answers the item as stored. ", withArticle(one))
	case e.Method == http.MethodPut:
		fmt.Fprintf(&b, "Sets %s as given in the request. ", withArticle(one))
	case e.Method == http.MethodDelete:
		fmt.Fprintf(&b, "Deletes %s; 204 without a body. ", withArticle(one))
	case e.Method == http.MethodPost:
		fmt.Fprintf(&b, "Acts on %s; answers %d. ", withArticle(one), e.Success)
	}
	if sp.desc != "" {
		b.WriteString(sp.desc + " ")
	}
	if e.Account {
		b.WriteString("Needs the service-accountId header, equal to the token's account. ")
	}
	if e.Versioned != "" {
		b.WriteString("Answers carry an ETag; a write with If-Match changes nothing unless the stored version matches (412 precondition_failed). ")
	}
	if e.Idempotent {
		b.WriteString("An Idempotency-Key header makes a retry safe: the same key and body answer the recorded answer. ")
	}
	if e.Designed {
		b.WriteString("Designed by okrgate where the contract shows no such operation (docs/contract.md).")
	} else {
		b.WriteString("An operation of the documented contract.")
	}
	if e.Deprecated {
		if e.Successor != "" {
			b.WriteString(" Deprecated; successor: " + e.Successor + ".")
		} else {
			b.WriteString(" Deprecated as of 2022-03-15; the feature is retired (no successor).")
		}
	}
	return strings.TrimSpace(b.String())
}

func hasParam(e entry, name string) bool {
	for _, p := range e.Params {
		if p == name {
			return true
		}
	}
	return false
}

func isGroupBy(e entry) bool { return strings.Contains(e.Pattern, "/groupBy/") }

// resourceNouns names what an operation works on, singular and plural,
// from its response type (the element type of a page or list), else its
// body type, else the path's tag: "dashboard parameter", "check-in".
func resourceNouns(e entry, sp opSpec) (one, many string) {
	var t reflect.Type
	switch {
	case sp.resp != nil:
		t = reflect.TypeOf(sp.resp)
	case sp.body != nil:
		t = reflect.TypeOf(sp.body)
	}
	for t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Pointer) {
		t = t.Elem()
	}
	if t != nil && t.Kind() == reflect.Struct && (strings.Contains(t.Name(), "Page[") || strings.HasPrefix(t.Name(), "itemsOf[")) {
		for i := 0; i < t.NumField(); i++ {
			if f := t.Field(i); f.Type.Kind() == reflect.Slice {
				t = f.Type.Elem()
				break
			}
		}
	}
	if t == nil || t.Kind() != reflect.Struct || t.Name() == "" {
		// No types: the handler's name without its verb ("deleteRoleMapping").
		one = strings.Join(splitCamel(handlerName(e.h))[1:], " ")
	} else {
		name := strings.TrimSuffix(strings.TrimSuffix(schemaName(t), "Input"), "Patch")
		one = strings.Join(splitCamel(name), " ")
	}
	one = strings.NewReplacer("check in", "check-in", "kpi", "KPI").Replace(one)
	switch {
	case strings.HasSuffix(one, "y") && !strings.HasSuffix(one, "ey"):
		many = one[:len(one)-1] + "ies"
	case strings.HasSuffix(one, "s"):
		many = one
	default:
		many = one + "s"
	}
	return one, many
}

// withArticle prefixes a or an ("a user": words starting with u take a).
func withArticle(noun string) string {
	if noun != "" && strings.ContainsRune("aeio", rune(noun[0])) {
		return "an " + noun
	}
	return "a " + noun
}

// pathParamDoc describes a path parameter.
func pathParamDoc(e entry, name string) (desc string, enum []string) {
	switch {
	case name == "itemType" && strings.HasSuffix(e.Pattern, "/{itemType}"):
		return "the item type whose default access to read: session or dashboard (anything else is a 404)", []string{"session", "dashboard"}
	case name == "itemType":
		return "the type of the item: session, goal or dashboard", []string{"session", "goal", "dashboard"}
	case name == "targetType":
		return "a list target type (GET /api/v1/lists/supported-types)", upstream.ListTargetTypes()
	case name == "tag":
		return "the tag's name (lowercased title)", nil
	case name == "id" && strings.HasPrefix(e.Pattern, "/api/v1/roles/account/mapping/"):
		return "the role mapping's id: the mappingId of a mapping (POST /api/v1/roles/account/mapping, GET /api/v1/roles/account/mapping/), not the role's id", nil
	case name == "id" || strings.HasSuffix(name, "Id"):
		what := strings.TrimSuffix(name, "Id")
		if name == "id" {
			what = tagOf(e.Pattern)
		}
		return "id of the " + strings.Join(splitCamel(what), " ") + " (24 lowercase hex characters)", nil
	}
	return name, nil
}

// queryParam documents a query parameter of the route e.
func queryParam(e entry, name string) map[string]any {
	schema := map[string]any{"type": "string"}
	desc := name
	switch name {
	case "skip":
		schema = map[string]any{"type": "integer", "minimum": 0, "default": 0}
		desc = "number of items to skip"
	case "after":
		schema = map[string]any{"type": "integer", "minimum": 0, "default": 0}
		desc = "a log position: the events after it (0: from the oldest event kept)"
	case "limit", "take":
		schema = map[string]any{"type": "integer", "minimum": 1, "maximum": upstream.MaxLimit, "default": upstream.DefaultLimit}
		desc = fmt.Sprintf("page size, at most %d; above the maximum is a 400", upstream.MaxLimit)
		if hasParam(e, "limit") && hasParam(e, "take") {
			desc += "; take is the older endpoints' name for limit (give one of them)"
		}
		if hasParam(e, "after") {
			schema = map[string]any{"type": "integer", "minimum": 0, "maximum": upstream.MaxFeedEvents, "default": upstream.DefaultFeedEvents}
			desc = fmt.Sprintf("events per page, at most %d; 0 answers the head only", upstream.MaxFeedEvents)
		}
	case "includeDemo":
		schema = map[string]any{"type": "boolean", "default": false}
		desc = "include demo sessions"
	case "includeMetrics":
		schema = map[string]any{"type": "boolean", "default": false}
		desc = "embed each objective's key results"
	case "formatting":
		schema = map[string]any{"type": "string", "enum": []string{upstream.MentionsMarkup, upstream.PlainText}, "default": upstream.MentionsMarkup}
		desc = "mentionsMarkup returns text as stored (@[Name:email:id]); plainText turns mentions into @Name"
	case "filter":
		desc = `a filter in the Mongo-style filter language (relaxed JSON), e.g. {"attainment":{"$gte":0.5}}; operators $eq $ne $gt $gte $lt $lte $in $nin $regex $exists $and $or $nor $not`
		schema = map[string]any{"type": "string", "examples": []any{`{"attainment":{"$gte":0.5}}`}}
		if isGroupBy(e) {
			desc = "a deadline filter, NOT the filter language: current, past or future (the objectives whose period contains, ended before or starts after today); anything else is a 400"
			schema = map[string]any{"type": "string", "enum": []string{"current", "past", "future"}}
		}
		if e.Pattern == "/api/v1/sessions" {
			desc = "a named period — current (start ≤ now ≤ end), past (ended) or future (not begun) — or a filter in the filter language (relaxed JSON), e.g. {\"title\":\"Q1\"}"
			schema = map[string]any{"type": "string", "examples": []any{"current"}}
		}
	case "sort":
		desc = "comma-separated fields, - for descending, e.g. -attainment,name; the id is always the last key"
		schema = map[string]any{"type": "string", "examples": []any{"-attainment,name"}}
	case "fields":
		desc = "projection: comma-separated fields, nested as metrics{id,name}; id and accountId are always returned, and only the fields named besides them; " +
			"a name the resource does not have selects nothing and is named in the " + IgnoredFieldsHeader + " response header as fields.<path> (fields.displayName)"
		schema = map[string]any{"type": "string", "examples": []any{"name,attainment,metrics{id,name}"}}
	case "include":
		desc = "instead of fields, for a client that keeps whole documents (a gateway): every stored field is returned, " +
			"and of the computed ones (assignee, assignees, tags, currentUserAllowedActions) and the embedded metrics and tasks only those named, nested as metrics{assignee}; " +
			"empty computes none; not with fields"
		schema = map[string]any{"type": "string", "examples": []any{"assignee,tags,metrics{assignee}"}}
	case "ids":
		desc = "comma-separated objective ids"
	case "ownerIds":
		desc = "comma-separated owner ids (users or teams)"
	case "metricOwnerId":
		desc = "comma-separated ids of key-result owners"
	case "confidence", "attainment", "metricAttainment":
		desc = "a comparison with a number: <, <=, >, >= or = followed by the number, e.g. >=0.5; a number alone means ="
		schema = map[string]any{"type": "string", "pattern": ComparisonPattern, "examples": []any{">=0.5", "0.5"}}
	case "expand":
		desc = "comma-separated embeddings: tasks embeds the key result's tasks in its tasks field (as fields=…,tasks does); any other value is a 400"
		schema = map[string]any{"type": "string", "examples": []any{"tasks"}}
	case "from", "to":
		desc = "an RFC 3339 timestamp or a yyyy-mm-dd date: the check-ins observed from (to) then; a date-only to covers its whole day; leave out for no bound"
		schema = map[string]any{"type": "string", "examples": []any{"2026-01-01"}}
	case "metricBefore", "metricAfter":
		desc = "a date, yyyy-mm-dd: key results checked in before/after it"
		schema = map[string]any{"type": "string", "format": "date"}
	case "name":
		desc = "part of the tag name, case-insensitive; empty matches all"
	case "sessionId", "goalId", "ownerId", "parentId":
		desc = "only the items whose " + name + " is this id, or any of a comma-separated list of ids (added to the filter with AND)"
	case "status":
		desc = "only the items with this status, or any of a comma-separated list (added to the filter with AND)"
		if e.Pattern == "/api/v1/sessions" {
			desc = "open, locked or closed, or a comma-separated list of them (added to the filter with AND)"
		}
	}
	p := map[string]any{"name": name, "in": "query", "schema": schema, "description": desc}
	if name == "include" {
		p["x-gateway"] = true
	}
	if name == "name" {
		p["required"] = true
	}
	return p
}

// statusDoc describes an error status of an operation.
func statusDoc(st int) string {
	switch st {
	case http.StatusBadRequest:
		return "bad input: invalid_input (with the fields in errors), invalid_filter, unknown_parameter, account_header_missing, limit_exceeded"
	case http.StatusUnauthorized:
		return "no or unknown bearer token (unauthenticated); the WWW-Authenticate header says Bearer"
	case http.StatusPaymentRequired:
		return "the account is suspended (account_suspended)"
	case http.StatusForbidden:
		return "the caller may not do this (forbidden), the account header is another account's, or the session's state forbids the write (session_locked, session_closed, goal_abandoned)"
	case http.StatusNotFound:
		return "no such item, or not visible to the caller (not_found)"
	case http.StatusConflict:
		return "the write conflicts with the stored data (conflict), e.g. a duplicate or a session that still holds objectives"
	case http.StatusPreconditionFailed:
		return "If-Match named no current version: nothing was written (precondition_failed)"
	case http.StatusRequestEntityTooLarge:
		return "the body is larger than the server accepts"
	case http.StatusRequestURITooLong:
		return "the URL is longer than the server accepts"
	case http.StatusRequestHeaderFieldsTooLarge:
		return "the headers are larger than the server accepts"
	case http.StatusUnsupportedMediaType:
		return "the body is not JSON (Content-Type application/json)"
	case http.StatusUnprocessableEntity:
		return "the Idempotency-Key was used with another body (idempotency_key_reused)"
	case http.StatusServiceUnavailable:
		return "the database (in gateway mode, the upstream) is unavailable (unavailable, upstream_unavailable), the request ran past its deadline " +
			"(timeout: --rest-read-timeout for reads, --db-write-timeout for writes), or the connection broke while a write was committing " +
			"(outcome_unknown: retry with the same Idempotency-Key, which applies it at most once); Retry-After says when to retry"
	case http.StatusInsufficientStorage:
		return "the database has no space left for the write (storage_full); reads still work, and writes will once an operator frees space"
	case http.StatusInternalServerError:
		return "internal error: the body says only that, with the request id found in the server log"
	}
	return http.StatusText(st)
}

// problemExample is the example body of an error status.
func problemExample(st int) map[string]any {
	code := map[int]upstream.Code{
		400: upstream.CodeInvalid, 401: upstream.CodeUnauthenticated, 402: upstream.CodePaymentRequired, 403: upstream.CodeForbidden,
		404: upstream.CodeNotFound, 409: upstream.CodeConflict, 412: upstream.CodePreconditionFailed, 413: codeTooLarge,
		414: codeURITooLong, 415: codeUnsupportedMediaType, 422: "idempotency_key_reused", 431: codeHeadersTooLarge, 500: upstream.CodeInternal,
		503: upstream.CodeDatabaseUnavailable, 507: upstream.CodeStorageFull,
	}[st]
	ex := map[string]any{"type": "urn:okrgate:problem:" + string(code), "title": http.StatusText(st), "status": st,
		"detail": statusDoc(st), "code": string(code), "requestId": "7e604a34d5fd7524c6a05fde65aa2ccc"}
	if st == http.StatusBadRequest {
		ex["detail"] = "name: must not be empty"
		ex["errors"] = []any{map[string]any{"field": "name", "message": "must not be empty"}}
	}
	return ex
}

// tagDoc describes a tag (the first path segment that names a resource).
func tagDoc(tag string) string {
	if d, ok := map[string]string{
		"goals":         "Objectives: the tree of goals of a session, with attainment aggregated from key results and child objectives.",
		"metrics":       "Key results: measurable targets of an objective, changed by check-ins.",
		"tasks":         "Tasks under objectives or key results.",
		"sessions":      "Sessions: the periods (quarters, years) objectives belong to, open, locked or closed.",
		"accounts":      "The company account and its settings.",
		"users":         "Users of the account and their API tokens.",
		"employees":     "Users as employees: teams, managers, reporting lines.",
		"teams":         "Teams, their members and managers.",
		"roles":         "Roles and their mappings to teams.",
		"permissions":   "Who may do what: actions, grants, default and item access.",
		"tags":          "Tags on objectives, dashboards and insights.",
		"badges":        "Badges, their assignment and approval.",
		"dashboards":    "Dashboards, their parameters and tags.",
		"kpis":          "KPIs and KPI groups.",
		"lists":         "Saved lists over a target type, with their columns, filter and sort.",
		"announcements": "Announcements and reactions.",
		"comments":      "Comments on key results, shown to whoever may read the key result.",
		"webhooks":      "Webhooks: signed HTTP deliveries of the account's events to an integration, with their retries (docs/webhooks.md). Admins only.",
		"events":        "The event feed: the account's event log by position, as the caller may see it, for a gateway or an integration that follows changes (docs/rest.md).",
		"fileserver":    "Users' pictures: uploaded as the real platform's uploader sends them, served without credentials at the URL the user's picture holds (docs/rest.md, \"Avatars\").",
		"meta":          "The document itself.",
	}[tag]; ok {
		return d
	}
	return "Operations under /" + tag + "."
}

// inputExample is the example body of a request type, or nil.
func inputExample(t reflect.Type) any {
	const goal, session = "6b038d1307d8eca68027b2dd", "6b038d1307d8eca68027b2b5"
	return map[string]any{
		"GoalInput":    map[string]any{"name": "Grow revenue in EMEA", "sessionId": session, "attainmentTypeString": "average_kr"},
		"GoalPatch":    map[string]any{"name": "Grow revenue in EMEA and the UK"},
		"MetricInput":  map[string]any{"name": "New ARR (k€)", "goalId": goal, "initialValue": 0, "target": 500, "targetOperator": "at_least"},
		"MetricPatch":  map[string]any{"target": 600},
		"CheckInInput": map[string]any{"actual": 120, "comment": "two deals signed", "confidence": 0.7},
		"TaskInput":    map[string]any{"name": "Prepare the pricing page", "parentId": goal, "parentType": "goal", "status": "todo", "priority": 2},
		"TaskPatch":    map[string]any{"status": "done"},
		"SessionInput": map[string]any{"title": "Q1 2027", "start": "2027-01-01", "end": "2027-03-31"},
		"SessionPatch": map[string]any{"status": "locked"},
		"TeamInput":    map[string]any{"name": "Sales EMEA"},
		"UserInput":    map[string]any{"email": "ana@example.org", "firstName": "Ana", "lastName": "Lopez"},
		"TagInput":     map[string]any{"title": "Growth"},
		"TokenInput":   map[string]any{"name": "ci", "expiresIn": 2592000},
	}[t.Name()]
}

// typeDoc describes a schema (a Go type).
func typeDoc(t reflect.Type) string {
	name := schemaName(t)
	if d, ok := typeDocs[name]; ok {
		return d
	}
	words := strings.Join(splitCamel(strings.NewReplacer("_", "").Replace(name)), " ")
	switch {
	case strings.HasPrefix(name, "Page_"), strings.HasPrefix(name, "CountedPage_"), strings.HasPrefix(name, "TagsPage_"):
		return "A page of " + strings.Join(splitCamel(name[strings.IndexByte(name, '_')+1:]), " ") + " items: the items of this page and the number matching the query over all pages."
	case strings.HasPrefix(name, "itemsOf_"):
		return "A list of " + strings.Join(splitCamel(strings.TrimPrefix(name, "itemsOf_")), " ") + " items."
	case strings.HasSuffix(name, "Input"):
		return "The body that creates or sets a " + strings.TrimSuffix(words, " input") + "."
	case strings.HasSuffix(name, "Patch"):
		return "The body that changes a " + strings.TrimSuffix(words, " patch") + ": only the fields given change."
	}
	return "A " + words + ", as the API answers it."
}

// webhookDesc opens the description of every webhook operation.
const webhookDesc = "Admins only; another account's webhooks are not found."

var typeDocs = map[string]string{
	"Webhook":          "A webhook as listings answer it: its secret is never shown again after creation, only a fingerprint of it (secretPrefix).",
	"NewWebhook":       "A webhook with its secret: the answer of a creation, or of an update that replaced the secret. Keep the secret: it is not shown again.",
	"UpdatedWebhook":   "A webhook after an update; secret is present only when the update replaced it.",
	"WebhookDelivery":  "One event sent (or to be sent) to one webhook, with every attempt made.",
	"EventFeed":        "A page of the event feed: the events after the position asked for, and the head of the log when they were read.",
	"FeedEvent":        "An event of the log as the caller sees it: what happened to which item, or for an item the caller may not read only its position, marked hidden.",
	"WebhookAttempt":   "One attempt of a delivery: the receiver's status (0 when there was no answer), the error, and when the next attempt is due.",
	"Goal":             "An objective. Full answers carry every field marked required; with fields= only id, accountId and the fields named.",
	"Metric":           "A key result of an objective. Full answers carry every field marked required; with fields= only id, accountId and the fields named.",
	"CheckIn":          "A check-in: a recorded value of a key result, with the attainment it produced.",
	"MetricValue":      "One point of a key result's value history: the value a check-in set, on its date.",
	"Task":             "A task under an objective or key result, or a free task.",
	"Session":          "A session: the period objectives belong to, with its state, cadence and settings.",
	"User":             "A user of the account.",
	"Team":             "A team of the account.",
	"Account":          "The company account.",
	"Problem":          "An RFC 9457 problem document: every error answer has this shape, with a stable machine code.",
	"Role":             "A role of the account; on role-mapping answers also the team it is mapped to and the mapping's id.",
	"Tag":              "A tag: its identity is the lowercased, trimmed title.",
	"Access":           "Who may see and change an item.",
	"NewToken":         "A new API token: the token itself is shown only here.",
	"Token":            "An API token's metadata (never the token itself).",
	"GoalsGroupedBy":   "Objectives grouped by owner.",
	"ListBody":         "A listing's query sent as a JSON body instead of query parameters.",
	"FieldError":       "One field at fault in a 400 invalid_input.",
	"ModifiedCount":    "How many items an operation changed.",
	"ClosedStatus":     "Whether an objective is active, achieved or abandoned, and why.",
	"MetricFormat":     "How a key result's value is displayed.",
	"Assignee":         "An owner (user or team) as embedded in objectives, key results and tasks.",
	"CheckInInput":     "The body of a check-in: the key result's new actual value.",
	"TagInput":         "Names a tag by its title.",
	"RoleMappingInput": "Maps a role to a team.",
}

// fieldExample is an example value of a property, or nil: ids, timestamps
// and fractions, when the schema's type fits.
func fieldExample(name string, schema map[string]any) any {
	typ := schema["type"]
	isString := typ == "string" || slices.Equal(asStrings(typ), []string{"string", "null"})
	isNumber := typ == "number" || slices.Equal(asStrings(typ), []string{"number", "null"})
	switch {
	case isString && (name == "id" || name == "accountId" || (strings.HasSuffix(name, "Id") && name != "externalId" && name != "clientId" && name != "subscriptionId")):
		return "6b038d1307d8eca68027b2dd"
	case isString && (strings.HasPrefix(name, "date") || strings.HasSuffix(name, "At") || name == "checkInDate" || name == "lastCheckInDate"):
		return "2026-11-22T10:04:05.123Z"
	case isNumber && strings.Contains(strings.ToLower(name), "attainment"):
		return 0.75
	case isString && name == "email":
		return "ana@example.org"
	}
	return nil
}

func asStrings(v any) []string { s, _ := v.([]string); return s }
