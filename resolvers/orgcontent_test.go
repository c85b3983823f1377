package resolvers_test

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/okrgate/okrgate/resolvers/transport/graphqlhttp"
	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/infra/instrument"
)

// TestOrgContentForbidden: authorization is the store's; GraphQL reports a
// refused mutation as FORBIDDEN, for a viewer trying any write and for a
// member trying an admin-only one, and nothing is written.
func TestOrgContentForbidden(t *testing.T) {
	o := newOrgFixture(t, "forbidden")
	b, err := o.store.CreateBadge(o.ctx, upstream.BadgeInput{Name: "Star"})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		who, token, q string
	}{
		{"viewer", o.viewerToken, `mutation { createBadge(input: {name: "X"}) { id } }`},
		{"viewer", o.viewerToken, `mutation { createKpiGroup(name: "X") { id } }`},
		{"viewer", o.viewerToken, `mutation { createTags(titles: ["X"]) { id } }`},
		{"viewer", o.viewerToken, `mutation { createDashboard(input: {name: "X"}) { id } }`},
		{"viewer", o.viewerToken, `mutation { createList(input: {title: "X", listType: "goal"}) { id } }`},
		{"viewer", o.viewerToken, `mutation { createAnnouncement(input: {comment: "X"}) { id } }`},
		{"viewer", o.viewerToken, `mutation { createTeam(input: {name: "X"}) { id } }`},
		{"viewer", o.viewerToken, `mutation { assignBadge(input: {badgeId: "` + b.ID + `", assigneeIds: ["` + o.viewerID + `"]}) { id } }`},
		{"member", o.memberToken, `mutation { createRole(input: {name: "X"}) { id } }`},
		{"member", o.memberToken, `mutation { createUser(input: {email: "x@forbidden.test"}) { id } }`},
		{"member", o.memberToken, `mutation { updateAccount(input: {language: "fr"}) { id } }`},
		{"member", o.memberToken, `mutation { setConfidence(input: {confidenceType: "x", confidenceMapping: []}) { id } }`},
		{"member", o.memberToken, `mutation { setPrincipalPermissions(principalId: "` + o.memberID + `", actions: ["roles:manage"]) { actions } }`},
		{"member", o.memberToken, `mutation { createPermission(action: "roles:manage", principals: ["` + o.memberID + `"]) { id } }`},
		{"member", o.memberToken, `mutation { createBadge(input: {name: "X"}) { id } }`},
		{"member", o.memberToken, `mutation { deleteBadge(id: "` + b.ID + `") }`},
		{"member", o.memberToken, `mutation { createUserToken(id: "` + o.viewerID + `") { token } }`},
		{"member", o.memberToken, `mutation { setItemAccess(itemType: "session", id: "` + o.sessionID + `", access: {inherits: false}) { inherits } }`},
	}
	for _, c := range cases {
		r := o.doAs(t, c.token, c.q, nil)
		if r.code() != "FORBIDDEN" {
			t.Errorf("%s: %s\n  got %s %+v, want FORBIDDEN", c.who, c.q, r.Data, r.Errors)
		}
	}
	d := o.run(t, `{ badges { totalCount } kpiGroups { totalCount } roles(filter: {builtIn: {eq: false}}) { totalCount } account { language } }`, nil)
	wantAt(t, d, "badges.totalCount", 1)
	wantAt(t, d, "kpiGroups.totalCount", 0)
	wantAt(t, d, "roles.totalCount", 0)
	wantAt(t, d, "account.language", at(t, o.run(t, `{ account { language } }`, nil), "account.language"))
	// Reads stay allowed.
	var v any
	o.doAs(t, o.viewerToken, `{ badges { totalCount } }`, nil).mustData(t, &v)
	wantAt(t, v, "badges.totalCount", 1)
}

// TestPrivateGoalNeverLeaks: a private goal of the admin, between a visible
// parent and a visible child and carrying a tag, never shows its name to a
// member, whatever path the query takes.
func TestPrivateGoalNeverLeaks(t *testing.T) {
	o := newOrgFixture(t, "private")
	const secret = "Top secret acquisition"
	mk := func(in upstream.GoalInput) upstream.Goal {
		in.SessionID = o.sessionID
		g, err := o.store.CreateGoal(o.ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	top := mk(upstream.GoalInput{Name: "Grow", OwnerID: o.adminID})
	hidden := mk(upstream.GoalInput{Name: secret, ParentID: top.ID, OwnerID: o.adminID, Private: true, Tags: []upstream.TagInput{{Title: "Deals"}}})
	below := mk(upstream.GoalInput{Name: "Close deal", ParentID: hidden.ID, OwnerID: o.memberID, Tags: []upstream.TagInput{{Title: "Deals"}}})
	// The admin sees it (the test would prove nothing otherwise).
	if r := o.do(t, `{ goals(first: 100) { nodes { name } } }`, nil); !strings.Contains(string(r.Data), secret) {
		t.Fatalf("the admin does not see the private goal: %s", r.Data)
	}
	vars := map[string]any{"s": o.sessionID, "top": top.ID, "hidden": hidden.ID, "below": below.ID, "admin": o.adminID}
	queries := []string{
		`{ goals(first: 100) { nodes { id name obfuscated parent { name } children { name children { name } } } } }`,
		`{ goals(first: 100, filter: {name: {regex: "(?i)secret"}}) { totalCount nodes { name } } }`,
		`query($s: ID!) { session(id: $s) { goals { name children { name } } roots: goals(roots: true) { name children { name children { name } } } } }`,
		`query($top: ID!) { goal(id: $top) { name children { id name obfuscated children { name } } } }`,
		`query($below: ID!) { goal(id: $below) { name parent { id name obfuscated parent { name } } } }`,
		`query($hidden: ID!) { goal(id: $hidden) { name } }`,
		`{ tags(first: 100) { nodes { name goals { name parent { name } } } } }`,
		`query($below: ID!) { goal(id: $below) { tags { name goals { name } } } }`,
		`query($admin: ID!) { user(id: $admin) { goals { name } } viewer { goals { name parent { name } } } }`,
		`{ sessions { nodes { goals { name } } } }`,
	}
	for _, q := range queries {
		used := map[string]any{}
		for k, v := range vars {
			if strings.Contains(q, "$"+k) {
				used[k] = v
			}
		}
		r := o.doAs(t, o.memberToken, q, used)
		if strings.Contains(string(r.Data), secret) || strings.Contains(fmt.Sprint(r.Errors), secret) {
			t.Errorf("a member sees the private goal's name: %s\n  %s %v", q, r.Data, r.Errors)
		}
		if r.code() != "" && r.code() != "NOT_FOUND" && r.code() != "FORBIDDEN" {
			t.Errorf("%s: unexpected error %v", q, r.Errors)
		}
	}
	// The visible child is there, and its parent appears obfuscated.
	var d any
	o.doAs(t, o.memberToken, `query($below: ID!) { goal(id: $below) { name parent { obfuscated } } }`, map[string]any{"below": below.ID}).mustData(t, &d)
	wantAt(t, d, "goal.name", "Close deal")
}

// TestOrgContentEdgesBatch: a query over N tags, users, teams, employees, KPI
// groups, badge assignments and announcements with every new edge costs the
// same upstream calls for N = 3 and N = 40.
func TestOrgContentEdgesBatch(t *testing.T) {
	const q = `{
  tags(first: 100) { nodes { name goals { name tags { name } } dashboards { name tags { name } } } }
  users(first: 100) { nodes { name badges { status badge { name } assignees { __typename } } roles(includeTeamRoles: true) { name team { name } } employee { teams { name } managedTeams { name } } } }
  teams(first: 100) { nodes { name badges { badge { name } assignedBy { name } } roles { name role { userCount } team { name } } members { name } } }
  employees(first: 100) { nodes { badges { badge { name } } teams { name } managedTeams { name } user { name } } }
  kpiGroups(first: 100) { nodes { name createdBy { name } kpis { name owner { name } groups { name } } } }
  kpis(first: 100) { nodes { groups { kpis { name } } } }
  badgeApprovals(first: 100) { nodes { badge { name } assignedBy { name } assignees { __typename } } }
  announcements(first: 100) { nodes { author { name } } }
  roleMappings { role { name } team { name } }
  account { owner { name } }
  goals(first: 100) { nodes { tags { goals { name } dashboards { tags { name } } } } }
  dashboards(first: 100) { nodes { tags { dashboards { name } } } }
}`
	var counts []map[string]int64
	for i, n := range []int{3, 40, 40} {
		cfg := graphqlhttp.Config{}
		if i == 2 {
			// Nothing waits for keys (edge.go): a level that waited
			// instead of dispatching on its last key would run into
			// this timeout.
			cfg = graphqlhttp.Config{Timeout: 20 * time.Second}
		}
		o := newOrgFixtureCfg(t, "batch"+strconv.Itoa(i), cfg)
		fillOrgContent(t, o, n)
		before := o.calls.Snapshot()
		var d any
		o.do(t, q, nil).mustData(t, &d)
		calls := instrument.Diff(before, o.calls.Snapshot())
		// The data is all there.
		wantAt(t, d, "tags.nodes.#", n)
		wantAt(t, d, "kpiGroups.nodes.#", n)
		for _, tg := range at(t, d, "tags.nodes").([]any) {
			wantAt(t, tg, "goals.#", 1)
			wantAt(t, tg, "dashboards.#", 1)
		}
		for _, g := range at(t, d, "kpiGroups.nodes").([]any) {
			wantAt(t, g, "kpis.#", 2)
		}
		badged := 0
		for _, u := range at(t, d, "users.nodes").([]any) {
			badged += len(at(t, u, "badges").([]any))
		}
		if badged != n {
			t.Fatalf("N=%d: %d approved user badges", n, badged)
		}
		wantAt(t, d, "badgeApprovals.nodes.#", n)
		wantAt(t, d, "roleMappings.#", n)
		t.Logf("N=%d: upstream calls %v", n, calls)
		counts = append(counts, calls)
	}
	if !reflect.DeepEqual(counts[0], counts[1]) {
		t.Fatalf("upstream calls differ: N=3 %v, N=40 %v", counts[0], counts[1])
	}
	if !reflect.DeepEqual(counts[1], counts[2]) {
		t.Fatalf("upstream calls differ without waiting: %v, with the timer %v", counts[2], counts[1])
	}
}
