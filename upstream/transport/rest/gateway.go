package rest

import (
	"encoding/json"
	"net/http"
	"slices"

	"github.com/okrgate/okrgate/upstream"
)

// gatewayTable holds the designed operations a GraphQL gateway needs to
// serve the graph over this API with one call per tree level
// (docs/gateway.md): who the caller is, and listings with a filter where
// the contract has a listing only per parent (check-ins) or none at all
// (taggings, badge assignments), and check-ins with their snapshots in
// pages rather than one read each (for moving an account). They are marked
// Gateway, so that a facade can be run without them
// (Options.NoGatewayRoutes) to test a gateway's fallback to the documented
// operations.
func gatewayTable() []entry {
	const get, ok = http.MethodGet, http.StatusOK
	return []entry{
		{Route{Method: get, Pattern: "/api/v2/users/me", Success: ok, Designed: true, Gateway: true}, (*server).whoami},
		{Route{Method: get, Pattern: "/api/v2/checkins", Params: listParams, Success: ok, Designed: true, Gateway: true}, (*server).listAllCheckIns},
		{Route{Method: get, Pattern: "/api/v2/checkins/snapshots", Params: []string{"sort", "filter", "skip", "limit"}, Success: ok, Designed: true, Gateway: true}, (*server).listCheckInSnapshots},
		{Route{Method: get, Pattern: "/api/v2/integrations/taggings", Params: filteredParams, Success: ok, Designed: true, Gateway: true}, (*server).listTaggings},
		{Route{Method: get, Pattern: "/api/v2/badges/assignments", Params: filteredParams, Success: ok, Designed: true, Gateway: true}, (*server).listBadgeAssignments},
		{Route{Method: get, Pattern: "/api/v2/dashboards/parameters", Params: filteredParams, Success: ok, Designed: true, Gateway: true}, (*server).listDashboardParametersFiltered},
		{Route{Method: get, Pattern: "/api/v2/announcements", Params: listParams, Success: ok, Designed: true, Gateway: true}, (*server).listAnnouncementsFiltered},
		{Route{Method: get, Pattern: "/api/v2/permissions", Params: listParams, Success: ok, Designed: true, Gateway: true}, (*server).listPermissions},
	}
}

// whoami answers the caller the bearer token stands for: user, account,
// roles, and the token's id and scopes.
func (s *server) whoami(w http.ResponseWriter, r *http.Request) (any, error) {
	c, err := upstream.MustCaller(r.Context())
	if err != nil {
		return nil, err
	}
	me := upstream.Whoami{UserID: c.UserID, AccountID: c.AccountID, Roles: nonNilSlice(c.Roles), TokenID: c.TokenID, Scopes: c.Scopes}
	if c.UserID != "" {
		u, err := s.api.GetUser(r.Context(), c.UserID)
		if err != nil && upstream.ErrorCode(err) != upstream.CodeNotFound {
			return nil, err
		}
		if err == nil {
			me.User = &u
		}
	}
	return me, nil
}

// listAllCheckIns lists check-ins of any key results with a filter
// (metricId $in for Metric.checkins).
func (s *server) listAllCheckIns(w http.ResponseWriter, r *http.Request) (any, error) {
	return listed(r, upstream.CheckInFields, func(q upstream.ListQuery) (upstream.Page[upstream.CheckIn], error) {
		return s.api.ListCheckIns(r.Context(), q)
	})
}

// listCheckInSnapshots lists check-ins with the key result as it was right
// after each: an account's history in pages (okrgate import --from).
func (s *server) listCheckInSnapshots(w http.ResponseWriter, r *http.Request) (any, error) {
	return listed(r, upstream.CheckInFields, func(q upstream.ListQuery) (upstream.Page[upstream.CheckInSnapshot], error) {
		return s.api.ListCheckInSnapshots(r.Context(), q)
	})
}

// listTaggings lists tag assignments (Tag.goals, Tag.dashboards).
func (s *server) listTaggings(w http.ResponseWriter, r *http.Request) (any, error) {
	return listed(r, upstream.TaggingFields, func(q upstream.ListQuery) (upstream.Page[upstream.Tagging], error) {
		return s.api.ListTaggings(r.Context(), q)
	})
}

// listBadgeAssignments lists badge assignments in any status with a filter
// (Badge.holders).
func (s *server) listBadgeAssignments(w http.ResponseWriter, r *http.Request) (any, error) {
	return listed(r, upstream.AssignedBadgeFields, func(q upstream.ListQuery) (upstream.Page[upstream.AssignedBadge], error) {
		return s.api.ListAssignedBadges(r.Context(), q)
	})
}

// listDashboardParametersFiltered is the parameter listing with filter and sort.
func (s *server) listDashboardParametersFiltered(w http.ResponseWriter, r *http.Request) (any, error) {
	return listed(r, upstream.DashboardParameterFields, func(q upstream.ListQuery) (upstream.Page[upstream.DashboardParameter], error) {
		return s.api.ListDashboardParameters(r.Context(), q)
	})
}

// listAnnouncementsFiltered is the announcement listing with filter and sort.
func (s *server) listAnnouncementsFiltered(w http.ResponseWriter, r *http.Request) (any, error) {
	return listed(r, upstream.AnnouncementFields, func(q upstream.ListQuery) (upstream.Page[upstream.Announcement], error) {
		return s.api.ListAnnouncements(r.Context(), q)
	})
}

// withoutGatewayParams drops the query parameters designed for gateways
// (include) from e, for a facade with Options.NoGatewayRoutes.
func withoutGatewayParams(e entry) entry {
	e.Params = slices.DeleteFunc(slices.Clone(e.Params), func(p string) bool { return p == "include" })
	return e
}

// documentWithoutGateway is the OpenAPI document without the operations
// marked x-gateway: what a facade with Options.NoGatewayRoutes serves, so
// that a gateway discovers that they are missing.
func documentWithoutGateway() []byte {
	var doc map[string]any
	if err := json.Unmarshal(openAPIDocument, &doc); err != nil {
		return openAPIDocument // cannot happen: the committed document is tested
	}
	paths, _ := doc["paths"].(map[string]any)
	for p, item := range paths {
		ops, _ := item.(map[string]any)
		for m, op := range ops {
			o, ok := op.(map[string]any)
			if ok && o["x-gateway"] == true {
				delete(ops, m)
				continue
			}
			if params, ok := o["parameters"].([]any); ok {
				kept := params[:0]
				for _, p := range params {
					if pm, ok := p.(map[string]any); !ok || pm["x-gateway"] != true {
						kept = append(kept, p)
					}
				}
				o["parameters"] = kept
			}
		}
		if len(ops) == 0 {
			delete(paths, p)
		}
	}
	out, err := json.Marshal(doc)
	if err != nil {
		return openAPIDocument
	}
	return out
}

// listPermissions lists the account's grants with a filter (a refetch of
// many Permission nodes by id).
func (s *server) listPermissions(w http.ResponseWriter, r *http.Request) (any, error) {
	return listed(r, upstream.PermissionFields, func(q upstream.ListQuery) (upstream.Page[upstream.Permission], error) {
		return s.api.ListPermissions(r.Context(), q)
	})
}
