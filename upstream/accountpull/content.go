package accountpull

import (
	"context"
	"fmt"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/accountfile"
)

// contentStages read the rest of the contract: role mappings, dashboard
// parameters and dashboards, badges and their assignments, KPI groups (with
// the reader's favourites), KPIs, lists, announcements and comments on key results.
func (p *puller) contentStages() []stage {
	size, src, rec := p.opts.PageSize, p.src, p.rec
	ss := []stage{
		unpaged("role-mappings", src.ListRoleMappings, rec.RoleMapping, &p.report,
			"role mappings: the source does not list them (GET /api/v1/roles/account/mapping/)"),
		listed("dashboard-parameters", size, src.ListDashboardParameters, recorded(rec.DashboardParameter)),
		listed("dashboards", size, src.ListDashboards, recorded(rec.Dashboard)),
		listed("badges", size, src.ListBadges, recorded(rec.Badge)),
	}
	p.report.Missing = append(p.report.Missing,
		"dashboards' creators: the API does not give them out; a pulled dashboard has no owner (its access list and the roles' rights still apply)")
	if p.caps.BadgeAssignments {
		ss = append(ss, listed("badge-assignments", size, src.ListAssignedBadges, recorded(rec.AssignedBadge)))
	} else {
		p.report.Missing = append(p.report.Missing, "badge assignments: the source does not list them (GET /api/v2/badges/assignments)")
	}
	ss = append(ss,
		listed("kpi-groups", size, src.ListKPIGroups, p.kpiGroup),
		listed("kpis", size, src.ListKPIs, recorded(rec.KPI)),
		listed("lists", size, src.ListLists, recorded(rec.List)),
		listed("announcements", size, src.ListAnnouncements, recorded(rec.Announcement)),
		listed("comments", size, src.ListComments, recorded(rec.Comment)))
	p.report.Missing = append(p.report.Missing,
		"other users' favourite KPI groups: a listing marks only the reader's (the token's user keeps theirs)",
		"identity-provider bindings: the API does not list them; each identity binds again at its first sign-in, to the user its e-mail names")
	return ss
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
