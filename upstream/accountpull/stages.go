package accountpull

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/accountfile"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
)

// stages are the resources of an account in the order an import writes
// them (each after those its rows reference).
func (p *puller) stages() []stage {
	size, src, rec := p.opts.PageSize, p.src, p.rec
	ss := []stage{
		{name: "account", page: func(ctx context.Context, _ int, w *accountfile.Writer) (int, bool, error) {
			a, err := src.GetAccount(ctx, p.account)
			if err != nil {
				return 0, false, err
			}
			row, err := rec.Account(a)
			return 1, true, write(w, row, err)
		}},
		listed("users", size, src.ListUsers, recorded(rec.User)),
		listed("teams", size, src.ListTeams, recorded(rec.Team)),
		listed("sessions", size, func(ctx context.Context, q upstream.ListQuery) (upstream.Page[upstream.Session], error) {
			return src.ListSessions(ctx, q, true)
		}, recorded(rec.Session)),
		listed("goals", size, src.ListGoals, recorded(rec.Goal)),
		listed("metrics", size, src.ListMetrics, recorded(rec.Metric)),
	}
	switch {
	case p.caps.CheckInSnapshots:
		// Each check-in with its snapshot: one request a page.
		ss = append(ss, listed("checkin-snapshots", size, src.ListCheckInSnapshots, func(_ context.Context, c upstream.CheckInSnapshot, w *accountfile.Writer) error {
			row, err := rec.CheckIn(c.CheckIn, c.KeyResult)
			return write(w, row, err)
		}))
	case p.caps.CheckIns:
		// A page of check-ins reads each one's snapshot too: smaller pages.
		ss = append(ss, listed("checkins", min(size, 100), src.ListCheckIns, p.checkIn))
	default:
		p.report.Missing = append(p.report.Missing, "check-in history: the source does not list check-ins (GET /api/v2/checkins); key results keep their current values")
	}
	ss = append(ss,
		listed("tasks", size, src.ListTasks, recorded(rec.Task)),
		listed("tags", size, func(ctx context.Context, q upstream.ListQuery) (upstream.Page[upstream.TagDetail], error) {
			return src.ListTags(ctx, upstream.TagQuery{ListQuery: q})
		}, recorded(rec.Tag)))
	if p.caps.Taggings {
		ss = append(ss, listed("taggings", size, src.ListTaggings, func(_ context.Context, t upstream.Tagging, w *accountfile.Writer) error {
			row := rec.Tagging(t)
			return w.Write(row.Table, row.Values)
		}))
	} else {
		p.report.Missing = append(p.report.Missing, "tags on objectives: the source does not list taggings (GET /api/v2/integrations/taggings)")
	}
	ss = append(ss, listed("roles", size, src.ListRoles, func(_ context.Context, r upstream.Role, w *accountfile.Writer) error {
		if r.BuiltIn {
			return nil // every account has them
		}
		row, err := rec.Role(r)
		return write(w, row, err)
	}))
	if p.caps.Permissions {
		ss = append(ss, listed("permissions", size, src.ListPermissions, recorded(rec.Permission)))
	} else {
		p.report.Missing = append(p.report.Missing, "grants: the source does not list permissions (GET /api/v2/permissions)")
	}
	ss = append(ss, p.contentStages()...)
	return append(ss, listed("avatars", size, src.ListUsers, p.avatar),
		unpaged("webhooks", src.ListWebhooks, rec.Webhook, &p.report,
			"webhooks: the source does not list them (GET /api/v1/webhooks)"))
}

// checkIn writes a check-in with the key result as it was right after it:
// the source's snapshot, or where the source keeps none, the key result's
// current document with the check-in's value.
func (p *puller) checkIn(ctx context.Context, c upstream.CheckIn, w *accountfile.Writer) error {
	snap, err := p.src.GetCheckInSnapshot(ctx, c.ID)
	if unsupported(err) {
		m, ok := p.current[c.MetricID]
		if !ok {
			if m, err = p.src.GetMetric(ctx, c.MetricID); err != nil {
				return fmt.Errorf("key result %s of check-in %s: %w", c.MetricID, c.ID, err)
			}
			p.current[c.MetricID] = m
		}
		if len(p.current) == 1 && !ok {
			p.report.Missing = append(p.report.Missing, "check-in snapshots: rebuilt from each key result's current document and the check-in's value")
		}
		snap, err = m, nil
		snap.Actual, snap.Attainment, snap.Confidence, snap.LastCheckInDate = c.Actual, c.Attainment, c.Confidence, c.CheckInDate
	}
	if err != nil {
		return fmt.Errorf("check-in %s: %w", c.ID, err)
	}
	row, err := p.rec.CheckIn(c, snap)
	return write(w, row, err)
}

// avatar writes the uploaded picture of a user, if it has one here.
func (p *puller) avatar(ctx context.Context, u upstream.User, w *accountfile.Writer) error {
	id := sqlstore.AvatarOf(p.account, u.Picture)
	if id == "" {
		return nil
	}
	a, err := p.src.GetAvatar(ctx, p.account, id)
	if err != nil {
		return fmt.Errorf("the picture of user %s: %w", u.ID, err)
	}
	a.UserID = u.ID
	if t, err := http.ParseTime(a.Created); err == nil {
		a.Created = upstream.FormatTime(t)
	} else {
		a.Created = upstream.FormatTime(time.Now())
	}
	row := p.rec.Avatar(a)
	return w.Write(row.Table, row.Values)
}
