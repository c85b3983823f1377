package resolvers_test

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/okrgate/okrgate/resolvers"
	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/infra/instrument"
)

// nodeIDs lists the ids of every node type of the store, per GraphQL type.
func nodeIDs(t *testing.T, o *orgFixture) map[string][]string {
	t.Helper()
	st, ctx := o.store, o.ctx
	q := upstream.ListQuery{Limit: upstream.MaxLimit}
	out := map[string][]string{}
	add := func(typ string, n int, err error, id func(int) string) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		for i := range n {
			out[typ] = append(out[typ], id(i))
		}
	}
	goals, err := st.ListGoals(ctx, q)
	add("Goal", len(goals.Items), err, func(i int) string { return goals.Items[i].ID })
	metrics, err := st.ListMetrics(ctx, q)
	add("Metric", len(metrics.Items), err, func(i int) string { return metrics.Items[i].ID })
	tasks, err := st.ListTasks(ctx, q)
	add("Task", len(tasks.Items), err, func(i int) string { return tasks.Items[i].ID })
	checkins, err := st.ListCheckIns(ctx, q)
	add("CheckIn", len(checkins.Items), err, func(i int) string { return checkins.Items[i].ID })
	sessions, err := st.ListSessions(ctx, q, true)
	add("Session", len(sessions.Items), err, func(i int) string { return sessions.Items[i].ID })
	users, err := st.ListUsers(ctx, q)
	add("User", len(users.Items), err, func(i int) string { return users.Items[i].ID })
	teams, err := st.ListTeams(ctx, q)
	add("Team", len(teams.Items), err, func(i int) string { return teams.Items[i].ID })
	tags, err := st.ListTags(ctx, upstream.TagQuery{ListQuery: q})
	add("Tag", len(tags.Items), err, func(i int) string { return tags.Items[i].ID })
	dashboards, err := st.ListDashboards(ctx, q)
	add("Dashboard", len(dashboards.Items), err, func(i int) string { return dashboards.Items[i].ID })
	kpis, err := st.ListKPIs(ctx, q)
	add("Kpi", len(kpis.Items), err, func(i int) string { return kpis.Items[i].ID })
	groups, err := st.ListKPIGroups(ctx, q)
	add("KpiGroup", len(groups.Items), err, func(i int) string { return groups.Items[i].ID })
	lists, err := st.ListLists(ctx, q)
	add("List", len(lists.Items), err, func(i int) string { return lists.Items[i].ID })
	news, err := st.ListAnnouncements(ctx, q)
	add("Announcement", len(news.Items), err, func(i int) string { return news.Items[i].ID })
	comments, err := st.ListComments(ctx, q)
	add("Comment", len(comments.Items), err, func(i int) string { return comments.Items[i].ID })
	badges, err := st.ListBadges(ctx, q)
	add("Badge", len(badges.Items), err, func(i int) string { return badges.Items[i].ID })
	assigned, err := st.ListAssignedBadges(ctx, q)
	add("AssignedBadge", len(assigned.Items), err, func(i int) string { return assigned.Items[i].ID })
	params, err := st.ListDashboardParameters(ctx, q)
	add("DashboardParameter", len(params.Items), err, func(i int) string { return params.Items[i].ID })
	roles, err := st.ListRoles(ctx, q)
	add("Role", len(roles.Items), err, func(i int) string { return roles.Items[i].ID })
	// The types whose REST id is another object's: typed global ids.
	emps, err := st.ListEmployees(ctx, q)
	add("Employee", len(emps.Items), err, func(i int) string { return "Employee:" + emps.Items[i].ID })
	add("TagDetail", len(tags.Items), nil, func(i int) string { return "TagDetail:" + tags.Items[i].ID })
	maps, err := st.ListRoleMappings(ctx)
	// Roles held directly and through a team, in turn.
	add("UserRole", 2*min(len(roles.Items), len(maps)), err, func(i int) string {
		if i%2 == 0 {
			return "UserRole:" + roles.Items[i/2].ID
		}
		return "UserRole:" + maps[i/2].ID + ":" + maps[i/2].TeamID
	})
	// The types without a listing filterable by id.
	add("RoleMapping", len(maps), nil, func(i int) string { return maps[i].MappingID })
	c, _ := upstream.CallerFrom(ctx)
	add("Account", 1, nil, func(int) string { return c.AccountID })
	toks, err := st.ListTokens(ctx)
	add("ApiToken", len(toks), err, func(i int) string { return toks[i].ID })
	add("Permission", len(o.permissionIDs), nil, func(i int) string { return o.permissionIDs[i] })
	return out
}

// nodeTypes are the GraphQL types implementing Node.
var nodeTypes = []string{"Goal", "Metric", "Task", "CheckIn", "Session", "User", "Team", "Tag", "Dashboard", "Kpi",
	"KpiGroup", "List", "Announcement", "Badge", "AssignedBadge", "DashboardParameter", "Role",
	"Employee", "TagDetail", "UserRole", "RoleMapping", "Account", "ApiToken", "Permission", "Comment"}

// TestNodeTypesAreTheSchemas: nodeTypes are exactly the schema's types
// implementing Node, so that TestNodeRoundTrip and TestNodesRefetchBatch
// fail for a new node type until node(id:) finds it (nodesByID's fetchers,
// node.go and node_kinds.go) and the fixture has one.
func TestNodeTypesAreTheSchemas(t *testing.T) {
	schema, err := resolvers.ServedSchema()
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, def := range schema.GetPossibleTypes(schema.Types["Node"]) {
		want = append(want, def.Name)
	}
	got := slices.Clone(nodeTypes)
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("nodeTypes are %v; the schema's types implementing Node are %v", got, want)
	}
}

// fillNodes adds to fillOrgContent what it leaves out: per goal a key
// result with a check-in, a task under the goal; n lists and dashboard
// parameters, API tokens of the caller and grants.
func fillNodes(t *testing.T, o *orgFixture, n int) {
	t.Helper()
	fillOrgContent(t, o, n)
	st, ctx := o.store, o.ctx
	goals, err := st.ListGoals(ctx, upstream.ListQuery{Limit: upstream.MaxLimit})
	if err != nil {
		t.Fatal(err)
	}
	for i, g := range goals.Items {
		target, actual := 10.0, float64(i)
		m, err := st.CreateMetric(ctx, upstream.MetricInput{Name: "KR " + g.Name, GoalID: g.ID, Target: &target})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.CheckIn(ctx, m.ID, upstream.CheckInInput{Actual: &actual}); err != nil {
			t.Fatal(err)
		}
		if _, err := st.CreateTask(ctx, upstream.TaskInput{Name: "Task " + g.Name, ParentID: g.ID, ParentType: upstream.ParentGoal}); err != nil {
			t.Fatal(err)
		}
		if _, err := st.CreateComment(ctx, upstream.CommentInput{TargetID: m.ID, Text: "On " + m.Name}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		s := strconv.Itoa(i)
		if _, err := st.CreateList(ctx, upstream.ListInput{Title: "List " + s, ListType: "goal"}); err != nil {
			t.Fatal(err)
		}
		if _, err := st.CreateDashboardParameter(ctx, upstream.DashboardParameterInput{Key: "k" + s, Title: "Param " + s, SelectorType: "single"}); err != nil {
			t.Fatal(err)
		}
		if _, err := st.IssueToken(ctx, "", upstream.TokenInput{Name: "Token " + s}); err != nil {
			t.Fatal(err)
		}
		p, err := st.CreatePermission(ctx, upstream.PermissionInput{Action: string(upstream.GoalsRead), Principals: []string{o.memberID}})
		if err != nil {
			t.Fatal(err)
		}
		o.permissionIDs = append(o.permissionIDs, p.ID)
	}
}

// TestNodeRoundTrip: node(id:) answers every node type with the object of
// that id, nodes(ids:) keeps the order and answers null for unknown ids,
// and another account's ids are null.
func TestNodeRoundTrip(t *testing.T) {
	o := newOrgFixture(t, "node")
	fillNodes(t, o, 2)
	ids := nodeIDs(t, o)
	for _, typ := range nodeTypes {
		if len(ids[typ]) == 0 {
			t.Fatalf("the fixture has no %s", typ)
		}
		for _, id := range ids[typ] {
			d := o.run(t, `query($id: ID!) { node(id: $id) { __typename id } }`, map[string]any{"id": id})
			wantAt(t, d, "node.__typename", typ)
			wantAt(t, d, "node.id", id)
		}
	}
	// The type's own fields through a fragment, in the order asked.
	g, tm := ids["Goal"][0], ids["Team"][0]
	d := o.run(t, `query($ids: [ID!]!) { nodes(ids: $ids) { id ... on Goal { name } ... on Team { name } ... on Owner { picture } } }`,
		map[string]any{"ids": []string{tm, "000000000000000000000000", g, "not-an-id"}})
	wantAt(t, d, "nodes.#", 4)
	wantAt(t, d, "nodes.0.id", tm)
	wantAt(t, d, "nodes.1", nil)
	wantAt(t, d, "nodes.2.id", g)
	wantAt(t, d, "nodes.3", nil)
	if str(t, d, "nodes.2.name") == "" || str(t, d, "nodes.0.name") == "" {
		t.Fatalf("names missing: %v", d)
	}
	// Another account sees none of them.
	other := newOrgFixture(t, "node-other")
	d = other.run(t, `query($id: ID!, $ids: [ID!]!) { node(id: $id) { id } nodes(ids: $ids) { id } }`, map[string]any{"id": g, "ids": []string{g, tm}})
	wantAt(t, d, "node", nil)
	wantAt(t, d, "nodes.0", nil)
	wantAt(t, d, "nodes.1", nil)
	var firsts []string // the last of each type: the first role is a built-in one, which every account sees
	for _, typ := range nodeTypes {
		firsts = append(firsts, ids[typ][len(ids[typ])-1])
	}
	d = other.run(t, `query($ids: [ID!]!) { nodes(ids: $ids) { id } }`, map[string]any{"ids": firsts})
	for i := range nodeTypes {
		wantAt(t, d, "nodes."+strconv.Itoa(i), nil)
	}
	// Typed ids that name nothing, or in a wrong shape, are null.
	d = o.run(t, `query($ids: [ID!]!) { nodes(ids: $ids) { id } }`, map[string]any{"ids": []string{
		"Employee:000000000000000000000000", "TagDetail:" + ids["Role"][0], "UserRole:" + ids["Role"][0] + ":" + tm + ":x",
		"Goal:" + g, "UserRole:", ":" + g}})
	for i := range 6 {
		wantAt(t, d, "nodes."+strconv.Itoa(i), nil)
	}
	// employee(id:) takes the global id as well as the user id.
	e := ids["Employee"][0]
	d = o.run(t, `query($a: ID!, $b: ID!) { a: employee(id: $a) { id userId } b: employee(id: $b) { id } }`,
		map[string]any{"a": e, "b": strings.TrimPrefix(e, "Employee:")})
	wantAt(t, d, "a.id", e)
	wantAt(t, d, "b.id", e)
	wantAt(t, d, "a.userId", strings.TrimPrefix(e, "Employee:"))
	// Too many ids.
	many := make([]string, 101)
	for i := range many {
		many[i] = g
	}
	if r := o.do(t, `query($ids: [ID!]!) { nodes(ids: $ids) { id } }`, map[string]any{"ids": many}); r.code() != "BAD_USER_INPUT" {
		t.Fatalf("101 ids: %+v", r.Errors)
	}
}

// TestNodesRefetchBatch: a Relay-style refetch of 100 nodes of every type,
// with edges below, costs one upstream call per node type and per level,
// the same as the refetch of a few nodes.
func TestNodesRefetchBatch(t *testing.T) {
	const q = `query($ids: [ID!]!) { nodes(ids: $ids) {
  __typename id
  ... on Goal { name children { id } metrics { checkins { actual } } owners { id name } }
  ... on Team { members { name } }
  ... on Metric { goal { name } }
} }`
	var counts []map[string]int64
	for i, n := range []int{2, 7} {
		o := newOrgFixture(t, "nodes"+strconv.Itoa(i))
		fillNodes(t, o, n)
		all := nodeIDs(t, o)
		total := 0
		for _, typ := range nodeTypes {
			all[typ] = all[typ][:min(len(all[typ]), n)]
			if typ == "Permission" {
				// Grants are asked one id at a time (no listing
				// upstream): the same two in both rounds.
				all[typ] = all[typ][:2]
			}
			total += len(all[typ])
		}
		if n == 7 {
			if total < 100 {
				t.Fatalf("only %d ids", total)
			}
			// Exactly 100: one id less of the types without edges in q
			// in turn, every type kept.
			for total > 100 {
				for _, typ := range []string{"Kpi", "KpiGroup", "List", "Announcement", "Badge", "AssignedBadge", "DashboardParameter", "Tag", "Dashboard", "Task", "CheckIn",
					"Employee", "TagDetail", "RoleMapping", "ApiToken"} {
					if total > 100 && len(all[typ]) > 1 {
						all[typ] = all[typ][1:]
						total--
					}
				}
			}
		}
		var ids []string
		for _, typ := range nodeTypes {
			ids = append(ids, all[typ]...)
		}
		before := o.calls.Snapshot()
		var d any
		o.do(t, q, map[string]any{"ids": ids}).mustData(t, &d)
		calls := instrument.Diff(before, o.calls.Snapshot())
		got := at(t, d, "nodes").([]any)
		if len(got) != len(ids) {
			t.Fatalf("%d nodes for %d ids", len(got), len(ids))
		}
		for j, v := range got {
			if v == nil || str(t, v, "id") != ids[j] {
				t.Fatalf("node %d = %v, want id %s", j, v, ids[j])
			}
		}
		t.Logf("%d ids: upstream calls %v", len(ids), calls)
		counts = append(counts, calls)
	}
	if !reflect.DeepEqual(counts[0], counts[1]) {
		t.Fatalf("upstream calls differ: %v (few ids), %v (100 ids)", counts[0], counts[1])
	}
	var listings []string
	for op, c := range counts[1] {
		listings = append(listings, fmt.Sprintf("%s %d", op, c))
	}
	slices.Sort(listings)
	// One call per node type (ListGoals, ... ListRoles), plus the levels
	// below: Goal.children and Metric.goal (ListGoals), Goal.metrics
	// (ListMetrics), Metric.checkins (ListCheckIns), owners and members
	// (ListUsers; the owners' ids are all users, so no ListTeams). The
	// typed ids: ListEmployees, ListTags (TagDetail), ListRoles (roles held
	// directly), ListRoleMappings and ListTeams (roles held through a
	// team). The REST ids without a listing filterable by id: role
	// mappings (ListRoleMappings), the caller's tokens (ListTokens) and
	// account (GetAccount). Grants: one ListPermissions.
	want := map[string]int64{"Authenticate": 1, "ListGoals": 3, "ListMetrics": 2, "ListTasks": 1, "ListCheckIns": 2,
		"ListSessions": 1, "ListUsers": 3, "ListTeams": 2, "ListTags": 2, "ListDashboards": 1, "ListKPIs": 1,
		"ListKPIGroups": 1, "ListLists": 1, "ListAnnouncements": 1, "ListComments": 1, "ListBadges": 1, "ListAssignedBadges": 1,
		"ListDashboardParameters": 1, "ListRoles": 2, "ListEmployees": 1, "ListRoleMappings": 2, "ListTokens": 1,
		"GetAccount": 1, "ListPermissions": 1}
	if !reflect.DeepEqual(counts[1], want) {
		t.Fatalf("upstream calls = %v, want %v", listings, want)
	}
}

// TestResourcesAreNodes: every resource with a GraphQL type
// (upstream.Resources) implements Node in the schema, so that
// TestNodeTypesAreTheSchemas, TestNodeRoundTrip and TestNodesRefetchBatch
// hold node(id:) to finding it.
func TestResourcesAreNodes(t *testing.T) {
	schema, err := resolvers.ServedSchema()
	if err != nil {
		t.Fatal(err)
	}
	var nodes []string
	for _, def := range schema.GetPossibleTypes(schema.Types["Node"]) {
		nodes = append(nodes, def.Name)
	}
	for _, r := range upstream.Resources {
		if r.GraphQL != "" && !slices.Contains(nodes, r.GraphQL) {
			t.Errorf("GraphQL type %s of upstream.%s does not implement Node (graph/schema)", r.GraphQL, r.Item.Name())
		}
	}
}
