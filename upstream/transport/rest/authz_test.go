package rest_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
	"github.com/okrgate/okrgate/upstream/transport/rest"
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
	comment                                            string
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
	cm, err := e.store.CreateComment(ctx, upstream.CommentInput{TargetType: upstream.CommentTargetMetric, TargetID: m.ID, Text: "C"})
	must(err)
	f = fixture{session: ss.ID, emptySession: es.ID, goal: g.ID, metric: m.ID, task: tk.ID, checkin: ci.ID,
		team: tm.ID, user: u.ID, role: r.ID, role2: r2.ID, mapping: mp.MappingID, grant: gr.ID, comment: cm.ID}
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
	case strings.HasPrefix(rt.Pattern, "/api/v1/comments/"):
		ids["id"] = f.comment
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
	switch key {
	case "POST /api/v1/fileserver/avatar/{userId}":
		return path, e.avatarForm()
	case "DELETE /api/v1/fileserver/avatar/{userId}":
		e.avatarOf(f.user)
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
		"POST /api/v1/users":                                         map[string]any{"email": "new" + u + "@x.test"},
		"PATCH /api/v1/users/{id}":                                   map[string]any{"firstName": "X"},
		"POST /api/v1/tasks":                                         map[string]any{"name": "N", "parentId": f.goal},
		"PATCH /api/v1/tasks/{taskId}":                               map[string]any{"name": "N2"},
		"PUT /api/v1/tasks/{taskId}":                                 map[string]any{"name": "N3", "id": "x", "modifiedAt": "2026-01-01T00:00:00Z"},
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
		"POST /api/v1/comments":                           map[string]any{"targetType": upstream.CommentTargetMetric, "targetId": f.metric, "text": "C" + u},
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
	// A read changes nothing, so every read runs against one set of items;
	// every other request gets fresh ones (a delete, say, must find its item).
	var read *fixture
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
			var f fixture
			switch {
			case rt.Method != http.MethodGet && rt.Method != http.MethodHead:
				f = e.fixture()
			case read == nil:
				f = e.fixture()
				read = &f
			default:
				f = *read
			}
			path, body := e.request(rt, f)
			q := req{method: rt.Method, path: path, body: body, as: who.as}
			if f, ok := body.(formBody); ok { // an upload (avatars_http_test.go)
				q.body, q.raw, q.ctype = nil, &f.body, &f.ctype
			}
			r := e.do(q)
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
