package rest

import (
	"net/http"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/query"
)

// Announcements.

func (s *server) listAnnouncements(w http.ResponseWriter, r *http.Request) (any, error) {
	return listed(r, upstream.AnnouncementFields, func(q upstream.ListQuery) (upstream.Page[upstream.Announcement], error) {
		return s.api.ListAnnouncements(r.Context(), q)
	})
}

func (s *server) getAnnouncement(w http.ResponseWriter, r *http.Request) (any, error) {
	return one(r, "id", "announcement", nil, func(id string) (upstream.Announcement, error) {
		return s.api.GetAnnouncement(r.Context(), id)
	})
}

func (s *server) createAnnouncement(w http.ResponseWriter, r *http.Request) (any, error) {
	return create(w, r, func(a upstream.Announcement) string { return "/api/v1/announcements/" + a.ID },
		func(in upstream.AnnouncementInput) (upstream.Announcement, error) {
			return s.api.CreateAnnouncement(r.Context(), in)
		})
}

func (s *server) reactToAnnouncement(w http.ResponseWriter, r *http.Request) (any, error) {
	return update(w, r, "id", "announcement", func(id string, in upstream.ReactionInput) (upstream.Announcement, error) {
		return s.api.ReactToAnnouncement(r.Context(), id, in.ReactionID)
	})
}

func (s *server) updateAnnouncement(w http.ResponseWriter, r *http.Request) (any, error) {
	return update(w, r, "id", "announcement", func(id string, p upstream.AnnouncementPatch) (upstream.Announcement, error) {
		return s.api.UpdateAnnouncement(r.Context(), id, p)
	})
}

func (s *server) deleteAnnouncement(w http.ResponseWriter, r *http.Request) (any, error) {
	return remove(r, "id", "announcement", func(id string) error { return s.api.DeleteAnnouncement(r.Context(), id) })
}

// KPI groups and KPIs.

func (s *server) listKPIGroups(w http.ResponseWriter, r *http.Request) (any, error) {
	return counted(w, r, upstream.KPIGroupFields, func(q upstream.ListQuery) (upstream.Page[upstream.KPIGroup], error) {
		return s.api.ListKPIGroups(r.Context(), q)
	})
}

func (s *server) getKPIGroup(w http.ResponseWriter, r *http.Request) (any, error) {
	return one(r, "groupId", "KPI group", nil, func(id string) (upstream.KPIGroup, error) {
		return s.api.GetKPIGroup(r.Context(), id)
	})
}

func (s *server) createKPIGroup(w http.ResponseWriter, r *http.Request) (any, error) {
	return create(w, r, func(g upstream.KPIGroup) string { return "/api/v1/kpis/groups/" + g.ID },
		func(in upstream.KPIGroupInput) (upstream.KPIGroup, error) {
			return s.api.CreateKPIGroup(r.Context(), in)
		})
}

func (s *server) updateKPIGroup(w http.ResponseWriter, r *http.Request) (any, error) {
	return update(w, r, "groupId", "KPI group", func(id string, in upstream.KPIGroupInput) (upstream.KPIGroup, error) {
		return s.api.UpdateKPIGroup(r.Context(), id, in)
	})
}

func (s *server) deleteKPIGroup(w http.ResponseWriter, r *http.Request) (any, error) {
	return remove(r, "groupId", "KPI group", func(id string) error { return s.api.DeleteKPIGroup(r.Context(), id) })
}

func (s *server) favoriteKPIGroup(w http.ResponseWriter, r *http.Request) (any, error) {
	return remove(r, "groupId", "KPI group", func(id string) error { return s.api.SetKPIGroupFavorite(r.Context(), id, true) })
}

func (s *server) unfavoriteKPIGroup(w http.ResponseWriter, r *http.Request) (any, error) {
	return remove(r, "groupId", "KPI group", func(id string) error { return s.api.SetKPIGroupFavorite(r.Context(), id, false) })
}

func (s *server) kpiMembership(r *http.Request, member bool) (any, error) {
	kpi, err := pathID(r, "kpiId", "KPI")
	if err != nil {
		return nil, err
	}
	return remove(r, "groupId", "KPI group", func(group string) error {
		return s.api.SetKPIInGroup(r.Context(), kpi, group, member)
	})
}

func (s *server) addKPIToGroup(w http.ResponseWriter, r *http.Request) (any, error) {
	return s.kpiMembership(r, true)
}

func (s *server) removeKPIFromGroup(w http.ResponseWriter, r *http.Request) (any, error) {
	return s.kpiMembership(r, false)
}

func (s *server) listKPIs(w http.ResponseWriter, r *http.Request) (any, error) {
	return listed(r, upstream.KPIFields, func(q upstream.ListQuery) (upstream.Page[upstream.KPI], error) {
		return s.api.ListKPIs(r.Context(), q)
	})
}

func (s *server) createKPI(w http.ResponseWriter, r *http.Request) (any, error) {
	return create(w, r, func(k upstream.KPI) string { return "/api/v1/kpis/" + k.ID },
		func(in upstream.KPIInput) (upstream.KPI, error) { return s.api.CreateKPI(r.Context(), in) })
}

func (s *server) getKPI(w http.ResponseWriter, r *http.Request) (any, error) {
	return one(r, "kpiId", "KPI", upstream.KPIFields, func(id string) (upstream.KPI, error) {
		return s.api.GetKPI(r.Context(), id)
	})
}

func (s *server) updateKPI(w http.ResponseWriter, r *http.Request) (any, error) {
	return update(w, r, "kpiId", "KPI", func(id string, p upstream.KPIPatch) (upstream.KPI, error) {
		return s.api.UpdateKPI(r.Context(), id, p)
	})
}

func (s *server) deleteKPI(w http.ResponseWriter, r *http.Request) (any, error) {
	return remove(r, "kpiId", "KPI", func(id string) error { return s.api.DeleteKPI(r.Context(), id) })
}

// Lists.

func (s *server) listLists(w http.ResponseWriter, r *http.Request) (any, error) {
	return listed(r, upstream.ListFields, func(q upstream.ListQuery) (upstream.Page[upstream.List], error) {
		return s.api.ListLists(r.Context(), q)
	})
}

func (s *server) listSupportedTypes(w http.ResponseWriter, r *http.Request) (any, error) {
	ts, err := s.api.ListTargetTypes(r.Context())
	if err != nil {
		return nil, err
	}
	return upstream.SupportedTypes{SupportedTypes: nonNilSlice(ts)}, nil
}

func (s *server) getList(w http.ResponseWriter, r *http.Request) (any, error) {
	return one(r, "listId", "list", nil, func(id string) (upstream.List, error) { return s.api.GetList(r.Context(), id) })
}

func (s *server) listSchema(w http.ResponseWriter, r *http.Request) (any, error) {
	return s.api.ListTargetSchema(r.Context(), urlParam(r, "targetType"))
}

func (s *server) createList(w http.ResponseWriter, r *http.Request) (any, error) {
	return create(w, r, func(l upstream.List) string { return "/api/v1/lists/" + l.ID },
		func(in upstream.ListInput) (upstream.List, error) { return s.api.CreateList(r.Context(), in) })
}

func (s *server) cloneList(w http.ResponseWriter, r *http.Request) (any, error) {
	id, err := pathID(r, "id", "list")
	if err != nil {
		return nil, err
	}
	l, err := s.api.CloneList(r.Context(), id)
	if err != nil {
		return nil, err
	}
	w.Header().Set("Location", "/api/v1/lists/"+l.ID)
	return l, nil
}

// loadList takes an optional body: without one, the list's saved filter,
// sort and fields apply.
func (s *server) loadList(w http.ResponseWriter, r *http.Request) (any, error) {
	id, err := pathID(r, "id", "list")
	if err != nil {
		return nil, err
	}
	var in upstream.ListLoadInput
	if r.ContentLength != 0 && r.Body != nil && r.Body != http.NoBody {
		if err := decodeBody(w, r, &in); err != nil {
			return nil, err
		}
	}
	d, err := s.api.LoadList(r.Context(), id, in)
	if err != nil {
		return nil, err
	}
	if d.Items == nil {
		d.Items = []map[string]any{}
	}
	return d, nil
}

func (s *server) updateList(w http.ResponseWriter, r *http.Request) (any, error) {
	return update(w, r, "id", "list", func(id string, p upstream.ListPatch) (upstream.List, error) {
		return s.api.UpdateList(r.Context(), id, p)
	})
}

func (s *server) deleteList(w http.ResponseWriter, r *http.Request) (any, error) {
	return remove(r, "id", "list", func(id string) error { return s.api.DeleteList(r.Context(), id) })
}

// Tags.

// listTags: name is required (the contract marks it so); "name=" matches
// every tag.
func (s *server) listTags(w http.ResponseWriter, r *http.Request) (any, error) {
	if !r.URL.Query().Has("name") {
		return nil, upstream.Invalid("name", "is required (a part of the tag name; empty matches all)")
	}
	lq, vw, err := parseList(r, upstream.TagFields, "take")
	if err != nil {
		return nil, err
	}
	p, err := s.api.ListTags(r.Context(), upstream.TagQuery{Name: r.URL.Query().Get("name"), ListQuery: lq})
	if err != nil {
		return nil, err
	}
	out, err := render(upstream.Page[upstream.TagDetail]{Items: nonNilSlice(p.Items), TotalCount: p.TotalCount}, vw, true)
	if err != nil {
		return nil, err
	}
	// The tag listing's envelope is {tags, totalCount}.
	if m, ok := out.(map[string]any); ok {
		return map[string]any{"tags": m["items"], "totalCount": m["totalCount"]}, nil
	}
	return upstream.TagsPage[upstream.TagDetail]{Tags: nonNilSlice(p.Items), TotalCount: p.TotalCount}, nil
}

// addDashboardTag answers 200 with the tag, whether or not the dashboard
// already carried it (the contract lists no 304 here).
func (s *server) addDashboardTag(w http.ResponseWriter, r *http.Request) (any, error) {
	id, err := pathID(r, "dashboardId", "dashboard")
	if err != nil {
		return nil, err
	}
	title, err := titleBody(w, r)
	if err != nil {
		return nil, err
	}
	t, _, err := s.api.AddDashboardTag(r.Context(), id, title)
	return t, err
}

// addInsightTag answers 201 when the tag is added, 200 when the insight
// already carried it.
func (s *server) addInsightTag(w http.ResponseWriter, r *http.Request) (any, error) {
	id, err := pathID(r, "id", "insight")
	if err != nil {
		return nil, err
	}
	title, err := titleBody(w, r)
	if err != nil {
		return nil, err
	}
	t, added, err := s.api.AddInsightTag(r.Context(), id, title)
	if err != nil {
		return nil, err
	}
	if !added {
		return withStatus{status: http.StatusOK, v: t}, nil
	}
	return t, nil
}

func (s *server) createTags(w http.ResponseWriter, r *http.Request) (any, error) {
	var in upstream.TagCreateInput
	if err := decodeBody(w, r, &in); err != nil {
		return nil, err
	}
	ts, err := s.api.CreateTags(r.Context(), in)
	if err != nil {
		return nil, err
	}
	return upstream.TagsPage[upstream.Tag]{Tags: nonNilSlice(ts), TotalCount: len(ts)}, nil
}

func (s *server) setTagsActive(w http.ResponseWriter, r *http.Request, active bool) (any, error) {
	var in upstream.TagIDsInput
	if err := decodeBody(w, r, &in); err != nil {
		return nil, err
	}
	if in.TagIDs == nil {
		return nil, upstream.Invalid("tagIds", "is required")
	}
	n, err := s.api.SetTagsActive(r.Context(), in.TagIDs, active)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		state := "inactive"
		if active {
			state = "active"
		}
		return notModified("every tag named is already " + state), nil
	}
	return upstream.ModifiedCount{ModifiedCount: n}, nil
}

func (s *server) activateTags(w http.ResponseWriter, r *http.Request) (any, error) {
	return s.setTagsActive(w, r, true)
}

func (s *server) deactivateTags(w http.ResponseWriter, r *http.Request) (any, error) {
	return s.setTagsActive(w, r, false)
}

// Dashboard parameters.

func (s *server) listDashboardParameters(w http.ResponseWriter, r *http.Request) (any, error) {
	lq, err := pageOnly(r)
	if err != nil {
		return nil, err
	}
	p, err := s.api.ListDashboardParameters(r.Context(), lq)
	if err != nil {
		return nil, err
	}
	return nonNil(p), nil
}

func (s *server) getDashboardParameter(w http.ResponseWriter, r *http.Request) (any, error) {
	return one(r, "parameterId", "dashboard parameter", nil, func(id string) (upstream.DashboardParameter, error) {
		return s.api.GetDashboardParameter(r.Context(), id)
	})
}

func (s *server) createDashboardParameter(w http.ResponseWriter, r *http.Request) (any, error) {
	return create(w, r, func(p upstream.DashboardParameter) string { return "/api/v1/dashboards/parameters/" + p.ID },
		func(in upstream.DashboardParameterInput) (upstream.DashboardParameter, error) {
			return s.api.CreateDashboardParameter(r.Context(), in)
		})
}

func (s *server) replaceDashboardParameter(w http.ResponseWriter, r *http.Request) (any, error) {
	return update(w, r, "parameterId", "dashboard parameter", func(id string, in upstream.DashboardParameterInput) (upstream.DashboardParameter, error) {
		return s.api.ReplaceDashboardParameter(r.Context(), id, in)
	})
}

func (s *server) deleteDashboardParameter(w http.ResponseWriter, r *http.Request) (any, error) {
	return remove(r, "parameterId", "dashboard parameter", func(id string) error {
		return s.api.DeleteDashboardParameter(r.Context(), id)
	})
}

// Dashboards.

func (s *server) listDashboards(w http.ResponseWriter, r *http.Request) (any, error) {
	return counted(w, r, upstream.DashboardFields, func(q upstream.ListQuery) (upstream.Page[upstream.Dashboard], error) {
		return s.api.ListDashboards(r.Context(), q)
	})
}

func (s *server) dashboardReports(w http.ResponseWriter, r *http.Request) (any, error) {
	rs, err := s.api.DashboardReports(r.Context())
	return nonNilSlice(rs), err
}

func (s *server) dashboardsByTag(w http.ResponseWriter, r *http.Request) (any, error) {
	ds, err := s.api.DashboardsByTag(r.Context(), urlParam(r, "tag"))
	return nonNilSlice(ds), err
}

func (s *server) dashboardTagUsages(w http.ResponseWriter, r *http.Request) (any, error) {
	vw, err := parseView(r, upstream.DashboardTagUsageFields)
	if err != nil {
		return nil, err
	}
	us, err := s.api.DashboardTagUsages(r.Context())
	if err != nil {
		return nil, err
	}
	return shaped{v: struct {
		Items []upstream.DashboardTagUsage `json:"items"`
	}{nonNilSlice(us)}, view: vw, list: true}, nil
}

func (s *server) getDashboard(w http.ResponseWriter, r *http.Request) (any, error) {
	return one(r, "dashboardId", "dashboard", nil, func(id string) (upstream.Dashboard, error) {
		return s.api.GetDashboard(r.Context(), id)
	})
}

func (s *server) createDashboard(w http.ResponseWriter, r *http.Request) (any, error) {
	return create(w, r, func(d upstream.Dashboard) string { return "/api/v1/dashboards/" + d.ID },
		func(in upstream.DashboardInput) (upstream.Dashboard, error) {
			return s.api.CreateDashboard(r.Context(), in)
		})
}

func (s *server) updateDashboard(w http.ResponseWriter, r *http.Request) (any, error) {
	return update(w, r, "dashboardId", "dashboard", func(id string, p upstream.DashboardPatch) (upstream.Dashboard, error) {
		return s.api.UpdateDashboard(r.Context(), id, p)
	})
}

func (s *server) deleteDashboard(w http.ResponseWriter, r *http.Request) (any, error) {
	return remove(r, "dashboardId", "dashboard", func(id string) error { return s.api.DeleteDashboard(r.Context(), id) })
}

// Badges.

func (s *server) listBadges(w http.ResponseWriter, r *http.Request) (any, error) {
	return listed(r, upstream.BadgeFields, func(q upstream.ListQuery) (upstream.Page[upstream.Badge], error) {
		return s.api.ListBadges(r.Context(), q)
	})
}

// listBadgeApprovals lists the pending assignments (the approval list).
func (s *server) listBadgeApprovals(w http.ResponseWriter, r *http.Request) (any, error) {
	return listed(r, upstream.AssignedBadgeFields, func(q upstream.ListQuery) (upstream.Page[upstream.AssignedBadge], error) {
		q.Filter = query.And(query.Eq("status", upstream.BadgePending), q.Filter)
		return s.api.ListAssignedBadges(r.Context(), q)
	})
}

func (s *server) currentUserBadges(w http.ResponseWriter, r *http.Request) (any, error) {
	return listed(r, upstream.AssignedBadgeFields, func(q upstream.ListQuery) (upstream.Page[upstream.AssignedBadge], error) {
		return s.api.CurrentUserBadges(r.Context(), q)
	})
}

func (s *server) badgeAssignees(w http.ResponseWriter, r *http.Request) (any, error) {
	return one(r, "id", "badge", nil, func(id string) (upstream.BadgeAssignees, error) {
		return s.api.BadgeAssignees(r.Context(), id)
	})
}

func (s *server) getBadge(w http.ResponseWriter, r *http.Request) (any, error) {
	return one(r, "id", "badge", nil, func(id string) (upstream.Badge, error) { return s.api.GetBadge(r.Context(), id) })
}

func (s *server) createBadge(w http.ResponseWriter, r *http.Request) (any, error) {
	return create(w, r, func(b upstream.Badge) string { return "/api/v1/badges/" + b.ID },
		func(in upstream.BadgeInput) (upstream.Badge, error) { return s.api.CreateBadge(r.Context(), in) })
}

// approveBadge answers 200 with the assignment; 304 when it is already
// approved, 409 when it was rejected.
func (s *server) approveBadge(w http.ResponseWriter, r *http.Request) (any, error) {
	id, err := pathID(r, "id", "badge assignment")
	if err != nil {
		return nil, err
	}
	return s.api.DecideBadge(r.Context(), id, true)
}

func (s *server) assignBadge(w http.ResponseWriter, r *http.Request) (any, error) {
	return create(w, r, nil, func(in upstream.AssignBadgeInput) (upstream.AssignedBadge, error) {
		return s.api.AssignBadge(r.Context(), in)
	})
}

// updateBadge answers 204, as the contract says.
func (s *server) updateBadge(w http.ResponseWriter, r *http.Request) (any, error) {
	b, err := update(w, r, "id", "badge", func(id string, p upstream.BadgePatch) (upstream.Badge, error) {
		return s.api.UpdateBadge(r.Context(), id, p)
	})
	if err != nil || !prefersRepresentation(r) {
		return nil, err
	}
	return represented(w, b), nil
}

// rejectBadge answers 204; 304 when already rejected, 409 when approved.
// With Prefer: return=representation, 200 with the rejected assignment.
func (s *server) rejectBadge(w http.ResponseWriter, r *http.Request) (any, error) {
	var rejected upstream.AssignedBadge
	v, err := remove(r, "id", "badge assignment", func(id string) error {
		var err error
		rejected, err = s.api.DecideBadge(r.Context(), id, false)
		return err
	})
	if err != nil || v != nil || !prefersRepresentation(r) {
		return v, err
	}
	return represented(w, rejected), nil
}

func (s *server) deleteBadge(w http.ResponseWriter, r *http.Request) (any, error) {
	return remove(r, "id", "badge", func(id string) error { return s.api.DeleteBadge(r.Context(), id) })
}
