package sqlstore

import (
	"context"
	"fmt"
	"slices"

	"github.com/okrgate/okrgate/upstream"
)

// dashboardItem describes a dashboard for the per-item access rules: its
// creator owns it; its access list applies.
func dashboardItem(d dashboardDoc) *upstream.Item {
	var owners []string
	if d.CreatedByID != "" {
		owners = []string{d.CreatedByID}
	}
	return upstream.DashboardItem(d.ID, owners, d.Access)
}

// visibleDashboards returns the documents of account matching cond (SQL on
// the table's columns) that the caller may read.
func (s *Store) visibleDashboards(ctx context.Context, q querier, c upstream.Caller, ds []dashboardDoc) ([]dashboardDoc, error) {
	out := make([]dashboardDoc, 0, len(ds))
	for _, d := range ds {
		err := s.authorize(ctx, q, c, upstream.DashboardsRead, dashboardItem(d))
		if forbidden(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// dashboardsWithInsight returns the dashboards placing insightID.
func (s *Store) dashboardsWithInsight(ctx context.Context, q querier, account, insightID string) ([]dashboardDoc, error) {
	return dashboards.where(ctx, q, account,
		"EXISTS (SELECT 1 FROM "+dialectOf(q).eachObject("doc", "i", "insights")+" WHERE "+dialectOf(q).text("i.value", "insightId")+" = ?)", insightID)
}

// present turns stored dashboards into the resource: tags, parameters and
// the caller's allowed actions are filled in.
func (s *Store) present(ctx context.Context, q querier, c upstream.Caller, ds []dashboardDoc) ([]upstream.Dashboard, error) {
	out := make([]upstream.Dashboard, 0, len(ds))
	if len(ds) == 0 {
		return out, nil
	}
	ids := make([]string, 0, len(ds))
	var paramIDs []string
	for _, d := range ds {
		ids = append(ids, d.ID)
		paramIDs = append(paramIDs, d.ParameterIDs...)
	}
	tags, err := s.itemTags(ctx, q, c.AccountID, ids)
	if err != nil {
		return nil, err
	}
	params, err := dashboardParams.in(ctx, q, c.AccountID, "id", dedupe(paramIDs))
	if err != nil {
		return nil, err
	}
	byID := map[string]upstream.DashboardParameter{}
	for _, p := range params {
		byID[p.ID] = p
	}
	for _, d := range ds {
		x := d.Dashboard
		x.Tags = nonNil(tags[d.ID])
		x.Parameters = []upstream.DashboardParameter{}
		for _, id := range d.ParameterIDs {
			if p, ok := byID[id]; ok {
				x.Parameters = append(x.Parameters, p)
			}
		}
		x.CurrentUserAllowedActions = []string{}
		for _, a := range upstream.DashboardActions() {
			err := s.authorize(ctx, q, c, a, dashboardItem(d))
			if err == nil {
				x.CurrentUserAllowedActions = append(x.CurrentUserAllowedActions, string(a))
			} else if !forbidden(err) {
				return nil, err
			}
		}
		out = append(out, x)
	}
	return out, nil
}

// ListDashboards lists the dashboards the caller may read. Visibility is
// per dashboard, so the page is cut after the access check.
func (s *Store) ListDashboards(ctx context.Context, lq upstream.ListQuery) (upstream.Page[upstream.Dashboard], error) {
	q, c, err := s.readAs(ctx, upstream.DashboardsRead)
	if err != nil {
		return upstream.Page[upstream.Dashboard]{}, err
	}
	all := lq
	all.Skip, all.Limit = 0, everything
	ds, _, err := dashboards.list(ctx, q, c.AccountID, all)
	if err != nil {
		return upstream.Page[upstream.Dashboard]{}, err
	}
	if ds, err = s.visibleDashboards(ctx, q, c, ds); err != nil {
		return upstream.Page[upstream.Dashboard]{}, err
	}
	total := len(ds)
	lo := min(lq.Skip, total)
	hi := min(lo+lq.PageLimit(), total)
	items, err := s.present(ctx, q, c, ds[lo:hi])
	if err != nil {
		return upstream.Page[upstream.Dashboard]{}, err
	}
	return upstream.Page[upstream.Dashboard]{Items: items, TotalCount: total}, nil
}

// GetDashboard returns one dashboard the caller may read.
func (s *Store) GetDashboard(ctx context.Context, id string) (upstream.Dashboard, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.Dashboard{}, err
	}
	return s.getDashboard(ctx, s.read(), c, id, upstream.DashboardsRead)
}

func (s *Store) getDashboard(ctx context.Context, q querier, c upstream.Caller, id string, action upstream.Action) (upstream.Dashboard, error) {
	d, err := dashboards.get(ctx, q, c.AccountID, id)
	if err != nil {
		return upstream.Dashboard{}, err
	}
	if err := s.authorize(ctx, q, c, action, dashboardItem(d)); err != nil {
		return upstream.Dashboard{}, err
	}
	out, err := s.present(ctx, q, c, []dashboardDoc{d})
	if err != nil {
		return upstream.Dashboard{}, err
	}
	return out[0], nil
}

// CreateDashboard creates a dashboard owned by the caller.
func (s *Store) CreateDashboard(ctx context.Context, in upstream.DashboardInput) (upstream.Dashboard, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.Dashboard{}, err
	}
	d := dashboardDoc{CreatedByID: c.UserID}
	d.ID, d.AccountID = s.ids.New(), c.AccountID
	d.Layout, d.IsReport, d.ReadOnly, d.Tag = in.Layout, in.IsReport, in.ReadOnly, in.Tag
	d.Access = in.Access
	d.Settings = in.Settings
	if in.Source != nil {
		d.Source = *in.Source
	}
	if d.Name, err = checkText("name", in.Name, true, maxName); err != nil {
		return upstream.Dashboard{}, err
	}
	if d.ParameterIDs, err = checkIDs("parameterIds", in.ParameterIDs); err != nil {
		return upstream.Dashboard{}, err
	}
	d.Insights, d.SectionHeaders = in.Insights, in.SectionHeaders
	if err := s.checkDashboard(&d); err != nil {
		return upstream.Dashboard{}, err
	}
	for i, t := range in.Tags {
		if upstream.TagName(t.Title) == "" {
			return upstream.Dashboard{}, upstream.Invalid(fmt.Sprintf("tags[%d].title", i), "must not be empty")
		}
	}
	var out upstream.Dashboard
	err = s.tx(ctx, func(q querier) error {
		if err := s.authorize(ctx, q, c, upstream.DashboardsEdit, nil); err != nil {
			return err
		}
		if err := checkParams(ctx, q, c.AccountID, d.ParameterIDs); err != nil {
			return err
		}
		if err := s.checkAccessPrincipals(ctx, q, c.AccountID, d.Access); err != nil {
			return err
		}
		if err := dashboards.insert(ctx, q, c.AccountID, &d); err != nil {
			return err
		}
		for _, t := range in.Tags {
			if _, _, err := s.tagItem(ctx, q, c, d.ID, upstream.TaggedDashboard, t.Title); err != nil {
				return err
			}
		}
		out, err = s.getDashboard(ctx, q, c, d.ID, upstream.DashboardsRead)
		return err
	})
	return out, err
}

// checkDashboard validates a dashboard about to be written and fills what
// derives from its fields: ids of new insight and section-header
// placements, the counts, empty arrays for absent ones.
func (s *Store) checkDashboard(d *dashboardDoc) error {
	if len(d.Layout) > 100 {
		return upstream.Invalid("layout", "must be at most 100 characters")
	}
	if d.Access == nil {
		d.Access = &upstream.Access{Inherits: true, Permissions: []upstream.PermissionEntry{}}
	}
	d.Settings = nonNil(d.Settings)
	d.Insights = nonNil(d.Insights)
	d.SectionHeaders = nonNil(d.SectionHeaders)
	for i := range d.Insights {
		it := &d.Insights[i]
		if it.Col < 0 || it.Row < 0 || it.SizeX < 0 || it.SizeY < 0 {
			return upstream.Invalid(fmt.Sprintf("insights[%d]", i), "col, row, sizeX and sizeY must be ≥ 0")
		}
		if it.ID == "" {
			it.ID = s.ids.New()
		}
		if it.InsightID == "" {
			it.InsightID = s.ids.New()
		}
		if !upstream.ValidID(it.ID) || !upstream.ValidID(it.InsightID) {
			return upstream.Invalid(fmt.Sprintf("insights[%d].insightId", i), "id and insightId must be ids (24 lowercase hexadecimal characters)")
		}
		it.DashboardID = d.ID
		it.Filters, it.Settings = nonNil(it.Filters), nonNil(it.Settings)
		it.InsightRequiredEntities = nonNil(it.InsightRequiredEntities)
	}
	for i := range d.SectionHeaders {
		h := &d.SectionHeaders[i]
		if h.Col < 0 || h.Row < 0 || h.SizeX < 0 || h.SizeY < 0 {
			return upstream.Invalid(fmt.Sprintf("sectionHeaders[%d]", i), "col, row, sizeX and sizeY must be ≥ 0")
		}
		if h.ID == "" {
			h.ID = s.ids.New()
		}
		if h.SectionHeader.ID == "" {
			h.SectionHeader.ID = s.ids.New()
		}
		h.SectionHeaderID, h.AccountID, h.DashboardID = h.SectionHeader.ID, d.AccountID, d.ID
		h.SectionHeader.AccountID = d.AccountID
	}
	d.InsightsCount, d.SectionHeadersCount = len(d.Insights), len(d.SectionHeaders)
	d.Parameters, d.Tags, d.CurrentUserAllowedActions = nil, nil, nil
	return nil
}

// checkParams checks that every id names a dashboard parameter of account.
func checkParams(ctx context.Context, q querier, account string, ids []string) error {
	found, err := dashboardParams.in(ctx, q, account, "id", ids)
	if err != nil {
		return err
	}
	for i, id := range ids {
		if !slices.ContainsFunc(found, func(p upstream.DashboardParameter) bool { return p.ID == id }) {
			return upstream.Invalid(fmt.Sprintf("parameterIds[%d]", i), "no dashboard parameter %q", id)
		}
	}
	return nil
}

// UpdateDashboard changes a dashboard the caller may edit.
func (s *Store) UpdateDashboard(ctx context.Context, id string, p upstream.DashboardPatch) (upstream.Dashboard, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.Dashboard{}, err
	}
	var out upstream.Dashboard
	err = s.tx(ctx, func(q querier) error {
		d, err := dashboards.get(ctx, q, c.AccountID, id)
		if err != nil {
			return err
		}
		if err := s.authorize(ctx, q, c, upstream.DashboardsEdit, dashboardItem(d)); err != nil {
			return err
		}
		if p.Name != nil {
			if d.Name, err = checkText("name", *p.Name, true, maxName); err != nil {
				return err
			}
		}
		if p.Layout != nil {
			d.Layout = *p.Layout
		}
		if p.IsReport != nil {
			d.IsReport = *p.IsReport
		}
		if p.ReadOnly != nil {
			d.ReadOnly = *p.ReadOnly
		}
		if p.Access != nil {
			if err := s.checkAccessPrincipals(ctx, q, c.AccountID, p.Access); err != nil {
				return err
			}
			d.Access = p.Access
		}
		if p.Settings != nil {
			d.Settings = *p.Settings
		}
		if p.Source != nil {
			d.Source = *p.Source
		}
		if p.Tag != nil {
			d.Tag = *p.Tag
		}
		if p.ParameterIDs != nil {
			if d.ParameterIDs, err = checkIDs("parameterIds", *p.ParameterIDs); err != nil {
				return err
			}
			if err := checkParams(ctx, q, c.AccountID, d.ParameterIDs); err != nil {
				return err
			}
		}
		if p.Insights != nil {
			d.Insights = *p.Insights
		}
		if p.SectionHeaders != nil {
			d.SectionHeaders = *p.SectionHeaders
		}
		if err := s.checkDashboard(&d); err != nil {
			return err
		}
		if err := dashboards.update(ctx, q, c.AccountID, &d); err != nil {
			return err
		}
		out, err = s.getDashboard(ctx, q, c, d.ID, upstream.DashboardsRead)
		return err
	})
	return out, err
}

// DeleteDashboard deletes a dashboard with its taggings, and the taggings
// of the insights no other dashboard places.
func (s *Store) DeleteDashboard(ctx context.Context, id string) error {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return err
	}
	return s.tx(ctx, func(q querier) error {
		d, err := dashboards.get(ctx, q, c.AccountID, id)
		if err != nil {
			return err
		}
		if err := s.authorize(ctx, q, c, upstream.DashboardsAdmin, dashboardItem(d)); err != nil {
			return err
		}
		if err := dashboards.deleteWhere(ctx, q, c.AccountID, "id = ?", id); err != nil {
			return err
		}
		gone := []string{id}
		for _, it := range d.Insights {
			others, err := s.dashboardsWithInsight(ctx, q, c.AccountID, it.InsightID)
			if err != nil {
				return err
			}
			if len(others) == 0 {
				gone = append(gone, it.InsightID)
			}
		}
		if _, err := q.ExecContext(ctx, "DELETE FROM item_tags WHERE account_id = ? AND item_id IN (SELECT value FROM json_each(?))", c.AccountID, idsParam(gone)); err != nil {
			return fmt.Errorf("sqlstore: delete dashboard taggings: %w", err)
		}
		return nil
	})
}

// DashboardsByTag returns the readable dashboards carrying a tag (by id,
// name or title), in name order; an unknown tag has none.
func (s *Store) DashboardsByTag(ctx context.Context, ref string) ([]upstream.Dashboard, error) {
	q, c, err := s.readAs(ctx, upstream.DashboardsRead)
	if err != nil {
		return nil, err
	}
	t, ok, err := tagByRef(ctx, q, c.AccountID, ref)
	if err != nil || !ok {
		return []upstream.Dashboard{}, err
	}
	ds, err := dashboards.where(ctx, q, c.AccountID,
		"id IN (SELECT item_id FROM item_tags WHERE account_id = ? AND tag_id = ? AND item_type = 'dashboard')", c.AccountID, t.ID)
	if err != nil {
		return nil, err
	}
	if ds, err = s.visibleDashboards(ctx, q, c, ds); err != nil {
		return nil, err
	}
	slices.SortStableFunc(ds, func(a, b dashboardDoc) int { return cmpOf(a.Name < b.Name, a.Name > b.Name) })
	return s.present(ctx, q, c, ds)
}

// DashboardTagUsages returns, for each tag on a dashboard the caller may
// read, those dashboards; in tag-name order.
func (s *Store) DashboardTagUsages(ctx context.Context) ([]upstream.DashboardTagUsage, error) {
	q, c, err := s.readAs(ctx, upstream.DashboardsRead)
	if err != nil {
		return nil, err
	}
	ds, err := dashboards.where(ctx, q, c.AccountID, "1 = 1")
	if err != nil {
		return nil, err
	}
	if ds, err = s.visibleDashboards(ctx, q, c, ds); err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(ds))
	for _, d := range ds {
		ids = append(ids, d.ID)
	}
	tags, err := s.itemTags(ctx, q, c.AccountID, ids)
	if err != nil {
		return nil, err
	}
	byTag := map[string]*upstream.DashboardTagUsage{}
	for _, id := range ids {
		for _, t := range tags[id] {
			u := byTag[t.Name]
			if u == nil {
				u = &upstream.DashboardTagUsage{TagName: t.Name, TagTitle: t.Title, DashboardsIDs: []string{}}
				byTag[t.Name] = u
			}
			u.DashboardsIDs = append(u.DashboardsIDs, id)
			u.DashboardsCount++
		}
	}
	out := make([]upstream.DashboardTagUsage, 0, len(byTag))
	for _, u := range byTag {
		out = append(out, *u)
	}
	slices.SortFunc(out, func(a, b upstream.DashboardTagUsage) int { return cmpOf(a.TagName < b.TagName, a.TagName > b.TagName) })
	return out, nil
}

// DashboardReports returns the readable report dashboards, in name order.
func (s *Store) DashboardReports(ctx context.Context) ([]upstream.ReportSummary, error) {
	q, c, err := s.readAs(ctx, upstream.DashboardsRead)
	if err != nil {
		return nil, err
	}
	ds, err := dashboards.where(ctx, q, c.AccountID, "is_report = ?", true)
	if err != nil {
		return nil, err
	}
	if ds, err = s.visibleDashboards(ctx, q, c, ds); err != nil {
		return nil, err
	}
	out := make([]upstream.ReportSummary, 0, len(ds))
	for _, d := range ds {
		out = append(out, upstream.ReportSummary{ID: d.ID, Name: d.Name})
	}
	slices.SortStableFunc(out, func(a, b upstream.ReportSummary) int { return cmpOf(a.Name < b.Name, a.Name > b.Name) })
	return out, nil
}
