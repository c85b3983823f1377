package resolvers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/okrgate/okrgate/upstream/sqlstore/sqlstoretest"

	"github.com/vektah/gqlparser/v2/ast"

	"github.com/okrgate/okrgate/graph"
	"github.com/okrgate/okrgate/resolvers"
	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/instrument"
	"github.com/okrgate/okrgate/upstream/sqlstore"
)

// The GraphQL half of the authorization matrix of issue 4 (the REST half is
// upstream/rest/authz_test.go): every root field of Query and Mutation, taken
// from the executable schema, runs as the account's admin, a member, a viewer
// and another account's admin, each against fresh items, and must give the
// outcome its rule in gqlRules says. A root field without a rule fails.

// azEnv is one store with two accounts behind a real GraphQL HTTP server:
// acct (admin, member, viewer) owns the fixtures, other is a second account
// whose admin tries to reach them.
type azEnv struct {
	t              *testing.T
	store          *sqlstore.Store
	srv            *httptest.Server
	acct, other    sqlstore.BootstrapResult
	member, viewer sqlstore.BootstrapResult
	n              atomic.Int64
}

func newAzEnv(t *testing.T) *azEnv {
	t.Helper()
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, sqlstoretest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	e := &azEnv{t: t, store: st}
	if e.acct, err = st.Bootstrap(ctx, sqlstore.BootstrapInput{AccountName: "Acme", Email: "ann@acme.test"}); err != nil {
		t.Fatal(err)
	}
	if e.other, err = st.Bootstrap(ctx, sqlstore.BootstrapInput{AccountName: "Globex", Email: "hank@globex.test"}); err != nil {
		t.Fatal(err)
	}
	e.member = e.addUser(e.acct, "member")
	e.viewer = e.addUser(e.acct, "viewer")
	api := instrument.New(st, instrument.NewCounter())
	e.srv = httptest.NewServer(resolvers.NewHandler(resolvers.Config{API: api, Auth: api}))
	t.Cleanup(e.srv.Close)
	return e
}

func (e *azEnv) uniq() string { return fmt.Sprint(e.n.Add(1)) }

// ctxOf is a direct-store context of an account's admin.
func ctxOf(b sqlstore.BootstrapResult) context.Context {
	return upstream.NewContext(context.Background(), upstream.Caller{AccountID: b.AccountID, UserID: b.UserID, Roles: []string{"admin"}})
}

// addUser creates a user of the account of admin with a built-in role and a token.
func (e *azEnv) addUser(admin sqlstore.BootstrapResult, role string) sqlstore.BootstrapResult {
	e.t.Helper()
	ctx := ctxOf(admin)
	u, err := e.store.CreateUser(ctx, upstream.UserInput{Email: role + e.uniq() + "@" + admin.AccountID + ".test", FirstName: role, Role: role})
	if err != nil {
		e.t.Fatal(err)
	}
	tok, err := e.store.CreateToken(ctx, u.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	return sqlstore.BootstrapResult{AccountID: admin.AccountID, UserID: u.ID, Token: tok}
}

// azItems is a fresh set of items of one account, all created (and owned)
// by its admin; the names start with prefix. It mirrors the REST fixture.
type azItems struct {
	session, emptySession, goal, metric, task, checkin   string
	team, user, role, role2, mapping, grant              string
	dashboard, insight, parameter, activeTag, inactive   string
	badge, assignment, kpiGroup, kpi, list, announcement string
	// names holds every name, title and email given to the items.
	names []string
}

func (e *azEnv) items(admin sqlstore.BootstrapResult, prefix string) azItems {
	e.t.Helper()
	ctx := ctxOf(admin)
	must := func(err error) {
		e.t.Helper()
		if err != nil {
			e.t.Fatal(err)
		}
	}
	u := e.uniq()
	n := func(what string) string { return prefix + " " + what + " " + u }
	var f azItems
	ss, err := e.store.CreateSession(ctx, upstream.SessionInput{Title: n("session"), Start: "2026-01-01", End: "2026-12-31"})
	must(err)
	es, err := e.store.CreateSession(ctx, upstream.SessionInput{Title: n("empty session"), Start: "2026-01-01", End: "2026-12-31"})
	must(err)
	g, err := e.store.CreateGoal(ctx, upstream.GoalInput{Name: n("goal"), SessionID: ss.ID, Tags: []upstream.TagInput{{Title: "shared-tag"}}})
	must(err)
	tgt := 10.0
	m, err := e.store.CreateMetric(ctx, upstream.MetricInput{Name: n("metric"), GoalID: g.ID, Target: &tgt})
	must(err)
	tk, err := e.store.CreateTask(ctx, upstream.TaskInput{Name: n("task"), ParentID: g.ID})
	must(err)
	act := 5.0
	ci, err := e.store.CheckIn(ctx, m.ID, upstream.CheckInInput{Actual: &act, Comment: n("checkin")})
	must(err)
	email := strings.ToLower(strings.ReplaceAll(prefix, " ", "")) + u + "@items.test"
	usr, err := e.store.CreateUser(ctx, upstream.UserInput{Email: email, FirstName: n("user")})
	must(err)
	tm, err := e.store.CreateTeam(ctx, upstream.TeamInput{Name: n("team"), Members: []string{usr.ID}, Manager: usr.ID})
	must(err)
	r, err := e.store.CreateRole(ctx, upstream.RoleInput{Name: n("role")})
	must(err)
	r2, err := e.store.CreateRole(ctx, upstream.RoleInput{Name: n("role2")})
	must(err)
	mp, err := e.store.CreateRoleMapping(ctx, upstream.RoleMappingInput{RoleID: r.ID, TeamID: tm.ID})
	must(err)
	gr, err := e.store.CreatePermission(ctx, upstream.PermissionInput{Action: "goals:read", Principals: []string{r.ID}})
	must(err)
	f = azItems{session: ss.ID, emptySession: es.ID, goal: g.ID, metric: m.ID, task: tk.ID, checkin: ci.ID,
		team: tm.ID, user: usr.ID, role: r.ID, role2: r2.ID, mapping: mp.MappingID, grant: gr.ID}
	d, err := e.store.CreateDashboard(ctx, upstream.DashboardInput{Name: n("dashboard"),
		Insights: []upstream.InsightItem{{InsightName: "chart", Type: "insight"}}, Tags: []upstream.TagInput{{Title: "shared-tag"}}})
	must(err)
	f.dashboard, f.insight = d.ID, d.Insights[0].InsightID
	p, err := e.store.CreateDashboardParameter(ctx, upstream.DashboardParameterInput{Key: "k" + u, Title: n("parameter"), SelectorType: "single"})
	must(err)
	f.parameter = p.ID
	tags, err := e.store.CreateTags(ctx, upstream.TagCreateInput{Titles: []string{n("on-tag"), n("off-tag")}})
	must(err)
	f.activeTag, f.inactive = tags[0].ID, tags[1].ID
	_, err = e.store.SetTagsActive(ctx, []string{f.inactive}, false)
	must(err)
	b, err := e.store.CreateBadge(ctx, upstream.BadgeInput{Name: n("badge")})
	must(err)
	f.badge = b.ID
	ab, err := e.store.AssignBadge(ctx, upstream.AssignBadgeInput{BadgeID: b.ID, AssigneeIDs: []string{usr.ID}})
	must(err)
	f.assignment = ab.ID
	kg, err := e.store.CreateKPIGroup(ctx, upstream.KPIGroupInput{Name: n("kpi group")})
	must(err)
	f.kpiGroup = kg.ID
	k, err := e.store.CreateKPI(ctx, upstream.KPIInput{Name: n("kpi"), OwnerID: usr.ID, GroupIDs: []string{kg.ID}})
	must(err)
	f.kpi = k.ID
	l, err := e.store.CreateList(ctx, upstream.ListInput{Title: n("list"), ListType: "goal"})
	must(err)
	f.list = l.ID
	a, err := e.store.CreateAnnouncement(ctx, upstream.AnnouncementInput{Comment: n("announcement"), AnnouncementType: "general", AuthorID: usr.ID})
	must(err)
	f.announcement = a.ID
	for _, w := range []string{"session", "empty session", "goal", "metric", "task", "checkin", "user", "team", "role", "role2",
		"dashboard", "parameter", "on-tag", "off-tag", "badge", "kpi group", "kpi", "list", "announcement"} {
		f.names = append(f.names, n(w))
	}
	f.names = append(f.names, email)
	return f
}

func (f azItems) ids() []string {
	return []string{f.session, f.emptySession, f.goal, f.metric, f.task, f.checkin, f.team, f.user, f.role, f.role2, f.mapping, f.grant,
		f.dashboard, f.insight, f.parameter, f.activeTag, f.inactive, f.badge, f.assignment, f.kpiGroup, f.kpi, f.list, f.announcement}
}

// Outcomes of a root field for one caller.
const (
	azOK          = "ok"   // no error, the field's data is not null
	azNull        = "null" // no error, the field is null: a nullable by-id read of an id the caller cannot see
	azForbidden   = resolvers.CodeForbidden
	azNotFound    = resolvers.CodeNotFound
	azBadInput    = resolvers.CodeBadUserInput
	azNotModified = resolvers.CodeNotModified
)

// azRule is the expected outcome of a root field for the account's admin, a
// member (owning none of the fixture's items), a viewer and the other
// account's admin, and the argument values for a fresh fixture.
type azRule struct {
	admin, member, viewer, other string
	args                         func(e *azEnv, f azItems) map[string]any
}

type azArgs = map[string]any

func none(*azEnv, azItems) map[string]any { return nil }

var (
	// listings and catalogue reads: everyone, each in its own account.
	azReadAll = azRule{azOK, azOK, azOK, azOK, none}
	// nullable reads by id: another account's id is null.
	azReadByID = func(args func(*azEnv, azItems) map[string]any) azRule {
		return azRule{azOK, azOK, azOK, azNull, args}
	}
	// changes of an existing item: admins; another account's id is not found.
	azAdminOnly = func(args func(*azEnv, azItems) map[string]any) azRule {
		return azRule{azOK, azForbidden, azForbidden, azNotFound, args}
	}
	// creates (and account operations) in the caller's own account: admins,
	// and the other account's admin in its own account.
	azCreateAdmin = func(args func(*azEnv, azItems) map[string]any) azRule {
		return azRule{azOK, azForbidden, azForbidden, azOK, args}
	}
	// writes that name an item of this account in their input: the other
	// account's admin gets "no such ..." (BAD_USER_INPUT).
	azCreateRef = func(member string, args func(*azEnv, azItems) map[string]any) azRule {
		return azRule{azOK, member, azForbidden, azBadInput, args}
	}
	byID = func(pick func(azItems) string) func(*azEnv, azItems) map[string]any {
		return func(_ *azEnv, f azItems) map[string]any { return azArgs{"id": pick(f)} }
	}
	idAnd = func(pick func(azItems) string, kv ...any) func(*azEnv, azItems) map[string]any {
		return func(e *azEnv, f azItems) map[string]any {
			m := azArgs{"id": pick(f)}
			for i := 0; i < len(kv); i += 2 {
				m[kv[i].(string)] = kv[i+1]
			}
			return m
		}
	}
	fixed = func(kv ...any) func(*azEnv, azItems) map[string]any {
		return func(*azEnv, azItems) map[string]any {
			m := azArgs{}
			for i := 0; i < len(kv); i += 2 {
				m[kv[i].(string)] = kv[i+1]
			}
			return m
		}
	}
	fGoal      = func(f azItems) string { return f.goal }
	fMetric    = func(f azItems) string { return f.metric }
	fTask      = func(f azItems) string { return f.task }
	fSession   = func(f azItems) string { return f.session }
	fTeam      = func(f azItems) string { return f.team }
	fUser      = func(f azItems) string { return f.user }
	fRole      = func(f azItems) string { return f.role }
	fMapping   = func(f azItems) string { return f.mapping }
	fGrant     = func(f azItems) string { return f.grant }
	fDashboard = func(f azItems) string { return f.dashboard }
	fParameter = func(f azItems) string { return f.parameter }
	fBadge     = func(f azItems) string { return f.badge }
	fAssigned  = func(f azItems) string { return f.assignment }
	fKpiGroup  = func(f azItems) string { return f.kpiGroup }
	fKpi       = func(f azItems) string { return f.kpi }
	fList      = func(f azItems) string { return f.list }
	fAnnounce  = func(f azItems) string { return f.announcement }
)

// gqlRules: every root field of the schema ("Query.x" / "Mutation.x"). A
// field of graph.NewExecutableSchema(...).Schema() missing here fails
// TestGraphQLAuthzMatrix.
var gqlRules = map[string]azRule{
	// Reads: the caller's own records.
	"Query.viewer":  azReadAll,
	"Query.account": azReadAll, // the caller's account, whichever it is

	// Goals, key results, tasks, sessions, teams, users.
	"Query.goal":    azReadByID(byID(fGoal)),
	"Query.metric":  azReadByID(byID(fMetric)),
	"Query.task":    azReadByID(byID(fTask)),
	"Query.session": azReadByID(byID(fSession)),
	"Query.team":    azReadByID(byID(fTeam)),
	"Query.user":    azReadByID(byID(fUser)),
	"Query.node":    azReadByID(byID(fGoal)),
	// Another account's id is a null element of the list.
	"Query.nodes":     {azOK, azOK, azOK, azOK, func(_ *azEnv, f azItems) map[string]any { return azArgs{"ids": []string{fGoal(f)}} }},
	"Query.goals":     azReadAll,
	"Query.metrics":   azReadAll,
	"Query.checkins":  azReadAll,
	"Query.tasks":     azReadAll,
	"Query.sessions":  azReadAll,
	"Query.teams":     azReadAll,
	"Query.users":     azReadAll,
	"Query.employees": azReadAll,
	"Query.employee":  azReadByID(byID(fUser)),
	"Query.roles":     azReadAll,
	"Query.role":      azReadByID(byID(fRole)),

	"Query.roleMappings": azReadAll,
	// A grant: permissions:manage (admins); another account's is null.
	"Query.permission":           {azOK, azForbidden, azForbidden, azNull, byID(fGrant)},
	"Query.actions":              azReadAll,
	"Query.allowedActions":       {azOK, azOK, azOK, azNotFound, idAnd(fGoal, "targetType", "goal")},
	"Query.defaultAccess":        {azOK, azOK, azOK, azOK, fixed("itemType", "session")},
	"Query.itemAccess":           {azOK, azOK, azOK, azNotFound, idAnd(fSession, "itemType", "session")},
	"Query.effectivePermissions": azReadAll,
	// Another principal's permissions: permissions:manage.
	"Query.principalPermissions": {azOK, azForbidden, azForbidden, azNotFound, func(_ *azEnv, f azItems) map[string]any {
		return azArgs{"principalId": f.role}
	}},

	// Content.
	"Query.tags":                {azOK, azOK, azOK, azOK, fixed("name", "")},
	"Query.dashboards":          azReadAll,
	"Query.dashboard":           azReadByID(byID(fDashboard)),
	"Query.dashboardParameters": azReadAll,
	"Query.badges":              azReadAll,
	"Query.badge":               azReadByID(byID(fBadge)),
	"Query.badgeApprovals":      azReadAll,
	"Query.myBadges":            azReadAll,
	"Query.kpiGroups":           azReadAll,
	"Query.kpiGroup":            azReadByID(byID(fKpiGroup)),
	"Query.kpis":                azReadAll,
	"Query.kpi":                 azReadByID(byID(fKpi)),
	"Query.lists":               azReadAll,
	"Query.list":                azReadByID(byID(fList)),
	"Query.listTypes":           azReadAll,
	"Query.listSchema":          {azOK, azOK, azOK, azOK, fixed("type", "goal")},
	"Query.announcements":       azReadAll,
	"Query.announcement":        azReadByID(byID(fAnnounce)),
	// The rest of the dashboard, badge and list reads (REST: readAll /
	// readByID). Another account's tag matches none of its dashboards ([]);
	// another account's list or badge is null.
	"Query.loadList":           azReadByID(byID(fList)),
	"Query.dashboardsByTag":    {azOK, azOK, azOK, azOK, fixed("tag", "shared-tag")},
	"Query.dashboardTagUsages": azReadAll,
	"Query.dashboardReports":   azReadAll,
	"Query.badgeHolders":       azReadByID(byID(fBadge)),
	// The deprecated user listing (REST GET /api/v1/accounts/users: readAll).
	"Query.legacyUsers": azReadAll,

	// OKR writes. Members create goals, key results and tasks (in open
	// sessions) and change what they own — none of the fixture's items.
	"Mutation.createGoal": azCreateRef(azOK, func(_ *azEnv, f azItems) map[string]any {
		return azArgs{"input": azArgs{"name": "N", "sessionId": f.session}}
	}),
	"Mutation.updateGoal": azAdminOnly(idAnd(fGoal, "input", azArgs{"name": "N2"})),
	"Mutation.deleteGoal": azAdminOnly(byID(fGoal)),
	"Mutation.tagGoal": azAdminOnly(func(e *azEnv, f azItems) map[string]any {
		return azArgs{"goalId": f.goal, "title": "t" + e.uniq()}
	}),
	"Mutation.createMetric": azCreateRef(azOK, func(_ *azEnv, f azItems) map[string]any {
		return azArgs{"input": azArgs{"name": "N", "goalId": f.goal, "target": 5}}
	}),
	"Mutation.updateMetric": azAdminOnly(idAnd(fMetric, "input", azArgs{"name": "N2"})),
	"Mutation.deleteMetric": azAdminOnly(byID(fMetric)),
	"Mutation.checkIn": azAdminOnly(func(_ *azEnv, f azItems) map[string]any {
		return azArgs{"metricId": f.metric, "input": azArgs{"actual": 7}}
	}),
	"Mutation.createTask": azCreateRef(azOK, func(_ *azEnv, f azItems) map[string]any {
		return azArgs{"input": azArgs{"name": "N", "parentId": f.goal}}
	}),
	"Mutation.updateTask":    azAdminOnly(idAnd(fTask, "input", azArgs{"name": "N2"})),
	"Mutation.deleteTask":    azAdminOnly(byID(fTask)),
	"Mutation.createSession": azCreateAdmin(fixed("input", azArgs{"title": "N", "start": "2026-01-01", "end": "2026-02-01"})),
	"Mutation.updateSession": azAdminOnly(idAnd(fSession, "input", azArgs{"title": "N2"})),
	"Mutation.deleteSession": azAdminOnly(byID(func(f azItems) string { return f.emptySession })),

	// The organisation. The account mutations act on the caller's account:
	// the other account's admin changes its own.
	"Mutation.updateAccount":    azCreateAdmin(fixed("input", azArgs{"accountName": "Renamed"})),
	"Mutation.setConfidence":    azCreateAdmin(fixed("input", azArgs{"confidenceType": "numeric", "confidenceMapping": []any{}})),
	"Mutation.setNotifications": azCreateAdmin(fixed("input", azArgs{"cadence": "weekly"})),
	"Mutation.checkDomain": azCreateAdmin(func(e *azEnv, _ azItems) map[string]any {
		return azArgs{"accountName": "Free " + e.uniq(), "domain": "free-" + e.uniq()}
	}),
	"Mutation.createUser": azCreateAdmin(func(e *azEnv, _ azItems) map[string]any {
		return azArgs{"input": azArgs{"email": "new" + e.uniq() + "@x.test"}}
	}),
	"Mutation.updateUser":      azAdminOnly(idAnd(fUser, "input", azArgs{"firstName": "X"})),
	"Mutation.createUserToken": azAdminOnly(byID(fUser)),
	"Mutation.createTeam":      azCreateAdmin(fixed("input", azArgs{"name": "N"})),
	"Mutation.updateTeam":      azAdminOnly(idAnd(fTeam, "input", azArgs{"name": "N2"})),
	"Mutation.deleteTeam":      azAdminOnly(byID(fTeam)),
	"Mutation.addTeamMember": azAdminOnly(func(e *azEnv, f azItems) map[string]any {
		return azArgs{"teamId": f.team, "userId": e.member.UserID}
	}),
	"Mutation.removeTeamMember": azAdminOnly(func(_ *azEnv, f azItems) map[string]any {
		return azArgs{"teamId": f.team, "userId": f.user}
	}),
	"Mutation.createRole": azCreateAdmin(func(e *azEnv, _ azItems) map[string]any {
		return azArgs{"input": azArgs{"name": "R" + e.uniq()}}
	}),
	"Mutation.updateRole": azAdminOnly(func(e *azEnv, f azItems) map[string]any {
		return azArgs{"id": f.role, "input": azArgs{"name": "R" + e.uniq()}}
	}),
	"Mutation.deleteRole": azAdminOnly(byID(fRole)),
	"Mutation.createRoleMapping": azCreateRef(azForbidden, func(_ *azEnv, f azItems) map[string]any {
		return azArgs{"roleId": f.role2, "teamId": f.team}
	}),
	"Mutation.deleteRoleMapping": azAdminOnly(byID(fMapping)),
	"Mutation.createPermission": azCreateRef(azForbidden, func(_ *azEnv, f azItems) map[string]any {
		return azArgs{"action": "goals:read", "principals": []string{f.role}}
	}),
	"Mutation.setPrincipalPermissions": azAdminOnly(func(_ *azEnv, f azItems) map[string]any {
		return azArgs{"principalId": f.role, "actions": []string{"goals:read"}}
	}),
	"Mutation.setItemAccess": azAdminOnly(idAnd(fSession, "itemType", "session", "access", azArgs{"inherits": true, "permissions": []any{}})),

	// API tokens: everyone lists and creates their own; only the owner
	// revokes one (here the admin's: not found for anyone else).
	"Query.myTokens":       azReadAll,
	"Mutation.createToken": azReadAll,
	"Mutation.revokeToken": {azOK, azNotFound, azNotFound, azNotFound, func(e *azEnv, _ azItems) map[string]any {
		t, err := e.store.IssueToken(ctxOf(e.acct), "", upstream.TokenInput{Name: "matrix"})
		if err != nil {
			e.t.Fatal(err)
		}
		return azArgs{"id": t.ID}
	}},

	// Content: tags, badges, parameters, KPIs, lists and announcements are
	// managed by admins; dashboards are edited by their owners and admins; a
	// member may propose a badge; reacting and favouriting are personal.
	"Mutation.createTags": azCreateAdmin(func(e *azEnv, _ azItems) map[string]any {
		return azArgs{"titles": []string{"t" + e.uniq()}}
	}),
	"Mutation.setTagsActive": azCreateRef(azForbidden, func(_ *azEnv, f azItems) map[string]any {
		return azArgs{"ids": []string{f.inactive}, "active": true}
	}),
	"Mutation.tagDashboard": azAdminOnly(func(e *azEnv, f azItems) map[string]any {
		return azArgs{"dashboardId": f.dashboard, "title": "t" + e.uniq()}
	}),
	"Mutation.tagInsight": azAdminOnly(func(e *azEnv, f azItems) map[string]any {
		return azArgs{"insightId": f.insight, "title": "t" + e.uniq()}
	}),
	"Mutation.createDashboard": azCreateAdmin(func(e *azEnv, _ azItems) map[string]any {
		return azArgs{"input": azArgs{"name": "D" + e.uniq()}}
	}),
	"Mutation.updateDashboard": azAdminOnly(idAnd(fDashboard, "input", azArgs{"name": "D2"})),
	"Mutation.deleteDashboard": azAdminOnly(byID(fDashboard)),
	"Mutation.createDashboardParameter": azCreateAdmin(func(e *azEnv, _ azItems) map[string]any {
		return azArgs{"input": azArgs{"key": "k" + e.uniq(), "title": "K", "selectorType": "single"}}
	}),
	"Mutation.replaceDashboardParameter": azAdminOnly(func(e *azEnv, f azItems) map[string]any {
		return azArgs{"id": f.parameter, "input": azArgs{"key": "k" + e.uniq(), "title": "K2", "selectorType": "text"}}
	}),
	"Mutation.deleteDashboardParameter": azAdminOnly(byID(fParameter)),
	"Mutation.createBadge": azCreateAdmin(func(e *azEnv, _ azItems) map[string]any {
		return azArgs{"input": azArgs{"name": "B" + e.uniq()}}
	}),
	"Mutation.updateBadge": azAdminOnly(idAnd(fBadge, "input", azArgs{"name": "B2"})),
	"Mutation.deleteBadge": azAdminOnly(byID(fBadge)),
	"Mutation.assignBadge": azCreateRef(azOK, func(_ *azEnv, f azItems) map[string]any {
		return azArgs{"input": azArgs{"badgeId": f.badge, "assigneeIds": []string{f.user}}}
	}),
	"Mutation.decideBadge": azAdminOnly(idAnd(fAssigned, "approve", true)),
	"Mutation.createKpiGroup": azCreateAdmin(func(e *azEnv, _ azItems) map[string]any {
		return azArgs{"name": "G" + e.uniq()}
	}),
	"Mutation.renameKpiGroup": azAdminOnly(idAnd(fKpiGroup, "name", "G2")),
	"Mutation.deleteKpiGroup": azAdminOnly(byID(fKpiGroup)),
	"Mutation.setKpiGroupFavorite": {azOK, azOK, azOK, azNotFound, func(_ *azEnv, f azItems) map[string]any {
		return azArgs{"groupId": f.kpiGroup, "favorite": true}
	}},
	"Mutation.setKpiInGroup": azAdminOnly(func(_ *azEnv, f azItems) map[string]any {
		return azArgs{"kpiId": f.kpi, "groupId": f.kpiGroup, "member": false}
	}),
	"Mutation.createKpi": azCreateAdmin(func(e *azEnv, _ azItems) map[string]any {
		return azArgs{"input": azArgs{"name": "K" + e.uniq()}}
	}),
	"Mutation.updateKpi": azAdminOnly(idAnd(fKpi, "input", azArgs{"name": "K2"})),
	"Mutation.deleteKpi": azAdminOnly(byID(fKpi)),
	"Mutation.createList": azCreateAdmin(func(e *azEnv, _ azItems) map[string]any {
		return azArgs{"input": azArgs{"title": "L" + e.uniq(), "listType": "goal"}}
	}),
	"Mutation.updateList":          azAdminOnly(idAnd(fList, "input", azArgs{"title": "L2"})),
	"Mutation.deleteList":          azAdminOnly(byID(fList)),
	"Mutation.cloneList":           azAdminOnly(byID(fList)),
	"Mutation.createAnnouncement":  azCreateAdmin(fixed("input", azArgs{"comment": "hi", "announcementType": "general"})),
	"Mutation.updateAnnouncement":  azAdminOnly(idAnd(fAnnounce, "comment", "edited")),
	"Mutation.deleteAnnouncement":  azAdminOnly(byID(fAnnounce)),
	"Mutation.reactToAnnouncement": {azOK, azOK, azOK, azNotFound, idAnd(fAnnounce, "reactionId", "like")},
}

// gqlAgain: fields whose admin call, repeated with the same arguments on
// the same items, gives a different outcome: the same badge decision again
// is NOT_MODIFIED, a deleted item is then not found, a tag already active
// changes nothing (0, not an error).
var gqlAgain = map[string]string{
	"Mutation.decideBadge":   azNotModified,
	"Mutation.deleteGoal":    azNotFound,
	"Mutation.deleteMetric":  azNotFound,
	"Mutation.deleteTask":    azNotFound,
	"Mutation.deleteSession": azNotFound,
	"Mutation.deleteTeam":    azNotFound,
	"Mutation.deleteBadge":   azNotFound,
	"Mutation.setTagsActive": azOK,
}

// rootFields lists the root fields of Query and Mutation of the executable
// schema, without the introspection fields (__schema, __type).
func rootFields(s *ast.Schema) []*ast.FieldDefinition {
	var out []*ast.FieldDefinition
	for _, def := range []*ast.Definition{s.Query, s.Mutation} {
		if def == nil {
			continue
		}
		for _, f := range def.Fields {
			if strings.HasPrefix(f.Name, "__") {
				continue
			}
			out = append(out, f)
		}
	}
	return out
}

// azKey names a root field as gqlRules does: "Query.x" or "Mutation.x".
func azKey(s *ast.Schema, f *ast.FieldDefinition) string {
	if s.Mutation != nil && s.Mutation.Fields.ForName(f.Name) == f {
		return "Mutation." + f.Name
	}
	return "Query." + f.Name
}

// azQuery generates the operation for one root field: a variable for each
// argument given a value (typed as the argument is defined), __typename as
// the selection of a composite result. A required argument without a value
// is an error of the rule.
func azQuery(s *ast.Schema, key string, f *ast.FieldDefinition, vars map[string]any) (string, error) {
	var defs, args []string
	for _, a := range f.Arguments {
		if _, ok := vars[a.Name]; !ok {
			if a.Type.NonNull && a.DefaultValue == nil {
				return "", fmt.Errorf("%s: the rule gives no value for the required argument %s: %s", key, a.Name, a.Type.String())
			}
			continue
		}
		defs = append(defs, "$"+a.Name+": "+a.Type.String())
		args = append(args, a.Name+": $"+a.Name)
	}
	for name := range vars {
		if f.Arguments.ForName(name) == nil {
			return "", fmt.Errorf("%s: the rule gives a value for %s, which is no argument of the field", key, name)
		}
	}
	op := "query"
	if strings.HasPrefix(key, "Mutation.") {
		op = "mutation"
	}
	var b strings.Builder
	b.WriteString(op)
	if len(defs) > 0 {
		b.WriteString("(" + strings.Join(defs, ", ") + ")")
	}
	b.WriteString(" { " + f.Name)
	if len(args) > 0 {
		b.WriteString("(" + strings.Join(args, ", ") + ")")
	}
	if t := s.Types[f.Type.Name()]; t != nil && (t.Kind == ast.Object || t.Kind == ast.Interface || t.Kind == ast.Union) {
		b.WriteString(" { __typename }")
	}
	b.WriteString(" }")
	return b.String(), nil
}

// azRaw is a GraphQL response with its raw body.
type azRaw struct {
	gqlResponse
	body string
}

// post sends q with vars as token's user.
func (e *azEnv) post(token, q string, vars map[string]any) azRaw {
	e.t.Helper()
	body, _ := json.Marshal(map[string]any{"query": q, "variables": vars})
	req, err := http.NewRequest(http.MethodPost, e.srv.URL, strings.NewReader(string(body)))
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	out := azRaw{body: string(raw)}
	if err := json.Unmarshal([]byte(out.body), &out.gqlResponse); err != nil {
		e.t.Fatalf("HTTP %d: not a GraphQL response: %s", resp.StatusCode, out.body)
	}
	out.status = resp.StatusCode
	return out
}

// outcome classifies a response for field name: ok, null or the first
// error's extensions.code.
func (r azRaw) outcome(name string) (string, error) {
	if len(r.Errors) > 0 {
		for _, e := range r.Errors[1:] {
			if c, _ := e.Extensions["code"].(string); c != r.code() {
				return "", fmt.Errorf("mixed error codes: %+v", r.Errors)
			}
		}
		if r.code() == "" {
			return "", fmt.Errorf("an error without extensions.code: %+v", r.Errors)
		}
		// With an error the field has no data.
		var d map[string]json.RawMessage
		if len(r.Data) > 0 && string(r.Data) != "null" {
			if err := json.Unmarshal(r.Data, &d); err != nil {
				return "", err
			}
			if v, ok := d[name]; ok && string(v) != "null" {
				return "", fmt.Errorf("error %s with data %s", r.code(), v)
			}
		}
		return r.code(), nil
	}
	var d map[string]json.RawMessage
	if err := json.Unmarshal(r.Data, &d); err != nil {
		return "", fmt.Errorf("data %s: %v", r.Data, err)
	}
	v, ok := d[name]
	if !ok {
		return "", fmt.Errorf("no %q in data %s", name, r.Data)
	}
	if string(v) == "null" {
		return azNull, nil
	}
	return azOK, nil
}

// TestGraphQLAuthzMatrix runs every root field of Query and Mutation as the
// admin, a member, a viewer and another account's admin and checks the
// outcome its rule expects. Mutations run against fresh items per caller;
// the queries, which change nothing, share one set of items per caller.
func TestGraphQLAuthzMatrix(t *testing.T) {
	e := newAzEnv(t)
	schema := graph.NewExecutableSchema(graph.Config{Resolvers: &resolvers.Resolver{}}).Schema()
	fields := rootFields(schema)
	var missing []string
	known := map[string]bool{}
	for _, f := range fields {
		k := azKey(schema, f)
		known[k] = true
		if _, ok := gqlRules[k]; !ok {
			missing = append(missing, k)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("%d root field(s) have no authorization rule in gqlRules:\n  %s", len(missing), strings.Join(missing, "\n  "))
	}
	var stale []string
	for k := range gqlRules {
		if !known[k] {
			stale = append(stale, k)
		}
	}
	sort.Strings(stale)
	if len(stale) > 0 {
		t.Errorf("gqlRules has rules for fields the schema does not have: %v", stale)
	}
	callers := []struct {
		name string
		as   sqlstore.BootstrapResult
		want func(azRule) string
	}{
		{"other", e.other, func(r azRule) string { return r.other }},
		{"viewer", e.viewer, func(r azRule) string { return r.viewer }},
		{"member", e.member, func(r azRule) string { return r.member }},
		{"admin", e.acct, func(r azRule) string { return r.admin }},
	}
	shared := map[string]azItems{}
	counts := map[string]int{}
	for _, f := range fields {
		k := azKey(schema, f)
		rule, ok := gqlRules[k]
		if !ok {
			continue
		}
		for _, c := range callers {
			var items azItems
			if strings.HasPrefix(k, "Query.") {
				if _, ok := shared[c.name]; !ok {
					shared[c.name] = e.items(e.acct, "Matrix")
				}
				items = shared[c.name]
			} else {
				items = e.items(e.acct, "Matrix")
			}
			vars := rule.args(e, items)
			q, err := azQuery(schema, k, f, vars)
			if err != nil {
				t.Error(err)
				break
			}
			r := e.post(c.as.Token, q, vars)
			got, err := r.outcome(f.Name)
			want := c.want(rule)
			counts[want]++
			switch {
			case err != nil:
				t.Errorf("%s as %s: %v\n  %s %v\n  %s", k, c.name, err, q, vars, r.body)
			case got != want:
				t.Errorf("%s as %s: %s, want %s\n  %s %v\n  %s", k, c.name, got, want, q, vars, r.body)
			case c.name == "admin" && gqlAgain[k] != "":
				r = e.post(c.as.Token, q, vars)
				if got, err := r.outcome(f.Name); err != nil || got != gqlAgain[k] {
					t.Errorf("%s as admin, again: %s (%v), want %s\n  %s", k, got, err, gqlAgain[k], r.body)
				}
			}
		}
	}
	t.Logf("%d root fields × 4 callers: expected outcomes %v", len(fields), counts)
}

// TestGraphQLMemberOwnItems: the matrix's member owns none of the items; a
// member who owns the goal (and so its key result), the task and the
// dashboard may change them through the same root fields and arguments —
// except what needs more than ownership (deleting a dashboard:
// dashboards:manage).
func TestGraphQLMemberOwnItems(t *testing.T) {
	e := newAzEnv(t)
	schema := graph.NewExecutableSchema(graph.Config{Resolvers: &resolvers.Resolver{}}).Schema()
	want := map[string]string{
		"Mutation.updateGoal":      azOK,
		"Mutation.deleteGoal":      azOK,
		"Mutation.tagGoal":         azOK,
		"Mutation.updateMetric":    azOK,
		"Mutation.deleteMetric":    azOK,
		"Mutation.checkIn":         azOK,
		"Mutation.updateTask":      azOK,
		"Mutation.deleteTask":      azOK,
		"Mutation.updateDashboard": azOK,
		"Mutation.tagDashboard":    azOK,
		"Mutation.tagInsight":      azOK,
		"Mutation.deleteDashboard": azForbidden,
		// Owning a goal is no session management.
		"Mutation.updateSession": azForbidden,
		"Mutation.setItemAccess": azForbidden,
	}
	keys := make([]string, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		owner := e.addUser(e.acct, "member")
		f := e.items(e.acct, "Owned")
		e.own(&f, owner)
		fd := schema.Mutation.Fields.ForName(strings.TrimPrefix(k, "Mutation."))
		vars := gqlRules[k].args(e, f)
		q, err := azQuery(schema, k, fd, vars)
		if err != nil {
			t.Fatal(err)
		}
		// First the matrix's member, owning nothing: it still may not.
		if r := e.post(e.member.Token, q, vars); r.code() != azForbidden {
			t.Errorf("%s as a member who does not own the items: %s", k, r.body)
		}
		r := e.post(owner.Token, q, vars)
		if got, err := r.outcome(fd.Name); err != nil || got != want[k] {
			t.Errorf("%s as the owning member: %s (%v), want %s\n  %s %v\n  %s", k, got, err, want[k], q, vars, r.body)
		}
	}
}

// own makes member the owner of the goal (and so of its key result), the
// task and the dashboard of f (a dashboard's owner is its creator: the member
// creates a new one under a grant of dashboards:edit, withdrawn at once, and
// f's dashboard and insight become that one's).
func (e *azEnv) own(f *azItems, member sqlstore.BootstrapResult) {
	e.t.Helper()
	ctx := ctxOf(e.acct)
	ids := []string{member.UserID}
	if _, err := e.store.UpdateGoal(ctx, f.goal, upstream.GoalPatch{OwnerIDs: &ids}); err != nil {
		e.t.Fatal(err)
	}
	if _, err := e.store.UpdateTask(ctx, f.task, upstream.TaskPatch{OwnerID: &member.UserID}); err != nil {
		e.t.Fatal(err)
	}
	if err := e.store.SetPrincipalPermissions(ctx, member.UserID, upstream.PrincipalPermissionsInput{Actions: []string{"dashboards:edit"}}); err != nil {
		e.t.Fatal(err)
	}
	mctx := upstream.NewContext(context.Background(), upstream.Caller{AccountID: member.AccountID, UserID: member.UserID, Roles: []string{"member"}})
	d, err := e.store.CreateDashboard(mctx, upstream.DashboardInput{Name: "Owned board " + e.uniq(),
		Insights: []upstream.InsightItem{{InsightName: "chart", Type: "insight"}}})
	if err != nil {
		e.t.Fatal(err)
	}
	if err := e.store.SetPrincipalPermissions(ctx, member.UserID, upstream.PrincipalPermissionsInput{Actions: []string{}}); err != nil {
		e.t.Fatal(err)
	}
	f.dashboard, f.insight = d.ID, d.Insights[0].InsightID
}

// totalCount is the totalCount of the only connection in body.
func totalCount(t *testing.T, body string) int {
	t.Helper()
	m := regexp.MustCompile(`"totalCount":(\d+)`).FindAllStringSubmatch(body, -1)
	if len(m) != 1 {
		t.Fatalf("not one totalCount: %s", body)
	}
	n, _ := strconv.Atoi(m[0][1])
	return n
}

// azSecrets are what the other account must never see of acct: every name
// and id of its items, its account, users and emails.
func (e *azEnv) azSecrets(f azItems) []string {
	out := append([]string{e.acct.AccountID, e.acct.UserID, e.member.UserID, e.viewer.UserID, "ann@acme.test", "Zanzibar"}, f.names...)
	return append(out, f.ids()...)
}

// leaks reports the secrets in body: a secret the request did not contain,
// or any secret as a JSON string value (an id the request named coming back
// as data, not only quoted in an error message).
func leaks(req, body string, secrets []string) []string {
	var out []string
	for _, s := range secrets {
		if strings.Contains(body, s) && !strings.Contains(req, s) || strings.Contains(body, `"`+s+`"`) {
			out = append(out, s)
		}
	}
	return out
}

// TestGraphQLNoCrossAccountLeaks: another account's admin tries to reach
// acct's data through GraphQL by id, by filter, by nested projection, by the
// edges of its own items (Team.members, User.goals, Tag.goals of a tag with
// the same title, ...) and by writes that point its items into acct; it sees
// none of acct's names or ids in any response.
func TestGraphQLNoCrossAccountLeaks(t *testing.T) {
	e := newAzEnv(t)
	f := e.items(e.acct, "Zanzibar") // acct's secrets
	own := e.items(e.other, "Globex")
	// Both accounts' goal and dashboard carry a tag titled "shared-tag" (each its own).
	secrets := e.azSecrets(f)
	// The test proves nothing unless acct's admin sees the secrets through the same queries.
	type probe struct {
		q    string
		vars map[string]any
		want string // ok (no error), null (data of every field null), or an error code
	}
	check := func(label string, p probe) {
		t.Helper()
		r := e.post(e.other.Token, p.q, p.vars)
		req := p.q + fmt.Sprint(p.vars)
		if l := leaks(req, r.body, secrets); len(l) > 0 {
			t.Errorf("%s: the other account sees %q\n  %s %v\n  %s", label, l, p.q, p.vars, r.body)
		}
		switch p.want {
		case azOK:
			if len(r.Errors) > 0 {
				t.Errorf("%s: %s", label, r.body)
			}
		case azNull:
			var d map[string]any
			if len(r.Errors) > 0 || json.Unmarshal(r.Data, &d) != nil {
				t.Errorf("%s: %s", label, r.body)
			}
			for k, v := range d {
				if v != nil {
					t.Errorf("%s: %s is %v, want null", label, k, v)
				}
			}
		case "write":
			if c := r.code(); c != azNotFound && c != azBadInput {
				t.Errorf("%s: %s, want NOT_FOUND or BAD_USER_INPUT\n  %s %v", label, r.body, p.q, p.vars)
			}
		default:
			if r.code() != p.want {
				t.Errorf("%s: %s, want %s", label, r.body, p.want)
			}
		}
	}
	v := func(kv ...any) map[string]any {
		m := map[string]any{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}

	// By id: null for the nullable reads, NOT_FOUND for the others.
	for _, c := range []struct{ field, id, sel string }{
		{"goal", f.goal, "id name metrics { name } tasks { name } children { name } owners { __typename }"},
		{"metric", f.metric, "id name goal { name } checkins { comment }"},
		{"task", f.task, "id name parent { __typename }"},
		{"session", f.session, "id title goals { name }"},
		{"team", f.team, "id name members { email }"},
		{"user", f.user, "id email"},
		{"user", e.acct.UserID, "id email goals { name }"},
		{"employee", f.user, "id email"},
		{"role", f.role, "id name"},
		{"permission", f.grant, "id principals"},
		{"dashboard", f.dashboard, "id name"},
		{"badge", f.badge, "id name"},
		{"kpiGroup", f.kpiGroup, "id name kpis { name }"},
		{"kpi", f.kpi, "id name"},
		{"list", f.list, "id title"},
		{"announcement", f.announcement, "id comment"},
		{"loadList", f.list, "list { id title createdBy { email } } items totalCount"},
	} {
		q := `query($id: ID!) { ` + c.field + `(id: $id) { ` + c.sel + ` } }`
		check("by id: "+c.field, probe{q, v("id", c.id), azNull})
		// The same read as acct's admin finds the item.
		if r := e.post(e.acct.Token, q, v("id", c.id)); len(r.Errors) > 0 || !strings.Contains(r.body, c.id) {
			t.Errorf("by id: acct's admin does not read its %s: %s", c.field, r.body)
		}
	}
	for _, c := range []struct{ q, id string }{
		{`query($id: ID!) { allowedActions(targetType: "goal", id: $id) }`, f.goal},
		{`query($id: ID!) { allowedActions(targetType: "metric", id: $id) }`, f.metric},
		{`query($id: ID!) { allowedActions(targetType: "session", id: $id) }`, f.session},
		{`query($id: ID!) { allowedActions(targetType: "insightBoard", id: $id) }`, f.dashboard},
		{`query($id: ID!) { itemAccess(itemType: "session", id: $id) { inherits } }`, f.session},
		{`query($id: ID!) { itemAccess(itemType: "goal", id: $id) { inherits } }`, f.goal},
		{`query($id: ID!) { principalPermissions(principalId: $id) { actions } }`, f.role},
		{`query($id: ID!) { principalPermissions(principalId: $id) { actions } }`, e.acct.UserID},
	} {
		check("by id", probe{c.q, v("id", c.id), azNotFound})
		if r := e.post(e.acct.Token, c.q, v("id", c.id)); len(r.Errors) > 0 {
			t.Errorf("by id: acct's admin: %s", r.body)
		}
	}

	// By filter (IDs inlined: some filter fields are IDFilter, some
	// StringFilter): acct's ids, account id and names never match.
	for _, c := range []struct{ q string }{
		{`{ legacyUsers(filter: "roles:ID") { totalCount items { email } } }`},
		{`{ goals(filter: {id: {eq: "ID"}}) { totalCount nodes { id name } } }`},
		{`{ metrics(filter: {goalId: {eq: "ID"}}) { totalCount nodes { id name goalName } } }`},
		{`{ tasks(filter: {parentId: {eq: "ID"}}) { totalCount nodes { id name parentName } } }`},
		{`{ checkins(filter: {goalId: {eq: "ID"}}) { totalCount nodes { id comment } } }`},
		{`{ goals(filter: {or: [{parentId: {eq: "ID"}}, {sessionId: {eq: "ID"}}, {ownerIds: {eq: "ID"}}]}) { totalCount nodes { name } } }`},
		{`{ metrics(filter: {or: [{ownerIds: {eq: "ID"}}, {sessionId: {eq: "ID"}}, {id: {eq: "ID"}}]}) { totalCount nodes { name } } }`},
		{`{ sessions(filter: {id: {eq: "ID"}}, includeDemo: true) { totalCount nodes { title } } }`},
		{`{ teams(filter: {id: {eq: "ID"}}) { totalCount nodes { name members { email } } } }`},
		{`{ users(filter: {or: [{id: {eq: "ID"}}, {teamIds: {eq: "ID"}}, {accountId: {eq: "ID"}}]}) { totalCount nodes { email } } }`},
		{`{ employees(filter: {or: [{id: {eq: "ID"}}, {teamIds: {eq: "ID"}}]}) { totalCount nodes { email } } }`},
		{`{ roles(filter: {id: {eq: "ID"}}) { totalCount nodes { name } } }`},
		{`{ dashboards(filter: {id: {eq: "ID"}}) { totalCount nodes { name } } }`},
		{`{ dashboardParameters(filter: {id: {eq: "ID"}}) { totalCount nodes { title } } }`},
		{`{ badges(filter: {id: {eq: "ID"}}) { totalCount nodes { name } } }`},
		{`{ badgeApprovals(filter: {or: [{badgeId: {eq: "ID"}}, {assigneeIds: {eq: "ID"}}]}) { totalCount nodes { badge { name } } } }`},
		{`{ kpiGroups(filter: {id: {eq: "ID"}}) { totalCount nodes { name } } }`},
		{`{ kpis(filter: {or: [{id: {eq: "ID"}}, {groupIds: {eq: "ID"}}, {ownerId: {eq: "ID"}}]}) { totalCount nodes { name } } }`},
		{`{ lists(filter: {id: {eq: "ID"}}) { totalCount nodes { title } } }`},
		{`{ announcements(filter: {or: [{id: {eq: "ID"}}, {authorId: {eq: "ID"}}]}) { totalCount nodes { comment } } }`},
		{`{ tags(filter: {id: {eq: "ID"}}) { totalCount nodes { name goals { name } } } }`},
	} {
		matched := 0
		for _, id := range []string{f.goal, f.metric, f.session, f.team, f.user, f.role, f.dashboard, f.parameter, f.badge,
			f.kpiGroup, f.kpi, f.list, f.announcement, f.activeTag, e.acct.UserID, e.acct.AccountID} {
			q := strings.ReplaceAll(strings.ReplaceAll(c.q, `"ID"`, `"`+id+`"`), "roles:ID", "roles:"+id)
			check("by filter", probe{q, nil, azOK})
			if n := totalCount(t, e.post(e.other.Token, q, nil).body); n != 0 {
				t.Errorf("by filter: %d of acct's items match for the other account: %s", n, q)
			}
			matched += totalCount(t, e.post(e.acct.Token, q, nil).body)
		}
		// The probe is worth something: for acct's admin, some id matches.
		if matched == 0 {
			t.Errorf("by filter: the probe matches nothing even for acct's admin: %s", c.q)
		}
	}
	for _, q := range []string{
		`{ goals(filter: {name: {regex: "(?i)zanzibar"}}) { totalCount nodes { name } } }`,
		`{ metrics(filter: {goalName: {regex: "(?i)zanzibar"}}) { totalCount nodes { name } } }`,
		`{ tasks(filter: {parentName: {regex: "(?i)zanzibar"}}) { totalCount nodes { name } } }`,
		`{ users(filter: {email: {regex: "acme"}}) { totalCount nodes { email } } }`,
		`{ legacyUsers(filter: "email:acme name:zanzibar") { totalCount items { email } } }`,
		`{ dashboardsByTag(tag: "zanzibar") { name } }`,
		`{ teams(filter: {name: {regex: "(?i)zanzibar"}}) { totalCount nodes { name } } }`,
		`{ sessions(filter: {title: {regex: "(?i)zanzibar"}}) { totalCount nodes { title } } }`,
		`{ tags(name: "zanzibar") { totalCount nodes { name goals { name } dashboards { name } } } }`,
		`{ dashboards(filter: {name: {regex: "(?i)zanzibar"}}) { totalCount nodes { name } } }`,
	} {
		check("by filter", probe{q, nil, azOK})
	}

	// By nested projection and by the edges of the other account's own items.
	for _, q := range []string{
		`{ viewer { email goals { name } teams { name members { email } } roles(includeTeamRoles: true) { name team { name } } badges { badge { name } } employee { teams { name } managedTeams { name } } } }`,
		`{ account { name owner { email } } effectivePermissions { userId roles actions } }`,
		`{ goals(first: 100) { totalCount nodes { name parent { name } children { name } session { title } owners { __typename ... on User { email } ... on Team { name } } createdBy { email } tags { name goals { name } dashboards { name } } metrics { name goal { name } checkins { comment } owners { __typename } } tasks { name parent { __typename ... on Goal { name } ... on Metric { name } } owner { __typename } } } } }`,
		`{ metrics(first: 100) { nodes { name goal { name } tasks { name } } } checkins(first: 100) { nodes { comment } } tasks(first: 100) { nodes { name parentName parent { __typename ... on Goal { name } } } } }`,
		`{ sessions(first: 100, includeDemo: true) { nodes { title parent { title } children { title } tags { name goals { name } } goals { name } roots: goals(roots: true) { name children { name } } } } }`,
		`{ users(first: 100) { nodes { email teams { name } goals { name } roles(includeTeamRoles: true) { name team { name } } badges { badge { name } assignees { __typename } } employee { teams { name } } } } }`,
		`{ teams(first: 100) { nodes { name parent { name } children { name } members { email } manager { email } badges { badge { name } } roles { role { name } team { name } } } } }`,
		`{ employees(first: 100) { nodes { email user { email } teams { name } managedTeams { name } badges { badge { name } } } } }`,
		`{ roles(first: 100) { nodes { name } } roleMappings { role { name } team { name members { email } } } }`,
		`{ tags(first: 100) { nodes { name title goals { name } dashboards { name } } } }`,
		`{ tags(name: "shared-tag") { totalCount nodes { title goalsTaggedCount dashboardsTaggedCount itemsTaggedCount goals { name tags { name goals { name } } } dashboards { name } } } }`,
		`{ dashboards(first: 100) { nodes { name parameters { title } tags { name goals { name } dashboards { name } } } } dashboardParameters(first: 100) { nodes { title } } }`,
		`{ badges(first: 100) { nodes { name } } badgeApprovals(first: 100) { nodes { badge { name } assignees { __typename ... on User { email } } assignedBy { email } } } myBadges { nodes { badge { name } } } }`,
		`{ kpiGroups(first: 100) { nodes { name createdBy { email } kpis { name owner { email } groups { name } } } } kpis(first: 100) { nodes { name owner { email } groups { name } } } }`,
		`{ lists(first: 100) { nodes { title createdBy { email } } } announcements(first: 100) { nodes { comment author { email } } } }`,
		`{ dashboardsByTag(tag: "shared-tag") { name tags { name goals { name } dashboards { name } } } dashboardTagUsages { tagName dashboardsIds } dashboardReports { id name } }`,
		`{ legacyUsers(filter: "email:globex", take: 1000, includeShadowedRoles: true) { totalCount items { email teams { name } roles(includeTeamRoles: true) { name team { name } } } } }`,
	} {
		check("projection", probe{q, nil, azOK})
		// The other account does see its own items there.
		if r := e.post(e.other.Token, q, nil); !strings.Contains(strings.ToLower(r.body), "globex") {
			t.Errorf("projection: the other account sees nothing of its own: %s\n  %s", q, r.body)
		}
	}

	// A badge's holders: null for the other account; acct's admin sees the
	// user holding it once the assignment is approved (after the filter
	// probes, which count the pending assignment).
	hq := `query($id: ID!) { badgeHolders(id: $id) { users { id email } teams { id name } } badges(first: 100) { nodes { holders { users { email } teams { name } } } } }`
	check("by id: badgeHolders", probe{`query($id: ID!) { badgeHolders(id: $id) { users { id email } teams { id name } } }`, v("id", f.badge), azNull})
	if _, err := e.store.DecideBadge(ctxOf(e.acct), f.assignment, true); err != nil {
		t.Fatal(err)
	}
	check("badge holders", probe{hq, v("id", f.badge), azOK})
	if r := e.post(e.acct.Token, hq, v("id", f.badge)); len(r.Errors) > 0 || strings.Count(r.body, f.user) != 1 {
		t.Errorf("badgeHolders: acct's admin does not see the holder: %s", r.body)
	}
	// By writes that point the other account's items into acct: "no such ..."
	// or not found, and nothing written that a later read could follow.
	writes := []probe{
		{`mutation($s: ID!, $p: ID!) { createGoal(input: {name: "x", sessionId: $s, parentId: $p}) { id } }`, v("s", own.session, "p", f.goal), "write"},
		{`mutation($s: ID!) { createGoal(input: {name: "x", sessionId: $s}) { id } }`, v("s", f.session), "write"},
		{`mutation($s: ID!, $u: ID!) { createGoal(input: {name: "x", sessionId: $s, ownerIds: [$u]}) { id owners { __typename } } }`, v("s", own.session, "u", e.acct.UserID), "write"},
		{`mutation($g: ID!, $p: String!) { updateGoal(id: $g, input: {parentId: $p}) { id } }`, v("g", own.goal, "p", f.goal), "write"},
		{`mutation($g: ID!, $s: ID!) { updateGoal(id: $g, input: {sessionId: $s}) { id } }`, v("g", own.goal, "s", f.session), "write"},
		{`mutation($g: ID!, $u: ID!) { updateGoal(id: $g, input: {ownerIds: [$u]}) { id } }`, v("g", own.goal, "u", e.acct.UserID), "write"},
		{`mutation($g: ID!) { createMetric(input: {name: "x", goalId: $g, target: 1}) { id } }`, v("g", f.goal), "write"},
		{`mutation($g: ID!, $u: ID!) { createMetric(input: {name: "x", goalId: $g, target: 1, ownerIds: [$u]}) { id } }`, v("g", own.goal, "u", e.acct.UserID), "write"},
		{`mutation($m: ID!, $g: ID!) { updateMetric(id: $m, input: {goalId: $g}) { id } }`, v("m", own.metric, "g", f.goal), "write"},
		{`mutation($p: ID!) { createTask(input: {name: "x", parentId: $p}) { id } }`, v("p", f.metric), "write"},
		{`mutation($p: ID!, $u: ID!) { createTask(input: {name: "x", parentId: $p, ownerId: $u}) { id } }`, v("p", own.goal, "u", e.acct.UserID), "write"},
		{`mutation($t: ID!, $p: String!) { updateTask(id: $t, input: {parentId: $p}) { id } }`, v("t", own.task, "p", f.goal), "write"},
		{`mutation($t: ID!, $u: ID!) { updateTask(id: $t, input: {ownerId: $u}) { id } }`, v("t", own.task, "u", e.acct.UserID), "write"},
		{`mutation($m: ID!) { checkIn(metricId: $m, input: {actual: 1}) { checkIn { id } } }`, v("m", f.metric), "write"},
		{`mutation($p: ID!) { createSession(input: {title: "x", start: "2026-01-01", end: "2026-02-01", parentId: $p}) { id } }`, v("p", f.session), "write"},
		{`mutation($u: ID!) { createTeam(input: {name: "x", members: [$u]}) { id } }`, v("u", e.acct.UserID), "write"},
		{`mutation($u: ID!) { createTeam(input: {name: "x", manager: $u}) { id } }`, v("u", e.acct.UserID), "write"},
		{`mutation($p: ID!) { createTeam(input: {name: "x", parentId: $p}) { id } }`, v("p", f.team), "write"},
		{`mutation($t: ID!, $u: ID!) { updateTeam(id: $t, input: {members: [$u]}) { id } }`, v("t", own.team, "u", e.acct.UserID), "write"},
		{`mutation($t: ID!, $p: String!) { updateTeam(id: $t, input: {parentId: $p}) { id } }`, v("t", own.team, "p", f.team), "write"},
		{`mutation($t: ID!, $u: ID!) { addTeamMember(teamId: $t, userId: $u) { id } }`, v("t", own.team, "u", e.acct.UserID), "write"},
		{`mutation($t: ID!, $u: ID!) { addTeamMember(teamId: $t, userId: $u) { id } }`, v("t", f.team, "u", own.user), "write"},
		{`mutation($r: ID!) { createUser(input: {email: "x@globex.test", roleIds: [$r]}) { id } }`, v("r", f.role), "write"},
		{`mutation($u: ID!, $r: ID!) { updateUser(id: $u, input: {roleIds: [$r]}) { id } }`, v("u", own.user, "r", f.role), "write"},
		{`mutation($u: ID!) { createUserToken(id: $u) { token } }`, v("u", e.acct.UserID), "write"},
		{`mutation($u: ID!) { createToken(input: {userId: $u}) { token } }`, v("u", e.acct.UserID), "write"},
		{`mutation($r: ID!, $t: ID!) { createRoleMapping(roleId: $r, teamId: $t) { id } }`, v("r", own.role2, "t", f.team), "write"},
		{`mutation($r: ID!, $t: ID!) { createRoleMapping(roleId: $r, teamId: $t) { id } }`, v("r", f.role2, "t", own.team), "write"},
		{`mutation($u: ID!) { createPermission(action: "goals:read", principals: [$u]) { id } }`, v("u", e.acct.UserID), "write"},
		{`mutation($u: ID!) { setPrincipalPermissions(principalId: $u, actions: ["goals:read"]) { actions } }`, v("u", e.acct.UserID), "write"},
		{`mutation($s: ID!) { setItemAccess(itemType: "session", id: $s, access: {inherits: true}) { inherits } }`, v("s", f.session), "write"},
		// Item access entries must name principals of the caller's account.
		{`mutation($s: ID!, $u: ID!) { setItemAccess(itemType: "session", id: $s, access: {inherits: true, permissions: [{principalId: $u, principalKind: "user", grant: ["goals:read"]}]}) { inherits } }`, v("s", own.session, "u", e.acct.UserID), "write"},
		{`mutation($a: JSON) { createDashboard(input: {name: "x", access: $a}) { id } }`, v("a", map[string]any{"inherits": false, "permissions": []any{map[string]any{"principalId": e.acct.UserID, "principalKind": "user", "grant": map[string]int{"dashboards:read": 1}}}}), "write"},
		{`mutation($ids: [ID!]!) { setTagsActive(ids: $ids, active: false) }`, v("ids", []string{f.activeTag}), "write"},
		{`mutation($d: ID!) { tagDashboard(dashboardId: $d, title: "x") { added } }`, v("d", f.dashboard), "write"},
		{`mutation($i: ID!) { tagInsight(insightId: $i, title: "x") { added } }`, v("i", f.insight), "write"},
		{`mutation($g: ID!) { tagGoal(goalId: $g, title: "shared-tag") { added } }`, v("g", f.goal), "write"},
		{`mutation($p: ID!) { createDashboard(input: {name: "x", parameterIds: [$p]}) { id } }`, v("p", f.parameter), "write"},
		{`mutation($d: ID!, $p: ID!) { updateDashboard(id: $d, input: {parameterIds: [$p]}) { id } }`, v("d", own.dashboard, "p", f.parameter), "write"},
		{`mutation($b: ID!, $u: ID!) { assignBadge(input: {badgeId: $b, assigneeIds: [$u]}) { id } }`, v("b", f.badge, "u", own.user), "write"},
		{`mutation($b: ID!, $u: ID!) { assignBadge(input: {badgeId: $b, assigneeIds: [$u]}) { id } }`, v("b", own.badge, "u", e.acct.UserID), "write"},
		{`mutation($a: ID!) { decideBadge(id: $a, approve: true) { id } }`, v("a", f.assignment), "write"},
		{`mutation($g: ID!) { createKpi(input: {name: "x", groupIds: [$g]}) { id } }`, v("g", f.kpiGroup), "write"},
		{`mutation($u: ID!) { createKpi(input: {name: "x", ownerId: $u}) { id } }`, v("u", e.acct.UserID), "write"},
		{`mutation($k: ID!, $u: ID!) { updateKpi(id: $k, input: {ownerId: $u}) { id } }`, v("k", own.kpi, "u", e.acct.UserID), "write"},
		{`mutation($k: ID!, $g: ID!) { setKpiInGroup(kpiId: $k, groupId: $g, member: true) { id } }`, v("k", own.kpi, "g", f.kpiGroup), "write"},
		{`mutation($k: ID!, $g: ID!) { setKpiInGroup(kpiId: $k, groupId: $g, member: true) { id } }`, v("k", f.kpi, "g", own.kpiGroup), "write"},
		{`mutation($g: ID!) { setKpiGroupFavorite(groupId: $g, favorite: true) { id } }`, v("g", f.kpiGroup), "write"},
		{`mutation($u: ID!) { createAnnouncement(input: {comment: "x", authorId: $u}) { id } }`, v("u", e.acct.UserID), "write"},
		{`mutation($a: ID!) { reactToAnnouncement(id: $a, reactionId: "like") { id } }`, v("a", f.announcement), "write"},
		{`mutation($l: ID!) { cloneList(id: $l) { id } }`, v("l", f.list), "write"},
	}
	for _, p := range writes {
		check("write", p)
	}
	// After the writes, the other account's items and edges still show nothing of acct.
	for _, q := range []string{
		`{ goals(first: 100) { nodes { name ownerIds parentId sessionId owners { __typename ... on User { email } } parent { name } metrics { name ownerIds goalId } tasks { name ownerId parentId owner { __typename } } } } }`,
		`{ teams(first: 100) { nodes { name parentId managerId memberIds members { email } manager { email } parent { name } roles { roleId role { name } } } } }`,
		`{ kpis(first: 100) { nodes { name ownerId owner { email } groupIds groups { name } } } announcements(first: 100) { nodes { authorId author { email } } } }`,
		`{ dashboards(first: 100) { nodes { name parameters { title } } } badgeApprovals(first: 100) { nodes { assigneeIds assignees { __typename } } } }`,
		`{ users(first: 100) { nodes { email roles { id name } } } roleMappings { roleId teamId } }`,
	} {
		check("after the writes", probe{q, nil, azOK})
	}
	// And acct's admin, through the very same queries, does see its secrets.
	r := e.post(e.acct.Token, `{ goals(filter: {name: {regex: "(?i)zanzibar"}}) { nodes { name } } tags(name: "shared-tag") { nodes { goals { name } } } }`, nil)
	if !strings.Contains(r.body, "Zanzibar goal") || strings.Count(r.body, "Zanzibar goal") != 2 {
		t.Errorf("acct's admin does not see its own goal through the probes: %s", r.body)
	}
}
