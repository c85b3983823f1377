package resolvers_test

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/okrgate/okrgate/resolvers/transport/graphqlhttp"
	"github.com/okrgate/okrgate/upstream"
)

// orgFixture is a fresh account with an admin (the fixture's token), a
// member and a viewer, each with a token, and one open session.
type orgFixture struct {
	*fixture
	adminID, memberID, viewerID string
	memberToken, viewerToken    string
	sessionID                   string
	permissionIDs               []string // grants fillNodes made
}

func newOrgFixture(t *testing.T, name string) *orgFixture {
	t.Helper()
	return newOrgFixtureCfg(t, name, graphqlhttp.Config{})
}

func newOrgFixtureCfg(t *testing.T, name string, cfg graphqlhttp.Config) *orgFixture {
	t.Helper()
	o := &orgFixture{}
	o.fixture = newFixture(t, name, cfg, nil)
	t.Cleanup(func() { o.noStrays(t); o.srv.Close(); o.store.Close() })
	st, ctx := o.store, o.ctx
	c, _ := upstream.CallerFrom(ctx)
	o.adminID = c.UserID
	mk := func(email, role string) (string, string) {
		u, err := st.CreateUser(ctx, upstream.UserInput{Email: email, FirstName: role, LastName: "User", Role: role})
		if err != nil {
			t.Fatal(err)
		}
		tok, err := st.CreateToken(ctx, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		return u.ID, tok
	}
	o.memberID, o.memberToken = mk("member@"+name+".test", "member")
	o.viewerID, o.viewerToken = mk("viewer@"+name+".test", "viewer")
	s, err := st.CreateSession(ctx, upstream.SessionInput{Title: "Q1", Start: "2026-01-01", End: "2026-03-31"})
	if err != nil {
		t.Fatal(err)
	}
	o.sessionID = s.ID
	return o
}

// doAs posts a GraphQL request with token.
func (f *fixture) doAs(tb testing.TB, token, q string, vars map[string]any) gqlResponse {
	tb.Helper()
	return f.doWith(tb, http.MethodPost, q, vars, map[string]string{"Authorization": "Bearer " + token, "Content-Type": "application/json"})
}

// run posts q as the admin and returns the data as generic JSON, failing on
// any error.
func (f *fixture) run(tb testing.TB, q string, vars map[string]any) any {
	tb.Helper()
	var out any
	f.do(tb, q, vars).mustData(tb, &out)
	return out
}

// fillOrgContent creates n of everything, each connected: user i in team i
// (managed by user i) with role i mapped to it; goal i and dashboard i tagged
// with tag i; badge i approved for user i and team i, plus a pending request;
// KPI group i with two KPIs owned by user i; an announcement by user i.
func fillOrgContent(t *testing.T, o *orgFixture, n int) {
	t.Helper()
	st, ctx := o.store, o.ctx
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		s := strconv.Itoa(i)
		u, err := st.CreateUser(ctx, upstream.UserInput{Email: "u" + s + "@batch.test", FirstName: "User", LastName: s})
		must(err)
		tm, err := st.CreateTeam(ctx, upstream.TeamInput{Name: "Team " + s, Manager: u.ID, Members: []string{u.ID}})
		must(err)
		r, err := st.CreateRole(ctx, upstream.RoleInput{Name: "Role " + s})
		must(err)
		_, err = st.CreateRoleMapping(ctx, upstream.RoleMappingInput{RoleID: r.ID, TeamID: tm.ID})
		must(err)
		_, err = st.CreateGoal(ctx, upstream.GoalInput{Name: "Goal " + s, SessionID: o.sessionID, OwnerID: u.ID, Tags: []upstream.TagInput{{Title: "Tag " + s}}})
		must(err)
		_, err = st.CreateDashboard(ctx, upstream.DashboardInput{Name: "Board " + s, Tags: []upstream.TagInput{{Title: "Tag " + s}}})
		must(err)
		b, err := st.CreateBadge(ctx, upstream.BadgeInput{Name: "Badge " + s})
		must(err)
		a, err := st.AssignBadge(ctx, upstream.AssignBadgeInput{BadgeID: b.ID, AssigneeIDs: []string{u.ID, tm.ID}})
		must(err)
		_, err = st.DecideBadge(ctx, a.ID, true)
		must(err)
		_, err = st.AssignBadge(ctx, upstream.AssignBadgeInput{BadgeID: b.ID, AssigneeIDs: []string{tm.ID}})
		must(err)
		g, err := st.CreateKPIGroup(ctx, upstream.KPIGroupInput{Name: "Group " + s})
		must(err)
		for _, k := range []string{"a", "b"} {
			_, err = st.CreateKPI(ctx, upstream.KPIInput{Name: "KPI " + s + k, OwnerID: u.ID, GroupIDs: []string{g.ID}})
			must(err)
		}
		_, err = st.CreateAnnouncement(ctx, upstream.AnnouncementInput{Comment: "News " + s, AuthorID: u.ID})
		must(err)
	}
}
