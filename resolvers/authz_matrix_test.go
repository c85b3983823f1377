package resolvers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/okrgate/okrgate/upstream/backend/sqlstore/sqlstoretest"

	"github.com/vektah/gqlparser/v2/ast"

	"github.com/okrgate/okrgate/resolvers"
	"github.com/okrgate/okrgate/resolvers/transport/graphqlhttp"
	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
	"github.com/okrgate/okrgate/upstream/infra/instrument"
)

// The GraphQL half of the authorization matrix of issue 4 (the REST half is
// upstream/transport/rest/authz_test.go): every root field of Query and Mutation, taken
// from the served schema, runs as the account's admin, a member, a viewer
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
	e.srv = httptest.NewServer(graphqlhttp.NewHandler(graphqlhttp.Config{API: api, Auth: api}))
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
	comment                                              string
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
	cm, err := e.store.CreateComment(ctx, upstream.CommentInput{TargetID: m.ID, Text: n("comment")})
	must(err)
	f.comment = cm.ID
	for _, w := range []string{"session", "empty session", "goal", "metric", "task", "checkin", "user", "team", "role", "role2",
		"dashboard", "parameter", "on-tag", "off-tag", "badge", "kpi group", "kpi", "list", "announcement", "comment"} {
		f.names = append(f.names, n(w))
	}
	f.names = append(f.names, email)
	return f
}

func (f azItems) ids() []string {
	return []string{f.session, f.emptySession, f.goal, f.metric, f.task, f.checkin, f.team, f.user, f.role, f.role2, f.mapping, f.grant,
		f.dashboard, f.insight, f.parameter, f.activeTag, f.inactive, f.badge, f.assignment, f.kpiGroup, f.kpi, f.list, f.announcement, f.comment}
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
	// The served schema: Apollo Federation's _service and _entities are
	// served only under Config.Federation, and TestEntitiesRights holds
	// _entities to the rights of nodes(ids:).
	schema, err := resolvers.ServedSchema()
	if err != nil {
		t.Fatal(err)
	}
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
