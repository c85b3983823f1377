package resolvers_test

import (
	"encoding/json"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/okrgate/okrgate/resolvers/transport/graphqlhttp"
	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/infra/instrument"
)

// TestLoadList: loadList runs a saved list with its own filter, sort and
// fields, or with those of the input, and gives what upstream LoadList (the
// REST load) gives; an unknown list is null, a bad filter BAD_USER_INPUT.
func TestLoadList(t *testing.T) {
	o := newOrgFixture(t, "loadlist")
	for _, n := range []string{"Gamma", "Alpha", "Beta"} {
		if _, err := o.store.CreateGoal(o.ctx, upstream.GoalInput{Name: n, SessionID: o.sessionID}); err != nil {
			t.Fatal(err)
		}
	}
	l, err := o.store.CreateList(o.ctx, upstream.ListInput{Title: "A and B", ListType: "goal",
		Filter: map[string]any{"name": map[string]any{"$regex": "^(Alpha|Beta)$"}}, Sort: "-name", Fields: "name"})
	if err != nil {
		t.Fatal(err)
	}
	const q = `query($id: ID!, $in: ListLoadInput) { loadList(id: $id, input: $in) { totalCount items list { id title listType createdBy { id } } } }`
	d := o.run(t, q, map[string]any{"id": l.ID})
	wantAt(t, d, "loadList.totalCount", 2)
	wantAt(t, d, "loadList.list.title", "A and B")
	wantAt(t, d, "loadList.list.createdBy.id", o.adminID)
	if got := names(t, d, "loadList.items", "name"); !reflect.DeepEqual(got, []string{"Beta", "Alpha"}) {
		t.Fatalf("items = %v, want the saved sort -name", got)
	}
	// The items are the REST load's, field for field.
	direct, err := o.store.LoadList(o.ctx, l.ID, upstream.ListLoadInput{})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(direct.Items)
	var wantItems any
	json.Unmarshal(want, &wantItems)
	wantAt(t, d, "loadList.items", wantItems)

	// The input overrides the saved filter, sort and fields, and pages.
	d = o.run(t, q, map[string]any{"id": l.ID, "in": map[string]any{"filter": map[string]any{}, "sort": "name", "fields": "name,attainment", "skip": 1, "limit": 1}})
	wantAt(t, d, "loadList.totalCount", 3)
	wantAt(t, d, "loadList.items.#", 1)
	wantAt(t, d, "loadList.items.0.name", "Beta")
	if _, ok := at(t, d, "loadList.items.0").(map[string]any)["attainment"]; !ok {
		t.Fatalf("the input's fields are not applied: %v", at(t, d, "loadList.items.0"))
	}
	d = o.run(t, q, map[string]any{"id": l.ID, "in": map[string]any{"filter": map[string]any{"name": "Gamma"}}})
	wantAt(t, d, "loadList.items.0.name", "Gamma")

	// Errors: a filter on an unknown field, a limit out of range; an unknown id is null.
	for _, in := range []map[string]any{{"filter": map[string]any{"nope": 1}}, {"limit": 5000}, {"sort": "nope"}} {
		if r := o.do(t, q, map[string]any{"id": l.ID, "in": in}); r.code() != "BAD_USER_INPUT" {
			t.Fatalf("input %v: %+v", in, r.Errors)
		}
	}
	d = o.run(t, q, map[string]any{"id": "0123456789abcdef01234567"})
	wantAt(t, d, "loadList", nil)
	// Everyone in the account may load (lists:read).
	var v any
	o.doAs(t, o.viewerToken, q, map[string]any{"id": l.ID}).mustData(t, &v)
	wantAt(t, v, "loadList.totalCount", 2)
}

// TestDashboardsByTagUsagesReports: the three dashboard reads against real
// dashboards, in the store's order.
func TestDashboardsByTagUsagesReports(t *testing.T) {
	o := newOrgFixture(t, "dashtags")
	mk := func(name string, report bool, tags ...string) string {
		t.Helper()
		in := upstream.DashboardInput{Name: name, IsReport: report}
		for _, tg := range tags {
			in.Tags = append(in.Tags, upstream.TagInput{Title: tg})
		}
		d, err := o.store.CreateDashboard(o.ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		return d.ID
	}
	zed := mk("Zed board", true, "Growth", "Ops")
	abc := mk("Abc board", false, "Growth")
	rep := mk("Monthly report", true)
	const q = `query($tag: String!) { dashboardsByTag(tag: $tag) { id name isReport tags { name title goals { id } } } }`
	d := o.run(t, q, map[string]any{"tag": "Growth"})
	if got := names(t, d, "dashboardsByTag", "id"); !reflect.DeepEqual(got, []string{abc, zed}) {
		t.Fatalf("dashboardsByTag(Growth) = %v, want [%s %s] (name order)", got, abc, zed)
	}
	wantAt(t, d, "dashboardsByTag.1.tags.#", 2)
	// By name and by id too; an unknown tag has none.
	d = o.run(t, q, map[string]any{"tag": "ops"})
	wantAt(t, d, "dashboardsByTag.0.id", zed)
	tagID := str(t, d, "dashboardsByTag.0.tags.1.name")
	if tagID != "ops" {
		t.Fatalf("tags of %s: %v", zed, at(t, d, "dashboardsByTag.0.tags"))
	}
	d = o.run(t, `{ tags(name: "growth") { nodes { tagId } } }`, nil)
	d = o.run(t, q, map[string]any{"tag": str(t, d, "tags.nodes.0.tagId")})
	if got := names(t, d, "dashboardsByTag", "id"); !reflect.DeepEqual(got, []string{abc, zed}) {
		t.Fatalf("dashboardsByTag(<growth's id>) = %v", got)
	}
	d = o.run(t, q, map[string]any{"tag": "nothing"})
	wantAt(t, d, "dashboardsByTag", []any{})

	d = o.run(t, `{ dashboardTagUsages { tagName tagTitle dashboardsCount dashboardsIds } dashboardReports { id name } }`, nil)
	wantAt(t, d, "dashboardTagUsages", []any{
		map[string]any{"tagName": "growth", "tagTitle": "Growth", "dashboardsCount": 2.0, "dashboardsIds": []any{zed, abc}},
		map[string]any{"tagName": "ops", "tagTitle": "Ops", "dashboardsCount": 1.0, "dashboardsIds": []any{zed}},
	})
	wantAt(t, d, "dashboardReports", []any{
		map[string]any{"id": rep, "name": "Monthly report"},
		map[string]any{"id": zed, "name": "Zed board"},
	})
	// DashboardTagUsage.dashboards: the dashboards of dashboardsIds, in that
	// order, in one batched ListDashboards for all usages; the root list is
	// recorded as a complete level, so the edge dispatches on its last key
	// (one that waited would run into the second server's timeout).
	for i, cfg := range []graphqlhttp.Config{{}, {Timeout: 20 * time.Second}} {
		o, zed, abc := o, zed, abc
		if i > 0 {
			o = newOrgFixtureCfg(t, "dashtagswait", cfg)
			zed, abc = mk2(t, o)
		}
		before := o.calls.Snapshot()
		d = o.run(t, `{ dashboardTagUsages { tagName dashboards { id name } } }`, nil)
		calls := instrument.Diff(before, o.calls.Snapshot())
		wantAt(t, d, "dashboardTagUsages", []any{
			map[string]any{"tagName": "growth", "dashboards": []any{
				map[string]any{"id": zed, "name": "Zed board"}, map[string]any{"id": abc, "name": "Abc board"}}},
			map[string]any{"tagName": "ops", "dashboards": []any{map[string]any{"id": zed, "name": "Zed board"}}},
		})
		if calls["ListDashboards"] != 1 || calls["DashboardTagUsages"] != 1 {
			t.Errorf("run %d: upstream calls %v; want one DashboardTagUsages and one ListDashboards", i, calls)
		}
	}

	// Exactly what upstream gives.
	us, err := o.store.DashboardTagUsages(o.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(us) != 2 || us[0].DashboardsIDs[0] != zed {
		t.Fatalf("upstream usages %+v", us)
	}
}

// mk2 makes the two tagged dashboards of TestDashboardsByTagUsagesReports
// in o: "Zed board" (Growth, Ops) and "Abc board" (Growth).
func mk2(t *testing.T, o *orgFixture) (zed, abc string) {
	t.Helper()
	for _, d := range []struct {
		name string
		tags []string
		id   *string
	}{{"Zed board", []string{"Growth", "Ops"}, &zed}, {"Abc board", []string{"Growth"}, &abc}} {
		in := upstream.DashboardInput{Name: d.name}
		for _, tg := range d.tags {
			in.Tags = append(in.Tags, upstream.TagInput{Title: tg})
		}
		got, err := o.store.CreateDashboard(o.ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		*d.id = got.ID
	}
	return zed, abc
}

// TestBadgeHoldersAndLegacyUsers: Badge.holders and badgeHolders(id) give the
// users and teams of the approved assignments (not the pending ones), as
// upstream BadgeAssignees does; legacyUsers is the deprecated listing.
func TestBadgeHoldersAndLegacyUsers(t *testing.T) {
	o := newOrgFixture(t, "holders")
	st, ctx := o.store, o.ctx
	team, err := st.CreateTeam(ctx, upstream.TeamInput{Name: "Stars", Members: []string{o.memberID}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := st.CreateBadge(ctx, upstream.BadgeInput{Name: "Star"})
	if err != nil {
		t.Fatal(err)
	}
	none, err := st.CreateBadge(ctx, upstream.BadgeInput{Name: "Nobody's"})
	if err != nil {
		t.Fatal(err)
	}
	a, err := st.AssignBadge(ctx, upstream.AssignBadgeInput{BadgeID: b.ID, AssigneeIDs: []string{o.memberID, team.ID}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.DecideBadge(ctx, a.ID, true); err != nil {
		t.Fatal(err)
	}
	// Approved again for the member (a duplicate holder) and pending for the viewer.
	a2, err := st.AssignBadge(ctx, upstream.AssignBadgeInput{BadgeID: b.ID, AssigneeIDs: []string{o.memberID}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.DecideBadge(ctx, a2.ID, true); err != nil {
		t.Fatal(err)
	}
	if _, err := st.AssignBadge(ctx, upstream.AssignBadgeInput{BadgeID: b.ID, AssigneeIDs: []string{o.viewerID}}); err != nil {
		t.Fatal(err)
	}
	d := o.run(t, `query($b: ID!, $n: ID!) {
  badgeHolders(id: $b) { users { id teams { name } } teams { id members { id } } }
  empty: badgeHolders(id: $n) { users { id } teams { id } }
  missing: badgeHolders(id: "0123456789abcdef01234567") { users { id } }
  badge(id: $b) { holders { users { id } teams { id } } }
  badges(orderBy: [{field: name}]) { nodes { name holders { users { id } teams { id } } } }
}`, map[string]any{"b": b.ID, "n": none.ID})
	holders := map[string]any{"users": []any{map[string]any{"id": o.memberID}}, "teams": []any{map[string]any{"id": team.ID}}}
	wantAt(t, d, "badge.holders", holders)
	wantAt(t, d, "badges.nodes.1.name", "Star")
	wantAt(t, d, "badges.nodes.1.holders", holders)
	wantAt(t, d, "badges.nodes.0.holders", map[string]any{"users": []any{}, "teams": []any{}})
	wantAt(t, d, "empty", map[string]any{"users": []any{}, "teams": []any{}})
	wantAt(t, d, "missing", nil)
	wantAt(t, d, "badgeHolders.users.0.id", o.memberID)
	wantAt(t, d, "badgeHolders.users.0.teams.0.name", "Stars")
	wantAt(t, d, "badgeHolders.teams.0.members.0.id", o.memberID)
	ha, err := st.BadgeAssignees(ctx, b.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(ha.Users) != 1 || len(ha.Teams) != 1 {
		t.Fatalf("upstream BadgeAssignees %+v", ha)
	}

	// legacyUsers: the REST listing's filter, paging and order (by email).
	const lq = `query($f: String, $s: Int, $t: Int, $r: Boolean) { legacyUsers(filter: $f, skip: $s, take: $t, includeShadowedRoles: $r) { totalCount items { email roles(includeTeamRoles: true) { name team { name } } } } }`
	d = o.run(t, lq, nil)
	wantAt(t, d, "legacyUsers.totalCount", 3)
	if got := names(t, d, "legacyUsers.items", "email"); !reflect.DeepEqual(got, []string{"admin@holders.test", "member@holders.test", "viewer@holders.test"}) {
		t.Fatalf("legacyUsers = %v", got)
	}
	d = o.run(t, lq, map[string]any{"f": "email:MEMBER,email:viewer", "s": 1, "t": 1})
	wantAt(t, d, "legacyUsers.totalCount", 2)
	wantAt(t, d, "legacyUsers.items.#", 1)
	wantAt(t, d, "legacyUsers.items.0.email", "viewer@holders.test")
	role, err := st.CreateRole(ctx, upstream.RoleInput{Name: "Shining"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateRoleMapping(ctx, upstream.RoleMappingInput{RoleID: role.ID, TeamID: team.ID}); err != nil {
		t.Fatal(err)
	}
	d = o.run(t, lq, map[string]any{"f": "roles:" + role.ID, "r": true})
	wantAt(t, d, "legacyUsers.totalCount", 1)
	wantAt(t, d, "legacyUsers.items.0.email", "member@holders.test")
	wantAt(t, d, "legacyUsers.items.0.roles.1", map[string]any{"name": "Shining", "team": map[string]any{"name": "Stars"}})
	for _, vars := range []map[string]any{{"f": "team:x"}, {"f": "roles:nope"}, {"t": 0}, {"t": 1001}, {"s": -1}} {
		if r := o.do(t, lq, vars); r.code() != "BAD_USER_INPUT" {
			t.Fatalf("legacyUsers %v: %+v", vars, r.Errors)
		}
	}
	// Deprecated in the schema.
	d = o.run(t, `{ __type(name: "Query") { fields(includeDeprecated: true) { name isDeprecated deprecationReason } } }`, nil)
	found := false
	for _, f := range at(t, d, "__type.fields").([]any) {
		if m := f.(map[string]any); m["name"] == "legacyUsers" {
			found = m["isDeprecated"] == true && m["deprecationReason"] != ""
		}
	}
	if !found {
		t.Fatal("legacyUsers is not deprecated in the schema")
	}
}

// TestBadgeHoldersBatch: Badge.holders is one ListAssignedBadges call per
// level, and the users and teams below it one ListUsers / ListTeams call,
// wherever the badges come from (a connection, assignments that embed their
// badge, assignments that load it, a user's badges) and however many there
// are: N = 3 and N = 40 cost the same calls, and so does N = 40 with a batch
// wait of one hour (a level that waited would run into the timeout).
func TestBadgeHoldersBatch(t *testing.T) {
	const q = `{
  badges(first: 100) { nodes { name holders { users { name teams { name } badges { badge { name } } } teams { name members { name } } } } }
  myBadges(first: 100) { nodes { badge { name holders { users { name } teams { name } } } } }
  badgeApprovals(first: 100) { nodes { badge { holders { users { name } teams { name } } } } }
  users(first: 100) { nodes { badges { badge { holders { teams { name } } } } } }
}`
	var counts []map[string]int64
	for i, n := range []int{3, 40, 40} {
		cfg := graphqlhttp.Config{}
		if i == 2 {
			cfg = graphqlhttp.Config{Timeout: 20 * time.Second}
		}
		o := newOrgFixtureCfg(t, "holdersbatch"+strconv.Itoa(i), cfg)
		fillOrgContent(t, o, n)
		// Every badge is approved for the admin too, so that myBadges (badges
		// embedded by the store) has n of them.
		bs, err := o.store.ListBadges(o.ctx, upstream.ListQuery{Limit: upstream.MaxLimit})
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range bs.Items {
			a, err := o.store.AssignBadge(o.ctx, upstream.AssignBadgeInput{BadgeID: b.ID, AssigneeIDs: []string{o.adminID}})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := o.store.DecideBadge(o.ctx, a.ID, true); err != nil {
				t.Fatal(err)
			}
		}
		before := o.calls.Snapshot()
		var d any
		o.do(t, q, nil).mustData(t, &d)
		calls := instrument.Diff(before, o.calls.Snapshot())
		wantAt(t, d, "badges.nodes.#", n)
		for _, b := range at(t, d, "badges.nodes").([]any) {
			// User i and the admin, team i.
			wantAt(t, b, "holders.users.#", 2)
			wantAt(t, b, "holders.teams.#", 1)
			wantAt(t, b, "holders.teams.0.members.#", 1)
		}
		wantAt(t, d, "myBadges.nodes.#", n)
		for _, a := range at(t, d, "myBadges.nodes").([]any) {
			wantAt(t, a, "badge.holders.users.#", 2)
		}
		wantAt(t, d, "badgeApprovals.nodes.#", n)
		for _, a := range at(t, d, "badgeApprovals.nodes").([]any) {
			wantAt(t, a, "badge.holders.teams.#", 1)
		}
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

// TestSingleReadsDispatchWithoutWaiting: objects read without a loader —
// task(id) (GetTask), a mutation's result, the objects of a mutation's
// payload — are recorded as complete levels, so the edges below them
// dispatch on their last key: every request answers (a level that waited
// for more keys would run into the 20 s request timeout).
func TestSingleReadsDispatchWithoutWaiting(t *testing.T) {
	o := newOrgFixtureCfg(t, "single-no-wait", graphqlhttp.Config{Timeout: 20 * time.Second})
	st, ctx := o.store, o.ctx
	g, err := st.CreateGoal(ctx, upstream.GoalInput{Name: "Grow", SessionID: o.sessionID})
	if err != nil {
		t.Fatal(err)
	}
	tgt := 10.0
	m, err := st.CreateMetric(ctx, upstream.MetricInput{Name: "Revenue", GoalID: g.ID, Target: &tgt})
	if err != nil {
		t.Fatal(err)
	}
	act := 4.0
	if _, err := st.CheckIn(ctx, m.ID, upstream.CheckInInput{Actual: &act}); err != nil {
		t.Fatal(err)
	}
	task, err := st.CreateTask(ctx, upstream.TaskInput{Name: "Call", ParentID: g.ID, OwnerID: o.memberID})
	if err != nil {
		t.Fatal(err)
	}
	mtask, err := st.CreateTask(ctx, upstream.TaskInput{Name: "Mail", ParentID: m.ID, ParentType: upstream.ParentMetric})
	if err != nil {
		t.Fatal(err)
	}
	vars := func(kv ...any) map[string]any {
		out := map[string]any{}
		for i := 0; i < len(kv); i += 2 {
			out[kv[i].(string)] = kv[i+1]
		}
		return out
	}
	before := o.calls.Snapshot()
	d := o.run(t, `query($id: ID!) { task(id: $id) { parent { ... on Goal { metrics { checkins { actual } } } } owner { __typename } } }`, vars("id", task.ID))
	calls := instrument.Diff(before, o.calls.Snapshot())
	wantAt(t, d, "task.parent.metrics.0.checkins.0.actual", 4.0)
	wantAt(t, d, "task.owner.__typename", "User")
	want := map[string]int64{"Authenticate": 1, "GetTask": 1, "ListGoals": 1, "ListMetrics": 1, "ListCheckIns": 1, "ListUsers": 1}
	if !reflect.DeepEqual(calls, want) {
		t.Errorf("task(id) calls %v, want %v", calls, want)
	}
	// An aliased one, a task under a key result, and a missing one.
	d = o.run(t, `query($id: ID!, $no: ID!) { t: task(id: $id) { parent { ... on Metric { goal { name } checkins { actual } } } owner { __typename } } none: task(id: $no) { id } }`,
		vars("id", mtask.ID, "no", "0123456789abcdef01234567"))
	wantAt(t, d, "t.parent.goal.name", "Grow")
	wantAt(t, d, "t.owner.__typename", "User") // a task without an owner is the creator's
	wantAt(t, d, "none", nil)

	// Mutation results and payload objects (also aliased).
	d = o.run(t, `mutation($m: ID!) { c: checkIn(metricId: $m, input: {actual: 6}) { checkIn { id } metric { tasks { name owner { __typename } } } g: goal { metrics { checkins { actual } } } } }`, vars("m", m.ID))
	wantAt(t, d, "c.metric.tasks.0.name", "Mail")
	wantAt(t, d, "c.g.metrics.0.checkins.#", 2)
	d = o.run(t, `mutation($g: ID!) { tagGoal(goalId: $g, title: "Growth") { tag { goals { name } } goal { metrics { name } } } }`, vars("g", g.ID))
	wantAt(t, d, "tagGoal.tag.goals.0.name", "Grow")
	wantAt(t, d, "tagGoal.goal.metrics.0.name", "Revenue")
	d = o.run(t, `mutation($g: ID!) { createTask(input: {name: "New", parentId: $g}) { parent { ... on Goal { metrics { checkins { actual } } } } owner { __typename } } }`, vars("g", g.ID))
	wantAt(t, d, "createTask.parent.metrics.0.checkins.#", 2)
	d = o.run(t, `mutation($g: ID!) { updateGoal(id: $g, input: {name: "Grow more"}) { metrics { tasks { name } } tags { goals { name } } } }`, vars("g", g.ID))
	wantAt(t, d, "updateGoal.tags.0.goals.0.name", "Grow more")
	dash, err := st.CreateDashboard(ctx, upstream.DashboardInput{Name: "Board"})
	if err != nil {
		t.Fatal(err)
	}
	d = o.run(t, `mutation($d: ID!) { tagDashboard(dashboardId: $d, title: "Growth") { tag { dashboards { name } } dashboard { tags { goals { name } } } } }`, vars("d", dash.ID))
	wantAt(t, d, "tagDashboard.dashboard.tags.0.goals.0.name", "Grow more")
	d = o.run(t, `mutation { createTags(titles: ["Growth"]) { goals { name } } }`, nil)
	wantAt(t, d, "createTags.0.goals.0.name", "Grow more")
	// The new reads too.
	b, err := st.CreateBadge(ctx, upstream.BadgeInput{Name: "Star"})
	if err != nil {
		t.Fatal(err)
	}
	a, err := st.AssignBadge(ctx, upstream.AssignBadgeInput{BadgeID: b.ID, AssigneeIDs: []string{o.memberID}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.DecideBadge(ctx, a.ID, true); err != nil {
		t.Fatal(err)
	}
	l, err := st.CreateList(ctx, upstream.ListInput{Title: "All", ListType: "goal"})
	if err != nil {
		t.Fatal(err)
	}
	d = o.run(t, `query($b: ID!, $l: ID!) {
  badge(id: $b) { holders { users { teams { name } goals { name } } } }
  badgeHolders(id: $b) { users { goals { name } badges { badge { name } } } }
  loadList(id: $l) { list { createdBy { teams { name } } } }
  dashboardsByTag(tag: "growth") { tags { goals { name } } }
  legacyUsers(filter: "email:member") { items { teams { name } badges { badge { name } } } }
}`, vars("b", b.ID, "l", l.ID))
	wantAt(t, d, "badgeHolders.users.0.badges.0.badge.name", "Star")
	wantAt(t, d, "dashboardsByTag.0.tags.0.goals.0.name", "Grow more")
	wantAt(t, d, "legacyUsers.items.0.badges.0.badge.name", "Star")
}
