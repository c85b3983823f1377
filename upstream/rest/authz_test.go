package rest_test

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/rest"
	"github.com/okrgate/okrgate/upstream/sqlstore"
)

// authzEnv adds a member and a viewer to acct.
type authzEnv struct {
	*env
	member, viewer sqlstore.BootstrapResult
	n              atomic.Int64
}

func (e *authzEnv) adminCtx() context.Context {
	return upstream.NewContext(context.Background(), upstream.Caller{AccountID: e.acct.AccountID, UserID: e.acct.UserID, Roles: []string{"admin"}})
}

func (e *authzEnv) uniq() string { return fmt.Sprint(e.n.Add(1)) }

// addUser creates a user of acct with a built-in role and a token.
func (e *authzEnv) addUser(role string) sqlstore.BootstrapResult {
	e.t.Helper()
	ctx := e.adminCtx()
	u, err := e.store.CreateUser(ctx, upstream.UserInput{Email: role + e.uniq() + "@acme.test", FirstName: role, Role: role})
	if err != nil {
		e.t.Fatal(err)
	}
	tok, err := e.store.CreateToken(ctx, u.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	return sqlstore.BootstrapResult{AccountID: e.acct.AccountID, UserID: u.ID, Token: tok}
}

func newAuthzEnv(t *testing.T) *authzEnv {
	e := &authzEnv{env: newEnv(t)}
	e.member = e.addUser("member")
	e.viewer = e.addUser("viewer")
	return e
}

// fixture is a fresh set of items of acct, all created (and owned) by the admin.
type fixture struct {
	session, emptySession, goal, metric, task, checkin string
	team, user, role, role2, mapping, grant            string
	content
}

// content is the fixture's part for the rest of the contract.
type content struct {
	dashboard, insight, parameter, activeTag, inactiveTag string
	badge, assignment, kpiGroup, kpi, list, announcement  string
}

func (e *authzEnv) fixture() fixture {
	e.t.Helper()
	ctx := e.adminCtx()
	must := func(err error) {
		if err != nil {
			e.t.Helper()
			e.t.Fatal(err)
		}
	}
	var f fixture
	ss, err := e.store.CreateSession(ctx, upstream.SessionInput{Title: "S", Start: "2026-01-01", End: "2026-12-31"})
	must(err)
	es, err := e.store.CreateSession(ctx, upstream.SessionInput{Title: "Empty", Start: "2026-01-01", End: "2026-12-31"})
	must(err)
	g, err := e.store.CreateGoal(ctx, upstream.GoalInput{Name: "G", SessionID: ss.ID})
	must(err)
	tgt := 10.0
	m, err := e.store.CreateMetric(ctx, upstream.MetricInput{Name: "M", GoalID: g.ID, Target: &tgt})
	must(err)
	tk, err := e.store.CreateTask(ctx, upstream.TaskInput{Name: "T", ParentID: g.ID})
	must(err)
	act := 5.0
	ci, err := e.store.CheckIn(ctx, m.ID, upstream.CheckInInput{Actual: &act})
	must(err)
	u, err := e.store.CreateUser(ctx, upstream.UserInput{Email: "u" + e.uniq() + "@acme.test"})
	must(err)
	tm, err := e.store.CreateTeam(ctx, upstream.TeamInput{Name: "Team", Members: []string{u.ID}})
	must(err)
	r, err := e.store.CreateRole(ctx, upstream.RoleInput{Name: "Role " + e.uniq()})
	must(err)
	r2, err := e.store.CreateRole(ctx, upstream.RoleInput{Name: "Role " + e.uniq()})
	must(err)
	mp, err := e.store.CreateRoleMapping(ctx, upstream.RoleMappingInput{RoleID: r.ID, TeamID: tm.ID})
	must(err)
	gr, err := e.store.CreatePermission(ctx, upstream.PermissionInput{Action: "goals:read", Principals: []string{r.ID}})
	must(err)
	f = fixture{session: ss.ID, emptySession: es.ID, goal: g.ID, metric: m.ID, task: tk.ID, checkin: ci.ID,
		team: tm.ID, user: u.ID, role: r.ID, role2: r2.ID, mapping: mp.MappingID, grant: gr.ID}
	f.content = e.contentFixture(ctx, u.ID, must)
	return f
}

// contentFixture creates one of each item of the rest of the contract.
func (e *authzEnv) contentFixture(ctx context.Context, user string, must func(error)) content {
	e.t.Helper()
	u := e.uniq()
	var c content
	d, err := e.store.CreateDashboard(ctx, upstream.DashboardInput{Name: "D" + u,
		Insights: []upstream.InsightItem{{InsightName: "chart", Type: "insight"}}})
	must(err)
	c.dashboard, c.insight = d.ID, d.Insights[0].InsightID
	p, err := e.store.CreateDashboardParameter(ctx, upstream.DashboardParameterInput{Key: "k" + u, Title: "K", SelectorType: "single"})
	must(err)
	c.parameter = p.ID
	tags, err := e.store.CreateTags(ctx, upstream.TagCreateInput{Titles: []string{"on" + u, "off" + u}})
	must(err)
	c.activeTag, c.inactiveTag = tags[0].ID, tags[1].ID
	_, err = e.store.SetTagsActive(ctx, []string{c.inactiveTag}, false)
	must(err)
	b, err := e.store.CreateBadge(ctx, upstream.BadgeInput{Name: "B" + u})
	must(err)
	c.badge = b.ID
	ab, err := e.store.AssignBadge(ctx, upstream.AssignBadgeInput{BadgeID: b.ID, AssigneeIDs: []string{user}})
	must(err)
	c.assignment = ab.ID
	kg, err := e.store.CreateKPIGroup(ctx, upstream.KPIGroupInput{Name: "G" + u})
	must(err)
	c.kpiGroup = kg.ID
	k, err := e.store.CreateKPI(ctx, upstream.KPIInput{Name: "K" + u})
	must(err)
	c.kpi = k.ID
	l, err := e.store.CreateList(ctx, upstream.ListInput{Title: "L" + u, ListType: "goal"})
	must(err)
	c.list = l.ID
	a, err := e.store.CreateAnnouncement(ctx, upstream.AnnouncementInput{Comment: "hello", AnnouncementType: "general"})
	must(err)
	c.announcement = a.ID
	return c
}

// expect is the status each caller gets.
type expect struct{ admin, member, viewer, other int }

var (
	readAll   = expect{200, 200, 200, 200} // listings and catalogue reads: everyone, each its own account
	readByID  = expect{200, 200, 200, 404} // reads by id: another account's ids are not found
	adminOnly = func(ok int) expect { return expect{ok, 403, 403, 404} }
	// creates in one's own account: the other account's admin may create there too.
	createAdmin = func(ok int) expect { return expect{ok, 403, 403, ok} }
)

// authzRules: the expected status of every route, for the admin, a member
// (not an owner of the fixture's items), a viewer and the other account's
// admin. A route of rest.Routes() missing here fails TestAuthzMatrix.
var authzRules = map[string]expect{
	"GET /api/v2/integrations/goals": readAll,
	// The gateway's listings (gateway.go): readable by everyone, scoped.
	"GET /api/v2/users/me":                                          readAll,
	"GET /api/v2/checkins":                                          readAll,
	"GET /api/v2/integrations/taggings":                             readAll,
	"GET /api/v2/badges/assignments":                                readAll,
	"GET /api/v2/dashboards/parameters":                             readAll,
	"GET /api/v2/announcements":                                     readAll,
	"GET /api/v2/permissions":                                       {200, 403, 403, 200}, // grants: permissions:manage, each its own account
	"GET /api/v2/integrations/goals/groupBy/owners":                 readAll,
	"POST /api/v2/integrations/goals/{id}/tags":                     adminOnly(201),
	"POST /api/v1/goals":                                            {201, 201, 403, 400}, // other: no such session
	"GET /api/v1/goals/{id}":                                        readByID,
	"PATCH /api/v1/goals/{id}":                                      adminOnly(200),
	"DELETE /api/v1/goals/{id}":                                     adminOnly(204),
	"GET /api/v2/metrics":                                           readAll,
	"GET /api/v1/metrics/checkin/{checkinId}":                       readByID,
	"GET /api/v1/metrics/owner/{ownerId}":                           readAll,
	"POST /api/v1/metrics":                                          {201, 201, 403, 400}, // other: no such goal
	"GET /api/v1/metrics/{id}":                                      readByID,
	"PATCH /api/v1/metrics/{id}":                                    adminOnly(200),
	"DELETE /api/v1/metrics/{id}":                                   adminOnly(204),
	"POST /api/v1/metrics/{id}/checkin":                             adminOnly(201),
	"GET /api/v1/metrics/{id}/checkins":                             readByID,
	"GET /api/v2/integrations/tasks":                                readAll,
	"GET /api/v2/integrations/tasks/{taskId}":                       readByID,
	"POST /api/v2/integrations/tasks":                               {201, 201, 403, 400}, // other: no such parent
	"PATCH /api/v2/integrations/tasks/{taskId}":                     adminOnly(200),
	"DELETE /api/v2/integrations/tasks/{taskId}":                    adminOnly(204),
	"GET /api/v2/sessions":                                          readAll,
	"GET /api/v1/sessions/{id}/stats/goalsMet":                      readByID,
	"POST /api/v1/sessions":                                         createAdmin(201),
	"GET /api/v1/sessions/{id}":                                     readByID,
	"PATCH /api/v1/sessions/{id}":                                   adminOnly(200),
	"DELETE /api/v1/sessions/{id}":                                  adminOnly(204),
	"GET /api/v1/accounts/{id}":                                     readByID,
	"PUT /api/v1/accounts/{id}":                                     adminOnly(200),
	"POST /api/v1/accounts/domain":                                  createAdmin(200),
	"PUT /api/v1/accounts/{id}/confidence":                          adminOnly(204),
	"PUT /api/v1/accounts/{id}/notifications":                       adminOnly(200),
	"GET /api/v1/accounts/users":                                    readAll,
	"GET /api/v2/users":                                             readAll,
	"GET /api/v2/users/{id}":                                        readByID,
	"POST /api/v2/users":                                            createAdmin(201),
	"PATCH /api/v2/users/{id}":                                      adminOnly(200),
	"POST /api/v2/users/{id}/tokens":                                adminOnly(201),
	"GET /api/v2/users/me/tokens":                                   readAll,
	"GET /api/v1/webhooks":                                          {200, 403, 403, 200}, // admins, each its own account
	"POST /api/v1/webhooks":                                         createAdmin(201),
	"GET /api/v1/webhooks/{id}":                                     adminOnly(200),
	"PATCH /api/v1/webhooks/{id}":                                   adminOnly(200),
	"DELETE /api/v1/webhooks/{id}":                                  adminOnly(204),
	"GET /api/v1/webhooks/{id}/deliveries":                          adminOnly(200),
	"POST /api/v2/users/me/tokens":                                  {201, 201, 201, 201},
	"DELETE /api/v2/users/me/tokens/{tokenId}":                      {204, 404, 404, 404}, // the admin's token: only its owner revokes it
	"GET /api/v2/employees":                                         readAll,
	"GET /api/v1/employees/{employeeId}":                            readByID,
	"GET /api/v2/teams":                                             readAll,
	"GET /api/v1/teams/{teamId}":                                    readByID,
	"POST /api/v1/teams":                                            createAdmin(201),
	"PATCH /api/v1/teams/{teamId}":                                  adminOnly(200),
	"DELETE /api/v1/teams/{teamId}":                                 adminOnly(204),
	"PUT /api/v1/teams/{teamId}/members/{userId}":                   adminOnly(200),
	"DELETE /api/v1/teams/{teamId}/members/{userId}":                adminOnly(204),
	"GET /api/v2/roles":                                             readAll,
	"GET /api/v1/roles/account/mapping/":                            readAll,
	"GET /api/v1/roles/{id}":                                        readByID,
	"POST /api/v1/roles/account":                                    createAdmin(201),
	"POST /api/v1/roles/account/mapping":                            {201, 403, 403, 400}, // other: no such role
	"PUT /api/v1/roles/account/{id}":                                adminOnly(200),
	"DELETE /api/v1/roles/account/mapping/{id}":                     adminOnly(204),
	"DELETE /api/v1/roles/account/{id}":                             adminOnly(204),
	"GET /api/v1/permissions/actions":                               readAll,
	"GET /api/v1/permissions/currentUser-allowedActions/{targetId}": readByID,
	"GET /api/v1/permissions/default-access/{itemType}":             readAll,
	"GET /api/v1/permissions/default-access/{itemType}/{itemId}":    readByID,
	"PUT /api/v1/permissions/default-access/{itemType}/{itemId}":    adminOnly(200),
	"GET /api/v1/permissions/effective":                             readAll,
	"GET /api/v1/permissions/principal/{id}":                        adminOnly(200),
	"PUT /api/v1/permissions/principal/{id}":                        adminOnly(204),
	"GET /api/v1/permissions/{id}":                                  adminOnly(200),
	"POST /api/v1/permissions":                                      {201, 403, 403, 400}, // other: no such principal

	// The rest of the contract: reads for everyone in the account; tags,
	// badges, parameters, KPIs, lists and announcements are managed by
	// admins; dashboards are edited by their owners and admins; a member may
	// propose a badge (the assignment waits for approval).
	"GET /api/v1/announcements":                          readAll,
	"GET /api/v1/announcements/{id}":                     readByID,
	"POST /api/v1/announcements":                         createAdmin(201),
	"POST /api/v1/announcements/{id}/react":              {200, 200, 200, 404},
	"PATCH /api/v1/announcements/{id}":                   adminOnly(200),
	"DELETE /api/v1/announcements/{id}":                  adminOnly(204),
	"GET /api/v1/kpis/groups":                            readAll,
	"GET /api/v1/kpis/groups/{groupId}":                  readByID,
	"POST /api/v1/kpis/groups":                           createAdmin(201),
	"PATCH /api/v1/kpis/groups/{groupId}":                adminOnly(200),
	"DELETE /api/v1/kpis/groups/{groupId}":               adminOnly(204),
	"PUT /api/v1/kpis/groups/{groupId}/favorite":         {204, 204, 204, 404},
	"DELETE /api/v1/kpis/groups/{groupId}/favorite":      {204, 204, 204, 404},
	"PUT /api/v1/kpis/{kpiId}/groups/{groupId}":          adminOnly(204),
	"DELETE /api/v1/kpis/{kpiId}/groups/{groupId}":       adminOnly(204),
	"GET /api/v1/kpis":                                   readAll,
	"POST /api/v1/kpis":                                  createAdmin(201),
	"GET /api/v1/kpis/{kpiId}":                           readByID,
	"PATCH /api/v1/kpis/{kpiId}":                         adminOnly(200),
	"DELETE /api/v1/kpis/{kpiId}":                        adminOnly(204),
	"GET /api/v1/lists":                                  readAll,
	"GET /api/v1/lists/supported-types":                  readAll,
	"GET /api/v1/lists/{listId}":                         readByID,
	"GET /api/v1/lists/{targetType}/schema":              readAll,
	"POST /api/v1/lists":                                 createAdmin(201),
	"POST /api/v1/lists/{id}/clone":                      adminOnly(201),
	"POST /api/v1/lists/{id}/load":                       readByID,
	"PATCH /api/v1/lists/{id}":                           adminOnly(200),
	"DELETE /api/v1/lists/{id}":                          adminOnly(204),
	"GET /api/v2/integrations/tags":                      readAll,
	"POST /api/v1/dashboards/{dashboardId}/tags":         adminOnly(200),
	"POST /api/v2/integrations/insights/{id}/tags":       adminOnly(201),
	"POST /api/v1/tags":                                  createAdmin(200),
	"POST /api/v1/tags/activate":                         {200, 403, 403, 400}, // other: no such tag
	"POST /api/v1/tags/deactivate":                       {200, 403, 403, 400},
	"GET /api/v1/dashboards/parameters":                  readAll,
	"GET /api/v1/dashboards/parameters/{parameterId}":    readByID,
	"POST /api/v1/dashboards/parameters":                 createAdmin(201),
	"PUT /api/v1/dashboards/parameters/{parameterId}":    adminOnly(200),
	"DELETE /api/v1/dashboards/parameters/{parameterId}": adminOnly(204),
	"GET /api/v2/dashboards":                             readAll,
	"GET /api/v1/dashboards/reports":                     readAll,
	"GET /api/v1/dashboards/tag/{tag}":                   readAll, // a listing: another account sees []
	"GET /api/v1/dashboards/tags/usages":                 readAll,
	"GET /api/v1/dashboards/{dashboardId}":               readByID,
	"POST /api/v1/dashboards":                            createAdmin(201), // members edit only what they own
	"PATCH /api/v1/dashboards/{dashboardId}":             adminOnly(200),
	"DELETE /api/v1/dashboards/{dashboardId}":            adminOnly(204),
	"GET /api/v1/badges":                                 readAll,
	"GET /api/v1/badges/approve":                         readAll,
	"GET /api/v1/badges/assign":                          readAll,
	"GET /api/v1/badges/assign/{id}":                     readByID,
	"GET /api/v1/badges/current":                         readAll,
	"GET /api/v1/badges/{id}":                            readByID,
	"POST /api/v1/badges":                                createAdmin(201),
	"POST /api/v1/badges/approve/{id}":                   adminOnly(200),
	"POST /api/v1/badges/assign":                         {200, 200, 403, 400}, // other: no such badge
	"PATCH /api/v1/badges/{id}":                          adminOnly(204),
	"DELETE /api/v1/badges/approve/{id}":                 adminOnly(204),
	"DELETE /api/v1/badges/{id}":                         adminOnly(204),
}

// request builds the path and body of a route for a fixture.
func (e *authzEnv) request(rt rest.Route, f fixture) (string, any) {
	key := rt.Method + " " + rt.Pattern
	ids := map[string]string{"checkinId": f.checkin, "ownerId": e.acct.UserID, "taskId": f.task, "employeeId": f.user,
		"teamId": f.team, "userId": f.user, "targetId": f.goal, "itemType": "session", "itemId": f.session,
		"dashboardId": f.dashboard, "parameterId": f.parameter, "groupId": f.kpiGroup, "kpiId": f.kpi,
		"listId": f.list, "targetType": "goal", "tag": f.dashboard}
	switch {
	case strings.HasPrefix(rt.Pattern, "/api/v1/announcements/"):
		ids["id"] = f.announcement
	case strings.HasPrefix(rt.Pattern, "/api/v1/lists/"):
		ids["id"] = f.list
	case strings.HasPrefix(rt.Pattern, "/api/v2/integrations/insights/"):
		ids["id"] = f.insight
	case strings.HasPrefix(rt.Pattern, "/api/v1/badges/approve/"):
		ids["id"] = f.assignment
	case strings.HasPrefix(rt.Pattern, "/api/v1/badges/"):
		ids["id"] = f.badge
	case strings.Contains(rt.Pattern, "/goals/"):
		ids["id"] = f.goal
	case strings.Contains(rt.Pattern, "/metrics/"):
		ids["id"] = f.metric
	case key == "DELETE /api/v1/sessions/{id}":
		ids["id"] = f.emptySession
	case strings.Contains(rt.Pattern, "/sessions/"):
		ids["id"] = f.session
	case strings.Contains(rt.Pattern, "/accounts/"):
		ids["id"] = e.acct.AccountID
	case strings.Contains(rt.Pattern, "/users/"):
		ids["id"] = f.user
	case strings.Contains(rt.Pattern, "/mapping/"):
		ids["id"] = f.mapping
	case strings.Contains(rt.Pattern, "/roles/"), strings.Contains(rt.Pattern, "/principal/"):
		ids["id"] = f.role
	case strings.Contains(rt.Pattern, "/permissions/"):
		ids["id"] = f.grant
	}
	if strings.Contains(rt.Pattern, "{tokenId}") {
		ids["tokenId"] = e.adminTokenID()
	}
	if strings.HasPrefix(rt.Pattern, "/api/v1/webhooks/") {
		ids["id"] = e.webhookID() // webhooks_http_test.go
	}
	path := regexp.MustCompile(`\{([^}]+)\}`).ReplaceAllStringFunc(rt.Pattern, func(m string) string { return ids[m[1:len(m)-1]] })
	if strings.Contains(rt.Pattern, "currentUser-allowedActions") {
		path += "?targetType=goal"
	}
	if key == "GET /api/v2/integrations/tags" {
		path += "?name="
	}
	u := e.uniq()
	bodies := map[string]any{
		"POST /api/v2/integrations/goals/{id}/tags":                  map[string]any{"title": "t" + u},
		"POST /api/v1/goals":                                         map[string]any{"name": "N", "sessionId": f.session},
		"POST /api/v1/webhooks":                                      map[string]any{"url": "https://hooks.example.com/" + u, "events": []string{"*"}},
		"PATCH /api/v1/webhooks/{id}":                                map[string]any{"description": "d" + u},
		"PATCH /api/v1/goals/{id}":                                   map[string]any{"name": "N2"},
		"POST /api/v1/metrics":                                       map[string]any{"name": "N", "goalId": f.goal, "target": 5},
		"PATCH /api/v1/metrics/{id}":                                 map[string]any{"name": "N2"},
		"POST /api/v1/metrics/{id}/checkin":                          map[string]any{"actual": 7},
		"POST /api/v2/integrations/tasks":                            map[string]any{"name": "N", "parentId": f.goal},
		"PATCH /api/v2/integrations/tasks/{taskId}":                  map[string]any{"name": "N2"},
		"POST /api/v1/sessions":                                      map[string]any{"title": "N", "start": "2026-01-01", "end": "2026-02-01"},
		"PATCH /api/v1/sessions/{id}":                                map[string]any{"title": "N2"},
		"PUT /api/v1/accounts/{id}":                                  map[string]any{"accountName": "Acme"},
		"POST /api/v1/accounts/domain":                               map[string]any{"domain": "free-" + u},
		"PUT /api/v1/accounts/{id}/confidence":                       map[string]any{"confidenceType": "numeric", "confidenceMapping": []any{}},
		"PUT /api/v1/accounts/{id}/notifications":                    map[string]any{"cadence": "weekly"},
		"POST /api/v2/users":                                         map[string]any{"email": "new" + u + "@x.test"},
		"PATCH /api/v2/users/{id}":                                   map[string]any{"firstName": "X"},
		"POST /api/v1/teams":                                         map[string]any{"name": "N"},
		"PATCH /api/v1/teams/{teamId}":                               map[string]any{"name": "N2"},
		"POST /api/v1/roles/account":                                 map[string]any{"name": "R" + u},
		"POST /api/v1/roles/account/mapping":                         map[string]any{"roleId": f.role2, "teamId": f.team},
		"PUT /api/v1/roles/account/{id}":                             map[string]any{"name": "R" + u},
		"PUT /api/v1/permissions/default-access/{itemType}/{itemId}": map[string]any{"inherits": true, "permissions": []any{}},
		"PUT /api/v1/permissions/principal/{id}":                     map[string]any{"actions": []string{"goals:read"}},
		"POST /api/v1/permissions":                                   map[string]any{"action": "goals:read", "principals": []string{f.role}},

		"POST /api/v1/announcements":                      map[string]any{"comment": "hi", "announcementType": "general"},
		"POST /api/v1/announcements/{id}/react":           map[string]any{"reactionId": "like"},
		"PATCH /api/v1/announcements/{id}":                map[string]any{"comment": "edited"},
		"POST /api/v1/kpis/groups":                        map[string]any{"name": "G" + u},
		"PATCH /api/v1/kpis/groups/{groupId}":             map[string]any{"name": "G2" + u},
		"POST /api/v1/kpis":                               map[string]any{"name": "K" + u},
		"PATCH /api/v1/kpis/{kpiId}":                      map[string]any{"name": "K2" + u},
		"POST /api/v1/lists":                              map[string]any{"title": "L" + u, "listType": "goal"},
		"POST /api/v1/lists/{id}/load":                    map[string]any{},
		"PATCH /api/v1/lists/{id}":                        map[string]any{"title": "L2" + u},
		"POST /api/v1/dashboards/{dashboardId}/tags":      map[string]any{"title": "t" + u},
		"POST /api/v2/integrations/insights/{id}/tags":    map[string]any{"title": "t" + u},
		"POST /api/v1/tags":                               map[string]any{"title": "t" + u},
		"POST /api/v1/tags/activate":                      map[string]any{"tagIds": []string{f.inactiveTag}},
		"POST /api/v1/tags/deactivate":                    map[string]any{"tagIds": []string{f.activeTag}},
		"POST /api/v1/dashboards/parameters":              map[string]any{"key": "k" + u, "title": "K", "selectorType": "single"},
		"PUT /api/v1/dashboards/parameters/{parameterId}": map[string]any{"key": "k" + u, "title": "K2", "selectorType": "text"},
		"POST /api/v1/dashboards":                         map[string]any{"name": "D" + u},
		"PATCH /api/v1/dashboards/{dashboardId}":          map[string]any{"name": "D2" + u},
		"POST /api/v1/badges":                             map[string]any{"name": "B" + u},
		"POST /api/v1/badges/assign":                      map[string]any{"badgeId": f.badge, "assigneeIds": []string{f.user}},
		"PATCH /api/v1/badges/{id}":                       map[string]any{"name": "B2" + u},
	}
	return path, bodies[key]
}

// TestAuthzMatrix runs every route of the table as the admin, a member, a
// viewer and another account's admin, each against fresh items, and checks
// the status the rules expect. A route without a rule fails.
func TestAuthzMatrix(t *testing.T) {
	e := newAuthzEnv(t)
	var missing []string
	for _, rt := range rest.Routes() {
		if _, ok := authzRules[rt.Method+" "+rt.Pattern]; !ok {
			missing = append(missing, rt.Method+" "+rt.Pattern)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("%d route(s) have no authorization rule in authzRules:\n  %s", len(missing), strings.Join(missing, "\n  "))
	}
	for _, rt := range rest.Routes() {
		want, ok := authzRules[rt.Method+" "+rt.Pattern]
		if !ok {
			continue
		}
		for _, who := range []struct {
			name   string
			as     *sqlstore.BootstrapResult
			status int
		}{{"other", &e.other, want.other}, {"viewer", &e.viewer, want.viewer}, {"member", &e.member, want.member}, {"admin", &e.acct, want.admin}} {
			f := e.fixture()
			path, body := e.request(rt, f)
			r := e.do(req{method: rt.Method, path: path, body: body, as: who.as})
			if r.status != who.status {
				t.Errorf("%s %s as %s: status %d, want %d: %s", rt.Method, path, who.name, r.status, who.status, r.body)
				continue
			}
			if r.status >= 400 {
				checkProblem(t, r, r.status, problemCode(r.status, string(r.body)))
			}
		}
	}
}

func problemCode(status int, body string) string {
	switch status {
	case 403:
		return "forbidden"
	case 404:
		return "not_found"
	}
	if m := regexp.MustCompile(`"code":"([a-z_]+)"`).FindStringSubmatch(body); m != nil {
		return m[1]
	}
	return ""
}

// TestNoCrossAccountLeaks: the other account's admin tries every way to
// reach acct's data — by id, by filter, by nested projection, by the
// grouping and by edges (parentId, goalId) — and sees nothing of it.
func TestNoCrossAccountLeaks(t *testing.T) {
	e := newAuthzEnv(t)
	f := e.fixture()
	secret := "Acme secret objective"
	ctx := e.adminCtx()
	if _, err := e.store.UpdateGoal(ctx, f.goal, upstream.GoalPatch{Name: &secret}); err != nil {
		t.Fatal(err)
	}
	// Another account's goal whose parent the attacker tries to set to acct's goal.
	oss := e.ok(req{method: "POST", path: "/api/v1/sessions", as: &e.other, body: map[string]any{"title": "G", "start": "2026-01-01", "end": "2026-12-31"}}, 201)
	q := url.QueryEscape
	paths := []string{
		"/api/v2/integrations/goals?filter=" + q(`{"_id":"`+f.goal+`"}`),
		"/api/v2/integrations/goals?filter=" + q(`{"name":{"$regex":"secret","$options":"i"}}`),
		"/api/v2/integrations/goals?filter=" + q(`{"sessionId":"`+f.session+`"}`) + "&fields=" + q("name,metrics{name,goalName},tasks{name,parentName}"),
		"/api/v2/integrations/goals/groupBy/owners?ownerIds=" + e.acct.UserID + "&includeMetrics=true",
		"/api/v2/integrations/goals/groupBy/owners?ids=" + f.goal,
		"/api/v2/metrics?filter=" + q(`{"goalId":"`+f.goal+`"}`),
		"/api/v2/metrics?filter=" + q(`{"goalName":"`+secret+`"}`),
		"/api/v2/integrations/tasks?filter=" + q(`{"parentId":"`+f.goal+`"}`),
		"/api/v1/metrics/owner/" + e.acct.UserID,
		"/api/v2/users?filter=" + q(`{"email":"ann@acme.test"}`),
		"/api/v1/accounts/users?filter=" + q("email:acme"),
		"/api/v2/employees?filter=" + q(`{"email":"ann@acme.test"}`),
		"/api/v2/teams?filter=" + q(`{"_id":"`+f.team+`"}`),
		"/api/v2/roles?filter=" + q(`{"_id":"`+f.role+`"}`),
		"/api/v1/roles/account/mapping/",
		"/api/v2/sessions?filter=" + q(`{"_id":"`+f.session+`"}`),
	}
	for _, p := range paths {
		r := e.do(req{method: "GET", path: p, as: &e.other})
		if r.status != 200 {
			t.Errorf("GET %s: %d %s", p, r.status, r.body)
			continue
		}
		body := string(r.body)
		for _, leak := range []string{secret, f.goal, f.metric, f.task, f.team, f.role, f.mapping, e.acct.UserID, e.acct.AccountID, "ann@acme.test"} {
			if strings.Contains(body, leak) && !strings.Contains(p, leak) || strings.Contains(body, `"`+leak+`"`) {
				t.Errorf("GET %s as the other account leaks %q: %s", p, leak, body)
			}
		}
	}
	// By id: every read and write of acct's ids is 404.
	for _, p := range []string{"/api/v1/goals/" + f.goal, "/api/v1/metrics/" + f.metric, "/api/v1/metrics/checkin/" + f.checkin,
		"/api/v2/integrations/tasks/" + f.task, "/api/v1/sessions/" + f.session, "/api/v1/teams/" + f.team,
		"/api/v1/roles/" + f.role, "/api/v1/permissions/" + f.grant, "/api/v2/users/" + f.user, "/api/v1/employees/" + f.user,
		"/api/v1/accounts/" + e.acct.AccountID, "/api/v1/permissions/principal/" + f.role,
		"/api/v1/permissions/currentUser-allowedActions/" + f.metric + "?targetType=metric",
		"/api/v1/permissions/default-access/goal/" + f.goal} {
		e.problem(req{method: "GET", path: p, as: &e.other}, 404, "not_found")
	}
	// By edge: a goal of the other account cannot hang under acct's goal,
	// nor a key result or a task under acct's items.
	e.problem(req{method: "POST", path: "/api/v1/goals", as: &e.other, body: map[string]any{"name": "x", "sessionId": str(oss, "id"), "parentId": f.goal}}, 400, "invalid_input")
	e.problem(req{method: "POST", path: "/api/v1/metrics", as: &e.other, body: map[string]any{"name": "x", "goalId": f.goal, "target": 1}}, 400, "invalid_input")
	e.problem(req{method: "POST", path: "/api/v2/integrations/tasks", as: &e.other, body: map[string]any{"name": "x", "parentId": f.metric}}, 400, "invalid_input")
	e.problem(req{method: "POST", path: "/api/v1/teams", as: &e.other, body: map[string]any{"name": "x", "members": []string{e.acct.UserID}}}, 400, "invalid_input")
	e.problem(req{method: "POST", path: "/api/v1/permissions", as: &e.other, body: map[string]any{"action": "goals:read", "principals": []string{e.acct.UserID}}}, 400, "invalid_input")
}

// TestPrivateGoals: a private goal is seen by its owner, its session's
// manager and admins; to the others it does not exist — except as an
// obfuscated stub where a visible child's tree passes through it — and its
// name appears in no response body.
func TestPrivateGoals(t *testing.T) {
	e := newAuthzEnv(t)
	owner := e.addUser("member")
	manager := e.addUser("member")
	ctx := e.adminCtx()
	ss, err := e.store.CreateSession(ctx, upstream.SessionInput{Title: "S", Start: "2026-01-01", End: "2026-12-31"})
	if err != nil {
		t.Fatal(err)
	}
	// The manager gets sessions:manage on this session through its access.
	if _, err := e.store.SetItemAccess(ctx, "session", ss.ID, upstream.Access{Inherits: true, Permissions: []upstream.PermissionEntry{
		{PrincipalID: manager.UserID, PrincipalKind: "user", Grant: map[string]int{"sessions:manage": 1}}}}); err != nil {
		t.Fatal(err)
	}
	const secret = "Zanzibar acquisition"
	const krName = "Zanzibar term sheet"
	const taskName = "Call Zanzibar bank"
	root, _ := e.store.CreateGoal(ctx, upstream.GoalInput{Name: "Public root", SessionID: ss.ID})
	priv, err := e.store.CreateGoal(ctx, upstream.GoalInput{Name: secret, Description: "about " + secret, SessionID: ss.ID, ParentID: root.ID,
		Private: true, OwnerIDs: []string{owner.UserID}})
	if err != nil {
		t.Fatal(err)
	}
	child, err := e.store.CreateGoal(ctx, upstream.GoalInput{Name: "Public child", SessionID: ss.ID, ParentID: priv.ID})
	if err != nil {
		t.Fatal(err)
	}
	lonely, _ := e.store.CreateGoal(ctx, upstream.GoalInput{Name: secret + " 2", SessionID: ss.ID, Private: true, OwnerIDs: []string{owner.UserID}})
	tgt := 1.0
	m, err := e.store.CreateMetric(ctx, upstream.MetricInput{Name: krName, GoalID: priv.ID, Target: &tgt})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.CheckIn(ctx, m.ID, upstream.CheckInInput{Actual: &tgt}); err != nil {
		t.Fatal(err)
	}
	tk, err := e.store.CreateTask(ctx, upstream.TaskInput{Name: taskName, ParentID: priv.ID})
	if err != nil {
		t.Fatal(err)
	}
	// A task the member owns under the private goal: it sees its task, not the parent's name.
	own, err := e.store.CreateTask(ctx, upstream.TaskInput{Name: "my task", ParentID: priv.ID, OwnerID: e.member.UserID})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.store.AddGoalTag(ctx, priv.ID, "zanzibar-tag"); err != nil {
		t.Fatal(err)
	}
	met, _ := e.store.CreateGoal(ctx, upstream.GoalInput{Name: "met", SessionID: ss.ID})
	_ = met
	q := url.QueryEscape
	listings := []string{
		"/api/v2/integrations/goals",
		"/api/v2/integrations/goals?fields=" + q("name,description,metrics{name,goalName},tasks{name,parentName},tags"),
		"/api/v2/integrations/goals?filter=" + q(`{"name":{"$regex":"zanzibar","$options":"i"}}`),
		"/api/v2/integrations/goals?sort=name",
		"/api/v2/integrations/goals/groupBy/owners?includeMetrics=true",
		"/api/v2/integrations/goals/groupBy/owners?ownerIds=" + owner.UserID + "&includeMetrics=true",
		"/api/v1/sessions/" + ss.ID + "/stats/goalsMet",
		"/api/v2/metrics",
		"/api/v2/metrics?filter=" + q(`{"goalId":"`+priv.ID+`"}`),
		"/api/v1/metrics/owner/" + e.acct.UserID,
		"/api/v2/integrations/tasks",
		"/api/v2/integrations/tasks?filter=" + q(`{"parentName":{"$regex":"zanzibar","$options":"i"}}`),
		"/api/v1/goals/" + root.ID,
		"/api/v1/goals/" + child.ID,
		"/api/v1/goals/" + priv.ID, // the obfuscated stub
		"/api/v1/goals/" + priv.ID + "?fields=" + q("name,metrics{name},tags"),
	}
	for _, who := range []struct {
		name string
		as   *sqlstore.BootstrapResult
	}{{"member", &e.member}, {"viewer", &e.viewer}} {
		for _, p := range listings {
			r := e.do(req{method: "GET", path: p, as: who.as})
			if r.status != 200 {
				t.Errorf("%s GET %s: %d %s", who.name, p, r.status, r.body)
				continue
			}
			for _, leak := range []string{"Zanzibar", "zanzibar", krName, taskName, owner.UserID} {
				if strings.Contains(string(r.body), leak) {
					t.Errorf("%s GET %s leaks %q: %s", who.name, p, leak, r.body)
				}
			}
		}
		// The stub: obfuscated, with its place in the tree only.
		stub := e.ok(req{method: "GET", path: "/api/v1/goals/" + priv.ID, as: who.as}, 200)
		if stub["obfuscated"] != true || str(stub, "name") != "" || str(stub, "parentId") != root.ID || len(stub["ownerIds"].([]any)) != 0 {
			t.Errorf("%s: stub = %v", who.name, stub)
		}
		// In the listing, the stub is counted and shown obfuscated; the lonely private goal is absent.
		all := e.ok(req{method: "GET", path: "/api/v2/integrations/goals?limit=1000", as: who.as}, 200)
		var ids []string
		for _, g := range items(all) {
			ids = append(ids, str(g, "id"))
		}
		if !slices.Contains(ids, priv.ID) || slices.Contains(ids, lonely.ID) || int(num(all, "totalCount")) != len(ids) {
			t.Errorf("%s: listing ids %v (total %v), private %s lonely %s", who.name, ids, all["totalCount"], priv.ID, lonely.ID)
		}
		// Everything else about it is 404.
		for _, p := range []string{"/api/v1/goals/" + lonely.ID, "/api/v1/metrics/" + m.ID, "/api/v2/integrations/tasks/" + tk.ID,
			"/api/v1/metrics/" + m.ID + "/checkins", "/api/v1/permissions/currentUser-allowedActions/" + priv.ID + "?targetType=goal",
			"/api/v1/permissions/default-access/goal/" + priv.ID} {
			e.problem(req{method: "GET", path: p, as: who.as}, 404, "not_found")
		}
		e.problem(req{method: "PATCH", path: "/api/v1/goals/" + priv.ID, as: who.as, body: map[string]any{"name": "x"}}, 404, "not_found")
	}
	// The member's own task under the private goal: visible, parent name hidden.
	mt := e.ok(req{method: "GET", path: "/api/v2/integrations/tasks/" + own.ID, as: &e.member}, 200)
	if str(mt, "name") != "my task" || str(mt, "parentName") != "" {
		t.Errorf("member's own task = %v", mt)
	}
	// Owner, manager and admin see it in full.
	for _, who := range []struct {
		name string
		as   *sqlstore.BootstrapResult
	}{{"owner", &owner}, {"manager", &manager}, {"admin", &e.acct}} {
		g := e.ok(req{method: "GET", path: "/api/v1/goals/" + priv.ID, as: who.as}, 200)
		if str(g, "name") != secret || g["obfuscated"] == true {
			t.Errorf("%s: private goal = %v", who.name, g)
		}
		ms := e.ok(req{method: "GET", path: "/api/v2/metrics?filter=" + q(`{"goalId":"`+priv.ID+`"}`), as: who.as}, 200)
		if num(ms, "totalCount") != 1 || str(items(ms)[0], "goalName") != secret {
			t.Errorf("%s: metrics of the private goal = %v", who.name, ms)
		}
	}
	// The owner may edit it; the manager too (sessions:manage is not goals:update,
	// but the manager sees it): a member manager without goals:update gets 403.
	e.ok(req{method: "PATCH", path: "/api/v1/goals/" + priv.ID, as: &owner, body: map[string]any{"description": "x"}}, 200)
	e.problem(req{method: "PATCH", path: "/api/v1/goals/" + priv.ID, as: &manager, body: map[string]any{"description": "y"}}, 403, "forbidden")
}

// TestDeactivatedUserTokens: a deactivated user's tokens stop working at once.
func TestDeactivatedUserTokens(t *testing.T) {
	e := newAuthzEnv(t)
	u := e.ok(req{method: "POST", path: "/api/v2/users", body: map[string]any{"email": "zoe@acme.test", "firstName": "Zoe", "lastName": "Ray",
		"roleIds": []string{"000000000000000000000003"}}}, 201)
	tok := e.ok(req{method: "POST", path: "/api/v2/users/" + str(u, "id") + "/tokens"}, 201)
	zoe := sqlstore.BootstrapResult{AccountID: e.acct.AccountID, UserID: str(u, "id"), Token: str(tok, "token")}
	e.ok(req{method: "GET", path: "/api/v2/integrations/goals", as: &zoe}, 200)
	// A viewer: reads only.
	e.problem(req{method: "POST", path: "/api/v1/sessions", as: &zoe, body: map[string]any{"title": "x", "start": "2026-01-01", "end": "2026-02-01"}}, 403, "forbidden")
	e.ok(req{method: "PATCH", path: "/api/v2/users/" + zoe.UserID, body: map[string]any{"isActive": false}}, 200)
	e.problem(req{method: "GET", path: "/api/v2/integrations/goals", as: &zoe}, 401, "unauthenticated")
	// The last admin cannot be deactivated.
	e.problem(req{method: "PATCH", path: "/api/v2/users/" + e.acct.UserID, body: map[string]any{"isActive": false}}, 409, "conflict")
}

// TestRolesAndGrants: an account role mapped to a team gives the team's
// members what is granted to the role; deny on a session beats it.
func TestRolesAndGrants(t *testing.T) {
	e := newAuthzEnv(t)
	role := e.ok(req{method: "POST", path: "/api/v1/roles/account", body: map[string]any{"name": "Planners"}}, 201)
	team := e.ok(req{method: "POST", path: "/api/v1/teams", body: map[string]any{"name": "Planning", "members": []string{e.viewer.UserID}}}, 201)
	e.ok(req{method: "POST", path: "/api/v1/roles/account/mapping", body: map[string]any{"roleId": str(role, "id"), "teamId": str(team, "id")}}, 201)
	e.problem(req{method: "POST", path: "/api/v1/sessions", as: &e.viewer, body: map[string]any{"title": "x", "start": "2026-01-01", "end": "2026-02-01"}}, 403, "forbidden")
	e.ok(req{method: "PUT", path: "/api/v1/permissions/principal/" + str(role, "id"), body: map[string]any{"actions": []string{"sessions:manage", "goals:create"}}}, 204)
	ss := e.ok(req{method: "POST", path: "/api/v1/sessions", as: &e.viewer, body: map[string]any{"title": "x", "start": "2026-01-01", "end": "2026-02-01"}}, 201)
	pp := e.ok(req{method: "GET", path: "/api/v1/permissions/principal/" + str(role, "id")}, 200)
	if fmt.Sprint(pp["actions"]) != "[sessions:manage goals:create]" && fmt.Sprint(pp["actions"]) != "[goals:create sessions:manage]" {
		t.Errorf("role permissions = %v", pp)
	}
	eff := e.ok(req{method: "GET", path: "/api/v1/permissions/effective", as: &e.viewer}, 200)
	if !strings.Contains(fmt.Sprint(eff["actions"]), "sessions:manage") {
		t.Errorf("effective = %v", eff)
	}
	// Shadowed roles appear on request.
	us := e.ok(req{method: "GET", path: "/api/v1/accounts/users?filter=" + url.QueryEscape("roles:"+str(role, "id")) + "&includeShadowedRoles=true"}, 200)
	if num(us, "totalCount") != 1 || !strings.Contains(fmt.Sprint(items(us)[0]["roles"]), "Planners") {
		t.Errorf("users with the role = %v", us)
	}
	// Deny beats grant: the session denies goals:create to the viewer.
	e.ok(req{method: "PUT", path: "/api/v1/permissions/default-access/session/" + str(ss, "id"), body: map[string]any{"inherits": true,
		"permissions": []any{map[string]any{"principalId": e.viewer.UserID, "principalKind": "user", "deny": map[string]int{"goals:create": 1}}}}}, 200)
	e.problem(req{method: "POST", path: "/api/v1/goals", as: &e.viewer, body: map[string]any{"name": "x", "sessionId": str(ss, "id")}}, 403, "forbidden")
	// The member can create there, and edit what it owns, not what it does not.
	g := e.ok(req{method: "POST", path: "/api/v1/goals", as: &e.member, body: map[string]any{"name": "mine", "sessionId": str(ss, "id")}}, 201)
	e.ok(req{method: "PATCH", path: "/api/v1/goals/" + str(g, "id"), as: &e.member, body: map[string]any{"name": "mine 2"}}, 200)
	g = e.ok(req{method: "GET", path: "/api/v1/goals/" + str(g, "id"), as: &e.member}, 200)
	if acts := fmt.Sprint(g["currentUserAllowedActions"]); !strings.Contains(acts, "goals:update") {
		t.Errorf("member's own goal allowed actions %s", acts)
	}
	a := e.ok(req{method: "GET", path: "/api/v1/permissions/currentUser-allowedActions/" + str(g, "id") + "?targetType=goal", as: &e.viewer}, 200)
	if acts := fmt.Sprint(a["currentUserActions"]); acts != "[goals:read]" {
		t.Errorf("viewer's allowed actions on the member's goal: %s", acts)
	}
}
