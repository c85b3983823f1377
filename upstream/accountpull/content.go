package accountpull

import (
	"context"
	"fmt"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/accountfile"
)

// contentStages read the rest of the contract: role mappings, dashboard
// parameters and dashboards, badges and their assignments, KPI groups (with
// the reader's favourites), KPIs, lists and announcements.
func (p *puller) contentStages() []stage {
	size, src, rec := p.opts.PageSize, p.src, p.rec
	ss := []stage{
		{name: "role-mappings", page: p.roleMappings},
		listed("dashboard-parameters", size, src.ListDashboardParameters, func(_ context.Context, x upstream.DashboardParameter, w *accountfile.Writer) error {
			row, err := rec.DashboardParameter(x)
			return write(w, row, err)
		}),
		listed("dashboards", size, src.ListDashboards, func(_ context.Context, d upstream.Dashboard, w *accountfile.Writer) error {
			row, err := rec.Dashboard(d)
			return write(w, row, err)
		}),
		listed("badges", size, src.ListBadges, func(_ context.Context, b upstream.Badge, w *accountfile.Writer) error {
			row, err := rec.Badge(b)
			return write(w, row, err)
		}),
	}
	p.report.Missing = append(p.report.Missing,
		"dashboards' creators: the API does not give them out; a pulled dashboard has no owner (its access list and the roles' rights still apply)")
	if p.caps.BadgeAssignments {
		ss = append(ss, listed("badge-assignments", size, src.ListAssignedBadges, func(_ context.Context, a upstream.AssignedBadge, w *accountfile.Writer) error {
			row, err := rec.AssignedBadge(a)
			return write(w, row, err)
		}))
	} else {
		p.report.Missing = append(p.report.Missing, "badge assignments: the source does not list them (GET /api/v2/badges/assignments)")
	}
	ss = append(ss,
		listed("kpi-groups", size, src.ListKPIGroups, p.kpiGroup),
		listed("kpis", size, src.ListKPIs, func(_ context.Context, k upstream.KPI, w *accountfile.Writer) error {
			row, err := rec.KPI(k)
			return write(w, row, err)
		}),
		listed("lists", size, src.ListLists, func(_ context.Context, l upstream.List, w *accountfile.Writer) error {
			row, err := rec.List(l)
			return write(w, row, err)
		}),
		listed("announcements", size, src.ListAnnouncements, func(_ context.Context, a upstream.Announcement, w *accountfile.Writer) error {
			row, err := rec.Announcement(a)
			return write(w, row, err)
		}))
	p.report.Missing = append(p.report.Missing,
		"other users' favourite KPI groups: a listing marks only the reader's (the token's user keeps theirs)",
		"identity-provider bindings: the API does not list them; each identity binds again at its first sign-in, to the user its e-mail names")
	return ss
}

// roleMappings writes the account's role mappings (one listing, not
// paged), or reports that the source lists none.
func (p *puller) roleMappings(ctx context.Context, _ int, w *accountfile.Writer) (int, bool, error) {
	rs, err := p.src.ListRoleMappings(ctx)
	if unsupported(err) {
		p.report.Missing = append(p.report.Missing, "role mappings: the source does not list them (GET /api/v1/roles/account/mapping/)")
		return 0, true, nil
	}
	if err != nil {
		return 0, false, err
	}
	for _, r := range rs {
		row, err := p.rec.RoleMapping(r)
		if err := write(w, row, err); err != nil {
			return 0, false, err
		}
	}
	return len(rs), true, nil
}

// kpiGroup writes a KPI group and, when the reader keeps it among their
// favourites, that favourite.
func (p *puller) kpiGroup(ctx context.Context, g upstream.KPIGroup, w *accountfile.Writer) error {
	row, err := p.rec.KPIGroup(g)
	if err := write(w, row, err); err != nil || !g.Favorite {
		return err
	}
	if p.reader == "" {
		c, ok := upstream.CallerFrom(ctx)
		if !ok {
			return fmt.Errorf("no caller to read favourites as")
		}
		me, err := p.src.Authenticate(ctx, c.Token)
		if err != nil {
			return fmt.Errorf("the token's user: %w", err)
		}
		p.reader = me.UserID
	}
	fav := p.rec.KPIFavorite(p.reader, g.ID)
	return w.Write(fav.Table, fav.Values)
}
