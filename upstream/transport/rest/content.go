package rest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/query"
)

// Query parameter sets of the rest of the contract.
var (
	pageParams     = []string{"skip", "limit"}
	filteredParams = []string{"fields", "sort", "filter", "skip", "limit"}
	tagListParams  = []string{"name", "filter", "sort", "fields", "skip", "take"}
)

// contentTable holds the rest of the contract: tags, badges, dashboards, KPI
// groups, lists and announcements.
func contentTable() []entry {
	const (
		get, post, put, patch, del = http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete
		ok, created, noContent     = http.StatusOK, http.StatusCreated, http.StatusNoContent
		retired                    = "" // the announcements feature is retired: no successor
	)
	return []entry{
		// Announcements (deprecated as of 2022-03-15).
		{Route{Method: get, Pattern: "/api/v1/announcements", Account: true, Deprecated: true, Successor: retired, Params: []string{"formatting", "fields", "skip", "limit"}, Success: ok}, (*server).listAnnouncements},
		{Route{Method: get, Pattern: "/api/v1/announcements/{id}", Operation: "GetAnnouncement", Account: true, Deprecated: true, Successor: retired, Params: []string{"formatting"}, Success: ok}, (*server).getAnnouncement},
		{Route{Method: post, Pattern: "/api/v1/announcements", Operation: "CreateAnnouncement", Account: true, Deprecated: true, Successor: retired, Success: created}, (*server).createAnnouncement},
		{Route{Method: post, Pattern: "/api/v1/announcements/{id}/react", Account: true, Deprecated: true, Successor: retired, Success: ok}, (*server).reactToAnnouncement},
		{Route{Method: patch, Pattern: "/api/v1/announcements/{id}", Operation: "UpdateAnnouncement", Account: true, Deprecated: true, Successor: retired, Success: ok}, (*server).updateAnnouncement},
		{Route{Method: del, Pattern: "/api/v1/announcements/{id}", Operation: "DeleteAnnouncement", Account: true, Deprecated: true, Successor: retired, Success: noContent}, (*server).deleteAnnouncement},

		// KPI groups, and the KPIs they hold (designed).
		{Route{Method: get, Pattern: "/api/v1/kpis/groups", Operation: "ListKPIGroups", Account: true, Params: filteredParams, Success: ok}, (*server).listKPIGroups},
		{Route{Method: get, Pattern: "/api/v1/kpis/groups/{groupId}", Operation: "GetKPIGroup", Account: true, Success: ok}, (*server).getKPIGroup},
		{Route{Method: post, Pattern: "/api/v1/kpis/groups", Operation: "CreateKPIGroup", Account: true, Success: created}, (*server).createKPIGroup},
		{Route{Method: patch, Pattern: "/api/v1/kpis/groups/{groupId}", Operation: "UpdateKPIGroup", Account: true, Success: ok}, (*server).updateKPIGroup},
		{Route{Method: del, Pattern: "/api/v1/kpis/groups/{groupId}", Operation: "DeleteKPIGroup", Account: true, Success: noContent}, (*server).deleteKPIGroup},
		{Route{Method: put, Pattern: "/api/v1/kpis/groups/{groupId}/favorite", Success: noContent}, (*server).favoriteKPIGroup},
		{Route{Method: del, Pattern: "/api/v1/kpis/groups/{groupId}/favorite", Success: noContent}, (*server).unfavoriteKPIGroup},
		{Route{Method: put, Pattern: "/api/v1/kpis/{kpiId}/groups/{groupId}", Account: true, Success: noContent}, (*server).addKPIToGroup},
		{Route{Method: del, Pattern: "/api/v1/kpis/{kpiId}/groups/{groupId}", Account: true, Success: noContent}, (*server).removeKPIFromGroup},
		{Route{Method: get, Pattern: "/api/v1/kpis", Operation: "ListKPIs", Account: true, Params: listParams, Success: ok, Designed: true}, (*server).listKPIs},
		{Route{Method: post, Pattern: "/api/v1/kpis", Operation: "CreateKPI", Account: true, Success: created, Designed: true}, (*server).createKPI},
		{Route{Method: get, Pattern: "/api/v1/kpis/{kpiId}", Operation: "GetKPI", Account: true, Params: viewParams, Success: ok, Designed: true}, (*server).getKPI},
		{Route{Method: patch, Pattern: "/api/v1/kpis/{kpiId}", Operation: "UpdateKPI", Account: true, Success: ok, Designed: true}, (*server).updateKPI},
		{Route{Method: del, Pattern: "/api/v1/kpis/{kpiId}", Operation: "DeleteKPI", Account: true, Success: noContent, Designed: true}, (*server).deleteKPI},

		// Lists.
		{Route{Method: get, Pattern: "/api/v1/lists", Operation: "ListLists", Account: true, Params: filteredParams, Success: ok}, (*server).listLists},
		{Route{Method: get, Pattern: "/api/v1/lists/supported-types", Account: true, Success: ok}, (*server).listSupportedTypes},
		{Route{Method: get, Pattern: "/api/v1/lists/{listId}", Operation: "GetList", Account: true, Success: ok}, (*server).getList},
		{Route{Method: get, Pattern: "/api/v1/lists/{targetType}/schema", Operation: "ListTargetSchema", Account: true, Success: ok}, (*server).listSchema},
		{Route{Method: post, Pattern: "/api/v1/lists", Operation: "CreateList", Account: true, Success: created}, (*server).createList},
		{Route{Method: post, Pattern: "/api/v1/lists/{id}/clone", Operation: "CloneList", Account: true, Success: created}, (*server).cloneList},
		{Route{Method: post, Pattern: "/api/v1/lists/{id}/load", Operation: "LoadList", Account: true, Deprecated: true, Successor: "/api/v2/integrations/goals", Success: ok}, (*server).loadList},
		{Route{Method: patch, Pattern: "/api/v1/lists/{id}", Operation: "UpdateList", Account: true, Success: ok}, (*server).updateList},
		{Route{Method: del, Pattern: "/api/v1/lists/{id}", Operation: "DeleteList", Account: true, Success: noContent}, (*server).deleteList},

		// Tags.
		{Route{Method: get, Pattern: "/api/v2/integrations/tags", Params: tagListParams, Success: ok}, (*server).listTags},
		{Route{Method: post, Pattern: "/api/v1/dashboards/{dashboardId}/tags", Account: true, Success: ok}, (*server).addDashboardTag},
		{Route{Method: post, Pattern: "/api/v2/integrations/insights/{id}/tags", Account: true, Success: created}, (*server).addInsightTag},
		{Route{Method: post, Pattern: "/api/v1/tags", Account: true, Success: ok}, (*server).createTags},
		{Route{Method: post, Pattern: "/api/v1/tags/activate", Account: true, Success: ok}, (*server).activateTags},
		{Route{Method: post, Pattern: "/api/v1/tags/deactivate", Account: true, Success: ok}, (*server).deactivateTags},

		// Dashboard parameters.
		{Route{Method: get, Pattern: "/api/v1/dashboards/parameters", Account: true, Params: pageParams, Success: ok}, (*server).listDashboardParameters},
		{Route{Method: get, Pattern: "/api/v1/dashboards/parameters/{parameterId}", Operation: "GetDashboardParameter", Account: true, Success: ok}, (*server).getDashboardParameter},
		{Route{Method: post, Pattern: "/api/v1/dashboards/parameters", Operation: "CreateDashboardParameter", Account: true, Success: created}, (*server).createDashboardParameter},
		{Route{Method: put, Pattern: "/api/v1/dashboards/parameters/{parameterId}", Operation: "ReplaceDashboardParameter", Account: true, Success: ok}, (*server).replaceDashboardParameter},
		{Route{Method: del, Pattern: "/api/v1/dashboards/parameters/{parameterId}", Operation: "DeleteDashboardParameter", Account: true, Success: noContent}, (*server).deleteDashboardParameter},

		// Dashboards.
		{Route{Method: get, Pattern: "/api/v2/dashboards", Operation: "ListDashboards", Params: filteredParams, Success: ok}, (*server).listDashboards},
		{Route{Method: get, Pattern: "/api/v1/dashboards/reports", Operation: "DashboardReports", Account: true, Success: ok}, (*server).dashboardReports},
		{Route{Method: get, Pattern: "/api/v1/dashboards/tag/{tag}", Operation: "DashboardsByTag", Account: true, Success: ok}, (*server).dashboardsByTag},
		{Route{Method: get, Pattern: "/api/v1/dashboards/tags/usages", Account: true, Params: []string{"fields"}, Success: ok}, (*server).dashboardTagUsages},
		{Route{Method: get, Pattern: "/api/v1/dashboards/{dashboardId}", Operation: "GetDashboard", Account: true, Success: ok}, (*server).getDashboard},
		{Route{Method: post, Pattern: "/api/v1/dashboards", Operation: "CreateDashboard", Account: true, Success: created, Designed: true}, (*server).createDashboard},
		{Route{Method: patch, Pattern: "/api/v1/dashboards/{dashboardId}", Operation: "UpdateDashboard", Account: true, Success: ok, Designed: true}, (*server).updateDashboard},
		{Route{Method: del, Pattern: "/api/v1/dashboards/{dashboardId}", Operation: "DeleteDashboard", Account: true, Success: noContent, Designed: true}, (*server).deleteDashboard},

		// Badges.
		{Route{Method: get, Pattern: "/api/v1/badges", Operation: "ListBadges", Account: true, Params: filteredParams, Success: ok}, (*server).listBadges},
		{Route{Method: get, Pattern: "/api/v1/badges/approve", Account: true, Params: filteredParams, Success: ok}, (*server).listBadgeApprovals},
		{Route{Method: get, Pattern: "/api/v1/badges/assign", Account: true, Params: filteredParams, Success: ok}, (*server).currentUserBadges},
		{Route{Method: get, Pattern: "/api/v1/badges/assign/{id}", Operation: "BadgeAssignees", Account: true, Success: ok}, (*server).badgeAssignees},
		{Route{Method: get, Pattern: "/api/v1/badges/current", Operation: "CurrentUserBadges", Account: true, Params: filteredParams, Success: ok}, (*server).currentUserBadges},
		{Route{Method: get, Pattern: "/api/v1/badges/{id}", Operation: "GetBadge", Account: true, Success: ok}, (*server).getBadge},
		{Route{Method: post, Pattern: "/api/v1/badges", Operation: "CreateBadge", Account: true, Success: created}, (*server).createBadge},
		{Route{Method: post, Pattern: "/api/v1/badges/approve/{id}", Account: true, Success: ok}, (*server).approveBadge},
		{Route{Method: post, Pattern: "/api/v1/badges/assign", Operation: "AssignBadge", Account: true, Success: ok}, (*server).assignBadge},
		{Route{Method: patch, Pattern: "/api/v1/badges/{id}", Account: true, Success: noContent}, (*server).updateBadge},
		{Route{Method: del, Pattern: "/api/v1/badges/approve/{id}", Account: true, Success: noContent}, (*server).rejectBadge},
		{Route{Method: del, Pattern: "/api/v1/badges/{id}", Operation: "DeleteBadge", Account: true, Success: noContent, Designed: true}, (*server).deleteBadge},
	}
}

// withStatus is a handler result answered with its own success status
// instead of the route's (the insight-tag operation: 201 when the tag is
// added, 200 when the insight already carried it).
type withStatus struct {
	status int
	v      any
}

// Lists whose query comes from the URL or from a JSON body on GET.

// listBody is the JSON body a GET listing may carry instead of query
// parameters: filter (an object, or a string in the filter language), sort,
// fields, skip and limit.
type listBody struct {
	Filter json.RawMessage `json:"filter"`
	Sort   string          `json:"sort"`
	Fields string          `json:"fields"`
	Skip   *int            `json:"skip"`
	Limit  *int            `json:"limit"`
}

// parseListOrBody reads the list query from a JSON body when the request
// has one (then no list query parameter may be sent too), else from the
// query parameters.
func parseListOrBody(w http.ResponseWriter, r *http.Request, reg *query.Registry) (upstream.ListQuery, view, error) {
	if r.ContentLength == 0 || r.Body == nil || r.Body == http.NoBody {
		return parseList(r, reg, "limit")
	}
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err != nil {
		return upstream.ListQuery{}, view{}, upstream.Errorf(codeTooLarge, "the request body is larger than %d bytes", MaxBodyBytes)
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return parseList(r, reg, "limit")
	}
	for _, p := range filteredParams {
		if r.URL.Query().Has(p) {
			return upstream.ListQuery{}, view{}, upstream.Invalid(p, "give the list query either in the body or in the query string, not both")
		}
	}
	r.Body = io.NopCloser(bytes.NewReader(raw))
	var b listBody
	if err := decodeBody(w, r, &b); err != nil {
		return upstream.ListQuery{}, view{}, err
	}
	var lq upstream.ListQuery
	src := string(bytes.TrimSpace(b.Filter))
	if strings.HasPrefix(src, `"`) {
		if err := json.Unmarshal(b.Filter, &src); err != nil {
			return lq, view{}, upstream.Invalid("filter", "must be an object or a string")
		}
	}
	if src == "null" {
		src = ""
	}
	if lq.Filter, err = query.ParseFilter(reg, src); err != nil {
		return lq, view{}, err
	}
	if lq.Sort, err = query.ParseSort(reg, b.Sort); err != nil {
		return lq, view{}, err
	}
	var vw view
	if strings.TrimSpace(b.Fields) != "" {
		if vw, err = parseProjection(reg, b.Fields); err != nil {
			return lq, view{}, err
		}
		lq.Fields = vw.proj
	}
	if b.Skip != nil {
		if *b.Skip < 0 {
			return lq, view{}, upstream.Invalid("skip", "%d is not an integer ≥ 0", *b.Skip)
		}
		lq.Skip = *b.Skip
	}
	lq.Limit = upstream.DefaultLimit
	if b.Limit != nil {
		if *b.Limit < 1 || *b.Limit > upstream.MaxLimit {
			return lq, view{}, upstream.Invalid("limit", "%d is out of range; use 1 to %d", *b.Limit, upstream.MaxLimit)
		}
		lq.Limit = *b.Limit
	}
	return lq, vw, nil
}

// counted runs a list operation for an envelope with count.
func counted[T any](w http.ResponseWriter, r *http.Request, reg *query.Registry, list func(upstream.ListQuery) (upstream.Page[T], error)) (any, error) {
	lq, vw, err := parseListOrBody(w, r, reg)
	if err != nil {
		return nil, err
	}
	p, err := list(lq)
	if err != nil {
		return nil, err
	}
	p = nonNil(p)
	return shaped{v: upstream.CountedPage[T]{Count: len(p.Items), Items: p.Items, TotalCount: p.TotalCount}, view: vw, list: true}, nil
}

// pageOnly reads skip and limit.
func pageOnly(r *http.Request) (upstream.ListQuery, error) {
	var lq upstream.ListQuery
	var err error
	if lq.Skip, err = ParseSkip(r.URL.Query(), "skip"); err != nil {
		return lq, err
	}
	lq.Limit, err = ParseLimit(r.URL.Query(), "limit")
	return lq, err
}

// titleBody reads a {title} body; title is required.
func titleBody(w http.ResponseWriter, r *http.Request) (string, error) {
	var in struct {
		Title *string `json:"title"`
	}
	if err := decodeBody(w, r, &in); err != nil {
		return "", err
	}
	if in.Title == nil {
		return "", upstream.Invalid("title", "is required")
	}
	return *in.Title, nil
}

func nonNilSlice[T any](xs []T) []T {
	if xs == nil {
		return []T{}
	}
	return xs
}
