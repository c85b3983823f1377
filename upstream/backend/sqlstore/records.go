package sqlstore

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/accountfile"
)

// An account read through the REST API (okrgate import --from) arrives as
// the API's documents. Records turns them into the rows of an account file,
// as this store keeps them, so that a pulled account goes through the one
// import path (ImportAccount) like an exported one. What a read adds to a
// document and the store does not keep (resolved owners, tags, the caller's
// allowed actions, embedded key results and tasks, role user counts) is
// cleared; figures the import recomputes (an objective's attainment and
// counts) are kept, for the import to compare with what it recomputes.

// Records makes the rows of one account from API documents.
type Records struct {
	AccountID string
}

// RecordTables are the tables and columns of the rows Records makes: the
// header of a pulled account file.
func RecordTables() map[string][]string {
	ts := map[string][]string{
		"accounts":  {"id", "doc"},
		"item_tags": {"account_id", "tag_id", "item_id", "item_type", "added"},
		"avatars":   {"account_id", "id", "user_id", "content_type", "etag", "created", "data"},
		"checkins":  {"id", "account_id", "metric_id", "goal_id", "doc", "snapshot"},
		"tags":      {"id", "account_id", "name", "doc"},
		"webhooks":  {"id", "account_id", "url", "events", "secret", "description", "active", "last_position", "created_at", "updated_at"},
	}
	add := func(name string, cols []string) {
		ts[name] = append(append([]string{"id", "account_id"}, cols...), "doc")
	}
	add(users.name, users.cols)
	add(teams.name, teams.cols)
	add(sessions.name, sessions.cols)
	add(goals.name, goals.cols)
	add(metrics.name, metrics.cols)
	add(tasks.name, tasks.cols)
	add(roles.name, roles.cols)
	add(grants.name, grants.cols)
	add(roleMappings.name, roleMappings.cols)
	add(dashboards.name, dashboards.cols)
	add(dashboardParams.name, dashboardParams.cols)
	add(badges.name, badges.cols)
	add(badgeAssignments.name, badgeAssignments.cols)
	add(kpiGroups.name, kpiGroups.cols)
	add(kpis.name, kpis.cols)
	add(lists.name, lists.cols)
	add(announcements.name, announcements.cols)
	add(comments.name, comments.cols)
	ts["kpi_favorites"] = []string{"account_id", "user_id", "group_id"}
	return ts
}

// recordOf is the row of v in t: id, account, t's key columns, document.
func recordOf[T any](t table[T], account string, v *T) (accountfile.Row, error) {
	doc, err := json.Marshal(v)
	if err != nil {
		return accountfile.Row{}, fmt.Errorf("sqlstore: encode %s: %w", t.kind, err)
	}
	vals := append([]any{t.id(v), account}, t.keys(v)...)
	for i, k := range vals {
		switch k := k.(type) {
		case int:
			vals[i] = int64(k)
		case bool:
			vals[i] = k
		}
	}
	return accountfile.Row{Table: t.name, Values: append(vals, string(doc))}, nil
}

// Account is the row of the account.
func (r Records) Account(a upstream.Account) (accountfile.Row, error) {
	doc, err := json.Marshal(a)
	if err != nil {
		return accountfile.Row{}, fmt.Errorf("sqlstore: encode account: %w", err)
	}
	return accountfile.Row{Table: "accounts", Values: []any{r.AccountID, string(doc)}}, nil
}

// User is the row of a user.
func (r Records) User(u upstream.User) (accountfile.Row, error) {
	return recordOf(users, r.AccountID, &u)
}

// Team is the row of a team, without the badges it holds (read from the
// approved badge assignments).
func (r Records) Team(t upstream.Team) (accountfile.Row, error) {
	t.Badges = []upstream.Badge{}
	return recordOf(teams, r.AccountID, &t)
}

// Session is the row of a session, without the reader's allowed actions.
func (r Records) Session(s upstream.Session) (accountfile.Row, error) {
	s.CurrentUserAllowedActions = []string{}
	return recordOf(sessions, r.AccountID, &s)
}

// Goal is the row of an objective, without its owners, tags, key results,
// tasks and the reader's allowed actions.
func (r Records) Goal(g upstream.Goal) (accountfile.Row, error) {
	g.Assignee, g.Assignees, g.Tags, g.Metrics, g.Tasks, g.CurrentUserAllowedActions = nil, nil, nil, nil, nil, nil
	return recordOf(goals, r.AccountID, &g)
}

// Metric is the row of a key result, without its owners and the reader's
// allowed actions.
func (r Records) Metric(m upstream.Metric) (accountfile.Row, error) {
	strippedMetric(&m)
	return recordOf(metrics, r.AccountID, &m)
}

func strippedMetric(m *upstream.Metric) {
	m.Assignee, m.Assignees, m.CurrentUserAllowedActions = nil, nil, []string{}
}

// CheckIn is the row of a check-in with snap, the key result right after
// it (its owners kept: a snapshot is stored as a read showed it).
func (r Records) CheckIn(c upstream.CheckIn, snap upstream.Metric) (accountfile.Row, error) {
	doc, err := json.Marshal(c)
	if err != nil {
		return accountfile.Row{}, fmt.Errorf("sqlstore: encode check-in: %w", err)
	}
	snap.CurrentUserAllowedActions = []string{}
	sdoc, err := json.Marshal(snap)
	if err != nil {
		return accountfile.Row{}, fmt.Errorf("sqlstore: encode snapshot: %w", err)
	}
	return accountfile.Row{Table: "checkins", Values: []any{c.ID, r.AccountID, c.MetricID, c.GoalID, string(doc), string(sdoc)}}, nil
}

// Task is the row of a task, without its resolved owner.
func (r Records) Task(t upstream.Task) (accountfile.Row, error) {
	t.Assignee = nil
	return recordOf(tasks, r.AccountID, &t)
}

// Role is the row of a role the account made (built-in roles are not
// stored), without its user count.
func (r Records) Role(x upstream.Role) (accountfile.Row, error) {
	x.UserCount, x.TeamID, x.MappingID = 0, "", ""
	return recordOf(roles, r.AccountID, &x)
}

// Permission is the row of a grant.
func (r Records) Permission(p upstream.Permission) (accountfile.Row, error) {
	return recordOf(grants, r.AccountID, &p)
}

// RoleMapping is the row of a role mapping, read as the mapped role with
// its team and mapping id (GET /api/v1/roles/account/mapping/).
func (r Records) RoleMapping(x upstream.Role) (accountfile.Row, error) {
	return recordOf(roleMappings, r.AccountID, &upstream.RoleMapping{ID: x.MappingID, AccountID: r.AccountID, RoleID: x.ID, TeamID: x.TeamID})
}

// Dashboard is the row of a dashboard: its parameters kept as their ids,
// without its tags (taggings) and the reader's allowed actions. Who
// created it is not in the resource: the row names no creator.
func (r Records) Dashboard(d upstream.Dashboard) (accountfile.Row, error) {
	doc := dashboardDoc{Dashboard: d, ParameterIDs: []string{}}
	for _, p := range d.Parameters {
		doc.ParameterIDs = append(doc.ParameterIDs, p.ID)
	}
	doc.Tags, doc.Parameters, doc.CurrentUserAllowedActions = nil, nil, nil
	return recordOf(dashboards, r.AccountID, &doc)
}

// DashboardParameter is the row of a dashboard parameter.
func (r Records) DashboardParameter(p upstream.DashboardParameter) (accountfile.Row, error) {
	return recordOf(dashboardParams, r.AccountID, &p)
}

// Badge is the row of a badge.
func (r Records) Badge(b upstream.Badge) (accountfile.Row, error) {
	return recordOf(badges, r.AccountID, &b)
}

// AssignedBadge is the row of a badge assignment (the approval-list form,
// GET /api/v2/badges/assignments).
func (r Records) AssignedBadge(a upstream.AssignedBadge) (accountfile.Row, error) {
	a.Badge = nil
	return recordOf(badgeAssignments, r.AccountID, &a)
}

// KPIGroup is the row of a KPI group, without the reader's favourite mark
// (a row of kpi_favorites: KPIFavorite).
func (r Records) KPIGroup(g upstream.KPIGroup) (accountfile.Row, error) {
	g.Favorite = false
	return recordOf(kpiGroups, r.AccountID, &g)
}

// KPIFavorite is the row saying user keeps the KPI group among favourites.
func (r Records) KPIFavorite(user, group string) accountfile.Row {
	return accountfile.Row{Table: "kpi_favorites", Values: []any{r.AccountID, user, group}}
}

// KPI is the row of a KPI.
func (r Records) KPI(k upstream.KPI) (accountfile.Row, error) {
	return recordOf(kpis, r.AccountID, &k)
}

// List is the row of a saved list.
func (r Records) List(l upstream.List) (accountfile.Row, error) {
	return recordOf(lists, r.AccountID, &l)
}

// Announcement is the row of an announcement.
func (r Records) Announcement(a upstream.Announcement) (accountfile.Row, error) {
	return recordOf(announcements, r.AccountID, &a)
}

// Comment is the row of a comment on a key result.
func (r Records) Comment(c upstream.Comment) (accountfile.Row, error) {
	return recordOf(comments, r.AccountID, &c)
}

// Tag is the row of a tag, without its usage counts.
func (r Records) Tag(t upstream.TagDetail) (accountfile.Row, error) {
	doc, err := json.Marshal(upstream.Tag{CreatedBy: t.CreatedBy, DateCreated: t.DateCreated, ID: t.ID, IsActive: t.IsActive, Name: t.Name, Title: t.Title})
	if err != nil {
		return accountfile.Row{}, fmt.Errorf("sqlstore: encode tag: %w", err)
	}
	return accountfile.Row{Table: "tags", Values: []any{t.ID, r.AccountID, t.Name, string(doc)}}, nil
}

// Tagging is the row of a tag on an item.
func (r Records) Tagging(t upstream.Tagging) accountfile.Row {
	return accountfile.Row{Table: "item_tags", Values: []any{r.AccountID, t.TagID, t.ItemID, t.ItemType, t.Added}}
}

// Avatar is the row of a user's uploaded picture.
func (r Records) Avatar(a upstream.Avatar) accountfile.Row {
	return accountfile.Row{Table: "avatars", Values: []any{r.AccountID, a.ID, a.UserID, a.ContentType, a.ETag, a.Created, a.Data}}
}

// Webhook is the row of a webhook, without its secret, which no listing
// gives out: the import makes it inactive, to deliver once a new secret is
// set.
func (r Records) Webhook(w upstream.Webhook) (accountfile.Row, error) {
	events, err := json.Marshal(w.Events)
	if err != nil {
		return accountfile.Row{}, fmt.Errorf("sqlstore: encode webhook: %w", err)
	}
	return accountfile.Row{Table: "webhooks", Values: []any{w.ID, r.AccountID, w.URL, string(events), "", w.Description, int64(0), int64(0), w.CreatedAt, w.UpdatedAt}}, nil
}

// AvatarOf returns the id of the uploaded picture a user's picture URL
// names in this account ("" when it names none, such as a picture kept
// elsewhere).
func AvatarOf(account, picture string) string {
	_, rest, ok := strings.Cut(picture, upstream.AvatarPathPrefix+account+"/")
	if !ok {
		return ""
	}
	id, _ := upstream.ParseAvatarFile(rest)
	return id
}
