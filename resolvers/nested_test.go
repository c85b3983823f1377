package resolvers_test

import (
	"reflect"
	"strconv"
	"testing"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/infra/instrument"
	"github.com/okrgate/okrgate/upstream/query"
)

// nestedFixture makes n root objectives, each with 4 children (attainment
// 0, 0.25, 0.5, 0.75 by name c0..c3, created in reverse), 3 key results
// with 2 check-ins each and 2 tasks; and a team with all users as members.
func nestedFixture(t *testing.T, name string, n int) *orgFixture {
	t.Helper()
	o := newOrgFixture(t, name)
	st, ctx := o.store, o.ctx
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		s := strconv.Itoa(i)
		root, err := st.CreateGoal(ctx, upstream.GoalInput{Name: "root " + s, SessionID: o.sessionID})
		must(err)
		for c := 3; c >= 0; c-- {
			child, err := st.CreateGoal(ctx, upstream.GoalInput{Name: "c" + strconv.Itoa(c), SessionID: o.sessionID, ParentID: root.ID})
			must(err)
			target, actual := 4.0, float64(c)
			m, err := st.CreateMetric(ctx, upstream.MetricInput{Name: "kr", GoalID: child.ID, Target: &target})
			must(err)
			_, err = st.CheckIn(ctx, m.ID, upstream.CheckInInput{Actual: &actual})
			must(err)
		}
		for k := range 3 {
			target := 10.0
			m, err := st.CreateMetric(ctx, upstream.MetricInput{Name: "m" + strconv.Itoa(k), GoalID: root.ID, Target: &target})
			must(err)
			for _, a := range []float64{1, 2} {
				_, err = st.CheckIn(ctx, m.ID, upstream.CheckInInput{Actual: &a})
				must(err)
			}
		}
		for _, status := range []string{upstream.TaskTodo, upstream.TaskDone} {
			_, err = st.CreateTask(ctx, upstream.TaskInput{Name: "t " + status, ParentID: root.ID, ParentType: upstream.ParentGoal, Status: status})
			must(err)
		}
	}
	users, err := st.ListUsers(ctx, upstream.ListQuery{})
	must(err)
	var ids []string
	for _, u := range users.Items {
		ids = append(ids, u.ID)
	}
	_, err = st.CreateTeam(ctx, upstream.TeamInput{Name: "All", Members: ids})
	must(err)
	return o
}

const nestedQuery = `query($s: ID!) {
  session(id: $s) {
    goals(roots: true, orderBy: [{field: name}]) {
      name
      children(filter: {attainment: {gte: 0.25}}, orderBy: [{field: attainment, direction: DESC}], first: 2) { name attainment metrics { checkins { actual } } }
      all: children { name }
      childrenConnection(first: 2, orderBy: [{field: name}]) { totalCount pageInfo { hasNextPage endCursor } nodes { name metrics { name } } edges { cursor node { name } } }
      metrics(orderBy: [{field: name, direction: DESC}], first: 2) { name checkins(orderBy: [{field: actual, direction: DESC}], first: 1) { actual } }
      metricsConnection(filter: {name: {ne: "m1"}}) { totalCount nodes { name checkinsConnection(first: 1) { totalCount nodes { actual } } } }
      tasks(filter: {status: {eq: "done"}}) { name }
      tasksConnection(first: 1) { totalCount pageInfo { hasNextPage } nodes { name } }
    }
    goalsConnection(roots: true, first: 1, filter: {name: {regex: "^root"}}) { totalCount nodes { name } }
  }
  teams(first: 10) { nodes { name members(orderBy: [{field: email, direction: DESC}], first: 2) { email } membersConnection(first: 1) { totalCount nodes { email } } } }
}`

// TestNestedEdgeArguments: filter, orderBy and first on the nested edges and
// their connection forms answer what the same arguments answer on the
// top-level connections, per parent.
func TestNestedEdgeArguments(t *testing.T) {
	o := nestedFixture(t, "nested", 2)
	d := o.run(t, nestedQuery, map[string]any{"s": o.sessionID})
	wantAt(t, d, "session.goals.#", 2)
	for _, g := range at(t, d, "session.goals").([]any) {
		if got := names(t, g, "children", "name"); !reflect.DeepEqual(got, []string{"c3", "c2"}) {
			t.Fatalf("children(filter, orderBy DESC, first 2) = %v", got)
		}
		wantAt(t, g, "children.0.metrics.0.checkins.0.actual", 3.0)
		wantAt(t, g, "all.#", 4)
		wantAt(t, g, "childrenConnection.totalCount", 4)
		wantAt(t, g, "childrenConnection.pageInfo.hasNextPage", true)
		if got := names(t, g, "childrenConnection.nodes", "name"); !reflect.DeepEqual(got, []string{"c0", "c1"}) {
			t.Fatalf("childrenConnection nodes = %v", got)
		}
		wantAt(t, g, "childrenConnection.edges.1.node.name", "c1")
		wantAt(t, g, "childrenConnection.nodes.0.metrics.0.name", "kr")
		if got := names(t, g, "metrics", "name"); !reflect.DeepEqual(got, []string{"m2", "m1"}) {
			t.Fatalf("metrics(orderBy name DESC, first 2) = %v", got)
		}
		wantAt(t, g, "metrics.0.checkins.#", 1)
		wantAt(t, g, "metrics.0.checkins.0.actual", 2.0)
		wantAt(t, g, "metricsConnection.totalCount", 2)
		wantAt(t, g, "metricsConnection.nodes.0.checkinsConnection.totalCount", 2)
		wantAt(t, g, "metricsConnection.nodes.0.checkinsConnection.nodes.#", 1)
		if got := names(t, g, "tasks", "name"); !reflect.DeepEqual(got, []string{"t done"}) {
			t.Fatalf("tasks(filter done) = %v", got)
		}
		wantAt(t, g, "tasksConnection.totalCount", 2)
		wantAt(t, g, "tasksConnection.pageInfo.hasNextPage", true)
	}
	wantAt(t, d, "session.goalsConnection.totalCount", 2)
	wantAt(t, d, "session.goalsConnection.nodes.#", 1)

	// The next page of a nested connection, with the cursor of the first.
	cursor := str(t, d, "session.goals.0.childrenConnection.pageInfo.endCursor")
	d2 := o.run(t, `query($s: ID!, $c: String) { session(id: $s) { goals(roots: true, orderBy: [{field: name}], first: 1) { childrenConnection(first: 2, after: $c, orderBy: [{field: name}]) { pageInfo { hasNextPage hasPreviousPage } nodes { name } } } } }`,
		map[string]any{"s": o.sessionID, "c": cursor})
	if got := names(t, d2, "session.goals.0.childrenConnection.nodes", "name"); !reflect.DeepEqual(got, []string{"c2", "c3"}) {
		t.Fatalf("second page = %v", got)
	}
	wantAt(t, d2, "session.goals.0.childrenConnection.pageInfo.hasNextPage", false)
	wantAt(t, d2, "session.goals.0.childrenConnection.pageInfo.hasPreviousPage", true)

	// Team members, sorted by email descending, as the top-level listing sorts them.
	users, err := o.store.ListUsers(o.ctx, upstream.ListQuery{Sort: []query.SortKey{{Field: "email", Desc: true}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tm := range at(t, d, "teams.nodes").([]any) {
		if str(t, tm, "name") != "All" {
			continue
		}
		if got := names(t, tm, "members", "email"); !reflect.DeepEqual(got, []string{users.Items[0].Email, users.Items[1].Email}) {
			t.Fatalf("members(orderBy email DESC, first 2) = %v", got)
		}
		wantAt(t, tm, "membersConnection.totalCount", len(users.Items))
	}

	// Bad arguments are BAD_USER_INPUT.
	for _, q := range []string{
		`query($s: ID!) { session(id: $s) { goals { children(first: 101) { id } } } }`,
		`query($s: ID!) { session(id: $s) { goals { childrenConnection(first: 101) { totalCount } } } }`,
		`query($s: ID!) { session(id: $s) { goals { children(filter: {name: {regex: "("}}) { id } } } }`,
		`query($s: ID!) { session(id: $s) { goals { metricsConnection(after: "nope") { totalCount } } } }`,
	} {
		if r := o.do(t, q, map[string]any{"s": o.sessionID}); r.code() != "BAD_USER_INPUT" {
			t.Fatalf("%s: %+v", q, r.Errors)
		}
	}
}

// TestNestedEdgeArgumentsBatch: the upstream calls of nestedQuery do not
// depend on the number of parents, and no edge loads outside its level.
func TestNestedEdgeArgumentsBatch(t *testing.T) {
	var counts []map[string]int64
	for i, n := range []int{2, 12} {
		o := nestedFixture(t, "nestedbatch"+strconv.Itoa(i), n)
		before := o.calls.Snapshot()
		var d any
		o.do(t, nestedQuery, map[string]any{"s": o.sessionID}).mustData(t, &d)
		calls := instrument.Diff(before, o.calls.Snapshot())
		wantAt(t, d, "session.goals.#", n)
		t.Logf("%d roots: upstream calls %v", n, calls)
		counts = append(counts, calls)
	}
	if !reflect.DeepEqual(counts[0], counts[1]) {
		t.Fatalf("upstream calls differ: 2 roots %v, 12 roots %v", counts[0], counts[1])
	}
	// One call per edge field and level: session(id) 1 (ListSessions); goals(roots) and
	// goalsConnection, children, all, childrenConnection (ListGoals 5);
	// metrics under children, under childrenConnection's nodes, metrics
	// and metricsConnection (ListMetrics 4); checkins of children's
	// metrics, of metrics, checkinsConnection (ListCheckIns 3); tasks and
	// tasksConnection (ListTasks 2); teams 1; members and
	// membersConnection (ListUsers 2).
	want := map[string]int64{"Authenticate": 1, "ListSessions": 1, "ListGoals": 5, "ListMetrics": 4, "ListCheckIns": 3,
		"ListTasks": 2, "ListTeams": 1, "ListUsers": 2}
	if !reflect.DeepEqual(counts[0], want) {
		t.Fatalf("upstream calls = %v, want %v", counts[0], want)
	}
}
