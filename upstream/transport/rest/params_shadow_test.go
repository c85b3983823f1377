package rest_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/query"
	"github.com/okrgate/okrgate/upstream/transport/rest"
)

// paramsNamingFields are the query parameters of the goal, key-result, task
// and session routes that share their name with a field of the resource's
// registry, each with what the parameter means: the decision a new field of
// that name needs (docs/howto/add-field.md, "Before you start: the
// decisions"). A field added under a parameter's name fails
// TestParamsNamingFieldsDecided until it is decided here and in docs/rest.md.
var paramsNamingFields = map[string]string{
	"GET /api/v2/integrations/goals/groupBy/owners attainment": "the objective's own attainment: the parameter filters on the field",
	"GET /api/v2/integrations/goals/groupBy/owners ownerIds":   "objectives any of whose owners is listed: the parameter filters on the field",
	// The v1 listings' property parameters filter on the field they name
	// (ANDed with filter=; docs/rest.md).
	"GET /api/v1/goals sessionId":   sameField,
	"GET /api/v1/goals ownerId":     sameField,
	"GET /api/v1/goals parentId":    sameField,
	"GET /api/v1/metrics goalId":    sameField,
	"GET /api/v1/metrics sessionId": sameField,
	"GET /api/v1/metrics ownerId":   sameField,
	"GET /api/v1/tasks parentId":    sameField,
	"GET /api/v1/tasks ownerId":     sameField,
	"GET /api/v1/tasks status":      sameField,
	"GET /api/v1/sessions status":   sameField,
	"GET /api/v1/sessions parentId": sameField,
	// Not the session's tags: the goals met are those with one of them.
	"GET /api/v1/sessions/{id}/stats/goalsMet tags": "the tags of the session's objectives, not of the session",
}

// sameField is the decision of a parameter that filters on the field of
// its name.
const sameField = "the field of that name: the parameter filters on it"

// registryOfPath returns the registry of the resource a route's path is
// about, by its first collection segment, nil for the others.
func registryOfPath(pattern string) *query.Registry {
	for _, seg := range strings.Split(pattern, "/") {
		switch seg {
		case "goals":
			return upstream.GoalFields
		case "metrics":
			return upstream.MetricFields
		case "tasks":
			return upstream.TaskFields
		case "sessions":
			return upstream.SessionFields
		}
	}
	return nil
}

// generalParams are the listing's and the view's own parameters, which
// name no field of any item.
var generalParams = map[string]bool{
	"fields": true, "include": true, "sort": true, "filter": true, "skip": true, "limit": true, "take": true,
	"formatting": true, "expand": true,
}

// undecidedParams returns the parameters of routes ("GET /path param")
// that name a field of the route's resource and have no decision in
// decided, and the decisions that name no such parameter.
func undecidedParams(routes []rest.Route, decided map[string]string) (undecided, stale []string) {
	seen := map[string]bool{}
	for _, r := range routes {
		reg := registryOfPath(r.Pattern)
		if reg == nil {
			continue
		}
		for _, p := range r.Params {
			if _, isField := reg.Field(p); generalParams[p] || !isField {
				continue
			}
			key := r.Method + " " + r.Pattern + " " + p
			seen[key] = true
			if decided[key] == "" {
				undecided = append(undecided, key)
			}
		}
	}
	for key := range decided {
		if !seen[key] {
			stale = append(stale, key)
		}
	}
	return undecided, stale
}

// TestParamsNamingFieldsDecided: a query parameter of a goal, key-result,
// task or session route that is also the name of a field of the
// resource's registry is ambiguous (groupBy/owners?confidence= filters on
// the mean confidence of key results; a stored confidence on objectives
// would make it mean either), so each such pair must be decided in
// paramsNamingFields; and every decision there still names a real pair.
// A planted parameter named like a goal field (externalId) is found.
func TestParamsNamingFieldsDecided(t *testing.T) {
	undecided, stale := undecidedParams(rest.Routes(), paramsNamingFields)
	for _, key := range undecided {
		t.Errorf("%s: the parameter is also a field of the resource; decide which one it means in paramsNamingFields and docs/rest.md", key)
	}
	for _, key := range stale {
		t.Errorf("paramsNamingFields: %q names no parameter that is a field any more", key)
	}
	planted := append(rest.Routes(), rest.Route{Method: "GET", Pattern: "/api/v2/integrations/goals/planted", Params: []string{"limit", "externalId"}})
	if got, _ := undecidedParams(planted, paramsNamingFields); !slices.Contains(got, "GET /api/v2/integrations/goals/planted externalId") {
		t.Errorf("planted parameter externalId not found: %v", got)
	}
}
