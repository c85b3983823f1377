package sqlstore_test

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/okrgate/okrgate/upstream/backend/sqlstore/sqlstoretest"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
	"github.com/okrgate/okrgate/upstream/query"
)

// env is a store on a real SQLite file with one bootstrapped account.
type env struct {
	t     *testing.T
	path  string
	store *sqlstore.Store
	ctx   context.Context // acts as the account's admin
	boot  sqlstore.BootstrapResult
}

// newEnv opens a store for t with one account. Every statement the store
// runs for the test is checked to constrain the account of the account
// tables it names (sqlstoretest.CheckAccountScope; docs/decisions/citus.md,
// "Every statement names its account").
func newEnv(t *testing.T) *env {
	t.Helper()
	path := sqlstoretest.DSN(t)
	var scope sqlstoretest.ScopeChecker
	t.Cleanup(func() { scope.Check(t, 0) })
	st, err := sqlstore.Open(context.Background(), path, sqlstore.WithStatementObserver(scope.Observe))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	e := &env{t: t, path: path, store: st}
	e.boot, e.ctx = e.account("Acme", "admin@acme.test")
	return e
}

// account bootstraps another account and returns a context acting for its admin.
func (e *env) account(name, email string) (sqlstore.BootstrapResult, context.Context) {
	e.t.Helper()
	b, err := e.store.Bootstrap(context.Background(), sqlstore.BootstrapInput{AccountName: name, Email: email})
	if err != nil {
		e.t.Fatal(err)
	}
	c, err := e.store.Authenticate(context.Background(), b.Token)
	if err != nil {
		e.t.Fatal(err)
	}
	return b, upstream.NewContext(context.Background(), c)
}

func (e *env) session(in upstream.SessionInput) upstream.Session {
	e.t.Helper()
	if in.Title == "" {
		in.Title = "Q1"
	}
	if in.Start == "" {
		in.Start, in.End = "2026-01-01", "2026-03-31"
	}
	s, err := e.store.CreateSession(e.ctx, in)
	if err != nil {
		e.t.Fatal(err)
	}
	return s
}

func (e *env) goal(in upstream.GoalInput) upstream.Goal {
	e.t.Helper()
	g, err := e.store.CreateGoal(e.ctx, in)
	if err != nil {
		e.t.Fatal(err)
	}
	return g
}

func (e *env) metric(in upstream.MetricInput) upstream.Metric {
	e.t.Helper()
	m, err := e.store.CreateMetric(e.ctx, in)
	if err != nil {
		e.t.Fatal(err)
	}
	return m
}

func (e *env) get(id string) upstream.Goal {
	e.t.Helper()
	g, err := e.store.GetGoal(e.ctx, id)
	if err != nil {
		e.t.Fatal(err)
	}
	return g
}

func f(x float64) *float64 { return &x }
func str(s string) *string { return &s }

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func wantCode(t *testing.T, err error, code upstream.Code) {
	t.Helper()
	if got := upstream.ErrorCode(err); got != code {
		t.Fatalf("error code = %q (%v), want %q", got, err, code)
	}
}

func TestCheckInRecomputesAncestors(t *testing.T) {
	e := newEnv(t)
	s := e.session(upstream.SessionInput{})
	root := e.goal(upstream.GoalInput{Name: "Root", SessionID: s.ID, AttainmentTypeString: upstream.AverageChildren})
	mid := e.goal(upstream.GoalInput{Name: "Mid", SessionID: s.ID, ParentID: root.ID, AttainmentTypeString: upstream.AverageKRAndChildren})
	leaf := e.goal(upstream.GoalInput{Name: "Leaf", SessionID: s.ID, ParentID: mid.ID})
	kr := e.metric(upstream.MetricInput{Name: "Revenue", GoalID: leaf.ID, InitialValue: 0, Target: f(100), TargetOperator: "at_least"})
	other := e.metric(upstream.MetricInput{Name: "Done", GoalID: mid.ID, ManualType: "boolean"})

	ci, err := e.store.CheckIn(e.ctx, kr.ID, upstream.CheckInInput{Actual: f(50), Comment: "halfway"})
	if err != nil {
		t.Fatal(err)
	}
	if !near(ci.Attainment, 0.5) || ci.PreviousActual != 0 || ci.Actual != 50 || ci.GoalID != leaf.ID {
		t.Fatalf("check-in = %+v", ci)
	}
	m, err := e.store.GetMetric(e.ctx, kr.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !near(m.Attainment, 0.5) || m.Actual != 50 || m.LastCheckInDate == "" {
		t.Fatalf("metric attainment %v actual %v", m.Attainment, m.Actual)
	}
	l, md, r := e.get(leaf.ID), e.get(mid.ID), e.get(root.ID)
	if !near(l.Attainment, 0.5) || !near(l.FullAggregatedAttainment, 0.5) {
		t.Errorf("leaf = %v / %v", l.Attainment, l.FullAggregatedAttainment)
	}
	// mid: mean(KR 0 (boolean false), child leaf 0.5) = 0.25
	if !near(md.Attainment, 0.25) || !near(md.ChildrenAggregatedAttainment, 0.5) || !near(md.AggregatedAttainment, 0.5) {
		t.Errorf("mid = %+v", md)
	}
	// root: average of children = mid = 0.25; descendants mid 0.25, leaf 0.5
	if !near(r.Attainment, 0.25) || !near(r.AggregatedAttainment, 0.375) || !near(r.FullAggregatedAttainment, (0.25+0.25+0.5)/3) {
		t.Errorf("root = att %v agg %v full %v", r.Attainment, r.AggregatedAttainment, r.FullAggregatedAttainment)
	}
	if r.ChildrenCount != 1 || r.FullSubTreeCount != 2 || r.SubTreeCount != 2 || md.MetricsCount != 1 {
		t.Errorf("counts: root children %d full %d sub %d, mid metrics %d", r.ChildrenCount, r.FullSubTreeCount, r.SubTreeCount, md.MetricsCount)
	}
	if len(md.Metrics) != 1 || md.Metrics[0].ID != other.ID {
		t.Errorf("GetGoal embeds metrics: %+v", md.Metrics)
	}

	// The snapshot of the check-in is the key result as it was then.
	if _, err := e.store.CheckIn(e.ctx, kr.ID, upstream.CheckInInput{Actual: f(80)}); err != nil {
		t.Fatal(err)
	}
	snap, err := e.store.GetCheckInSnapshot(e.ctx, ci.ID)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Actual != 50 || !near(snap.Attainment, 0.5) {
		t.Errorf("snapshot actual %v attainment %v", snap.Actual, snap.Attainment)
	}
	hist, err := e.store.ListCheckIns(e.ctx, upstream.ListQuery{Filter: query.Eq("metricId", kr.ID)})
	if err != nil {
		t.Fatal(err)
	}
	if hist.TotalCount != 2 {
		t.Errorf("history has %d check-ins, want 2", hist.TotalCount)
	}
	if r := e.get(root.ID); !near(r.Attainment, (0+0.8)/2) {
		t.Errorf("root after second check-in = %v", r.Attainment)
	}
}

func TestDataSurvivesRestart(t *testing.T) {
	e := newEnv(t)
	s := e.session(upstream.SessionInput{})
	g := e.goal(upstream.GoalInput{Name: "Persist me", SessionID: s.ID})
	if err := e.store.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := sqlstore.Open(context.Background(), e.path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	c, err := st.Authenticate(context.Background(), e.boot.Token)
	if err != nil {
		t.Fatal(err)
	}
	got, err := st.GetGoal(upstream.NewContext(context.Background(), c), g.ID)
	if err != nil || got.Name != "Persist me" {
		t.Fatalf("after reopen: %+v, %v", got, err)
	}
}

func TestAccountIsolation(t *testing.T) {
	e := newEnv(t)
	s := e.session(upstream.SessionInput{})
	g := e.goal(upstream.GoalInput{Name: "Secret plan", SessionID: s.ID})
	_, other := e.account("Other", "boss@other.test")

	_, err := e.store.GetGoal(other, g.ID)
	wantCode(t, err, upstream.CodeNotFound)
	page, err := e.store.ListGoals(other, upstream.ListQuery{Filter: query.Eq("id", g.ID)})
	if err != nil || page.TotalCount != 0 {
		t.Fatalf("other account lists %d goals (%v)", page.TotalCount, err)
	}
	_, err = e.store.UpdateGoal(other, g.ID, upstream.GoalPatch{Name: str("mine")})
	wantCode(t, err, upstream.CodeNotFound)
	wantCode(t, e.store.DeleteGoal(other, g.ID), upstream.CodeNotFound)
	// Another account's session or parent cannot be named in a write either.
	os, err := e.store.CreateSession(other, upstream.SessionInput{Title: "X", Start: "2026-01-01", End: "2026-02-01"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.store.CreateGoal(other, upstream.GoalInput{Name: "x", SessionID: os.ID, ParentID: g.ID})
	wantCode(t, err, upstream.CodeInvalid)
	_, err = e.store.CreateGoal(e.ctx, upstream.GoalInput{Name: "x", SessionID: os.ID})
	wantCode(t, err, upstream.CodeInvalid)
	if e.get(g.ID).Name != "Secret plan" {
		t.Fatal("goal changed")
	}
}

func TestSessionStatesAndClosedGoals(t *testing.T) {
	e := newEnv(t)
	s := e.session(upstream.SessionInput{})
	g := e.goal(upstream.GoalInput{Name: "G", SessionID: s.ID})
	kr := e.metric(upstream.MetricInput{Name: "KR", GoalID: g.ID, Target: f(10)})

	if _, err := e.store.UpdateSession(e.ctx, s.ID, upstream.SessionPatch{Status: str("locked")}); err != nil {
		t.Fatal(err)
	}
	_, err := e.store.CreateGoal(e.ctx, upstream.GoalInput{Name: "late", SessionID: s.ID})
	wantCode(t, err, upstream.CodeSessionLocked)
	_, err = e.store.UpdateMetric(e.ctx, kr.ID, upstream.MetricPatch{Target: f(20)})
	wantCode(t, err, upstream.CodeSessionLocked)
	if _, err := e.store.CheckIn(e.ctx, kr.ID, upstream.CheckInInput{Actual: f(5)}); err != nil {
		t.Fatalf("check-in in a locked session: %v", err)
	}
	if _, err := e.store.CreateTask(e.ctx, upstream.TaskInput{Name: "t", ParentID: g.ID}); err != nil {
		t.Fatalf("task in a locked session: %v", err)
	}

	if _, err := e.store.UpdateSession(e.ctx, s.ID, upstream.SessionPatch{Status: str("closed")}); err != nil {
		t.Fatal(err)
	}
	_, err = e.store.CheckIn(e.ctx, kr.ID, upstream.CheckInInput{Actual: f(6)})
	wantCode(t, err, upstream.CodeSessionClosed)
	_, err = e.store.CreateTask(e.ctx, upstream.TaskInput{Name: "t2", ParentID: g.ID})
	wantCode(t, err, upstream.CodeSessionClosed)
	_, err = e.store.UpdateSession(e.ctx, s.ID, upstream.SessionPatch{Title: str("renamed")})
	wantCode(t, err, upstream.CodeSessionClosed)

	if _, err := e.store.UpdateSession(e.ctx, s.ID, upstream.SessionPatch{Status: str("open")}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.UpdateGoal(e.ctx, g.ID, upstream.GoalPatch{ClosedStatus: &upstream.ClosedStatus{Status: "abandoned", Reason: "pivot"}}); err != nil {
		t.Fatal(err)
	}
	_, err = e.store.CheckIn(e.ctx, kr.ID, upstream.CheckInInput{Actual: f(7)})
	wantCode(t, err, upstream.CodeGoalAbandoned)
	if m, _ := e.store.GetMetric(e.ctx, kr.ID); m.GoalClosedStatus.Status != "abandoned" || m.Actual != 5 {
		t.Fatalf("metric = %+v", m)
	}
}

func TestSessionLimits(t *testing.T) {
	e := newEnv(t)
	s := e.session(upstream.SessionInput{Settings: &upstream.SessionSettings{GoalsPerOwnerLimit: 1, MetricsPerGoalLimit: 1}})
	g := e.goal(upstream.GoalInput{Name: "one", SessionID: s.ID})
	_, err := e.store.CreateGoal(e.ctx, upstream.GoalInput{Name: "two", SessionID: s.ID})
	wantCode(t, err, upstream.CodeLimitExceeded)
	e.metric(upstream.MetricInput{Name: "kr1", GoalID: g.ID, Target: f(1)})
	_, err = e.store.CreateMetric(e.ctx, upstream.MetricInput{Name: "kr2", GoalID: g.ID, Target: f(1)})
	wantCode(t, err, upstream.CodeLimitExceeded)
}

func TestDeleteGoalCascades(t *testing.T) {
	e := newEnv(t)
	s := e.session(upstream.SessionInput{})
	root := e.goal(upstream.GoalInput{Name: "root", SessionID: s.ID, AttainmentTypeString: upstream.AverageChildren})
	g := e.goal(upstream.GoalInput{Name: "doomed", SessionID: s.ID, ParentID: root.ID})
	child := e.goal(upstream.GoalInput{Name: "child", SessionID: s.ID, ParentID: g.ID})
	kr := e.metric(upstream.MetricInput{Name: "kr", GoalID: g.ID, Target: f(10)})
	if _, err := e.store.CheckIn(e.ctx, kr.ID, upstream.CheckInInput{Actual: f(10)}); err != nil {
		t.Fatal(err)
	}
	task, err := e.store.CreateTask(e.ctx, upstream.TaskInput{Name: "t", ParentID: kr.ID})
	if err != nil || task.ParentType != "metric" || task.SessionID != s.ID {
		t.Fatalf("task %+v, %v", task, err)
	}
	if r := e.get(root.ID); !near(r.Attainment, 1) {
		t.Fatalf("root before delete = %v", r.Attainment)
	}
	if err := e.store.DeleteGoal(e.ctx, g.ID); err != nil {
		t.Fatal(err)
	}
	_, err = e.store.GetMetric(e.ctx, kr.ID)
	wantCode(t, err, upstream.CodeNotFound)
	_, err = e.store.GetTask(e.ctx, task.ID)
	wantCode(t, err, upstream.CodeNotFound)
	if c := e.get(child.ID); c.ParentID != "" {
		t.Errorf("child parent = %q, want root", c.ParentID)
	}
	if r := e.get(root.ID); r.Attainment != 0 || r.ChildrenCount != 0 {
		t.Errorf("root after delete = att %v children %d", r.Attainment, r.ChildrenCount)
	}
}

func TestFailedWriteLeavesNothing(t *testing.T) {
	e := newEnv(t)
	s := e.session(upstream.SessionInput{})
	// The second tag fails inside the transaction, after the goal row and the first tag were written.
	_, err := e.store.CreateGoal(e.ctx, upstream.GoalInput{Name: "half", SessionID: s.ID,
		Tags: []upstream.TagInput{{Title: "fine"}, {Title: strings.Repeat("x", 300)}}})
	wantCode(t, err, upstream.CodeInvalid)
	page, err := e.store.ListGoals(e.ctx, upstream.ListQuery{})
	if err != nil || page.TotalCount != 0 {
		t.Fatalf("goals after failed create: %d (%v)", page.TotalCount, err)
	}
	g := e.goal(upstream.GoalInput{Name: "ok", SessionID: s.ID, Tags: []upstream.TagInput{{Title: " Fine "}}})
	if len(g.Tags) != 1 || g.Tags[0].Name != "fine" || g.Tags[0].Title != "Fine" {
		t.Fatalf("tags = %+v (the failed create must not have left tag 'fine' titled differently)", g.Tags)
	}
}

func TestCycleRefused(t *testing.T) {
	e := newEnv(t)
	s := e.session(upstream.SessionInput{})
	a := e.goal(upstream.GoalInput{Name: "a", SessionID: s.ID})
	b := e.goal(upstream.GoalInput{Name: "b", SessionID: s.ID, ParentID: a.ID})
	_, err := e.store.UpdateGoal(e.ctx, a.ID, upstream.GoalPatch{ParentID: &b.ID})
	wantCode(t, err, upstream.CodeInvalid)
	_, err = e.store.UpdateGoal(e.ctx, a.ID, upstream.GoalPatch{ParentID: &a.ID})
	wantCode(t, err, upstream.CodeInvalid)
}

func TestTagIdentity(t *testing.T) {
	e := newEnv(t)
	s := e.session(upstream.SessionInput{})
	g := e.goal(upstream.GoalInput{Name: "g", SessionID: s.ID})
	t1, added, err := e.store.AddGoalTag(e.ctx, g.ID, "  Growth ")
	if err != nil || !added {
		t.Fatalf("first add: %v %v", added, err)
	}
	t2, added, err := e.store.AddGoalTag(e.ctx, g.ID, "growth")
	if err != nil || added || t2.ID != t1.ID {
		t.Fatalf("second add: added=%v id %s vs %s, %v", added, t2.ID, t1.ID, err)
	}
	if got := e.get(g.ID).Tags; len(got) != 1 {
		t.Fatalf("goal has %d tags", len(got))
	}
}

func TestListFilterSortProjection(t *testing.T) {
	e := newEnv(t)
	s := e.session(upstream.SessionInput{})
	for _, n := range []string{"Beta", "alpha", "Gamma"} {
		g := e.goal(upstream.GoalInput{Name: n, SessionID: s.ID})
		e.metric(upstream.MetricInput{Name: n + " kr", GoalID: g.ID, Target: f(1)})
	}
	filter, err := query.ParseFilter(upstream.GoalFields, `{name: {$regex: "^(beta|gamma)$", $options: "i"}}`)
	if err != nil {
		t.Fatal(err)
	}
	sort, _ := query.ParseSort(upstream.GoalFields, "-name")
	fields, _ := query.ParseFields(upstream.GoalFields, "name,metrics{name}")
	page, err := e.store.ListGoals(e.ctx, upstream.ListQuery{Filter: filter, Sort: sort, Fields: fields, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if page.TotalCount != 2 || len(page.Items) != 1 || page.Items[0].Name != "Gamma" {
		t.Fatalf("page = %d items, total %d, first %q", len(page.Items), page.TotalCount, page.Items[0].Name)
	}
	if len(page.Items[0].Metrics) != 1 || page.Items[0].Metrics[0].Name != "Gamma kr" {
		t.Fatalf("embedded metrics = %+v", page.Items[0].Metrics)
	}
	plain, err := e.store.ListGoals(e.ctx, upstream.ListQuery{})
	if err != nil || plain.Items[0].Metrics != nil {
		t.Fatalf("metrics embedded without being asked: %v", err)
	}
}

func TestAuthenticate(t *testing.T) {
	e := newEnv(t)
	for _, tok := range []string{"", "nope", e.boot.Token + "x", strings.Repeat("a", 1000)} {
		_, err := e.store.Authenticate(context.Background(), tok)
		wantCode(t, err, upstream.CodeUnauthenticated)
	}
	c, err := e.store.Authenticate(context.Background(), e.boot.Token)
	if err != nil || c.AccountID != e.boot.AccountID || c.UserID != e.boot.UserID {
		t.Fatalf("caller %+v, %v", c, err)
	}
}

func TestSuspendedAccount(t *testing.T) {
	e := newEnv(t)
	if err := e.store.SetAccountActive(context.Background(), e.boot.AccountID, false); err != nil {
		t.Fatal(err)
	}
	_, err := e.store.Authenticate(context.Background(), e.boot.Token)
	wantCode(t, err, upstream.CodePaymentRequired)
	if err := e.store.SetAccountActive(context.Background(), e.boot.AccountID, true); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.Authenticate(context.Background(), e.boot.Token); err != nil {
		t.Fatal(err)
	}
	wantCode(t, e.store.SetAccountActive(context.Background(), "000000000000000000000000", false), upstream.CodeNotFound)
}

func TestEmployeesAndTeamsShowApprovedBadges(t *testing.T) {
	e := newEnv(t)
	u, err := e.store.CreateUser(e.ctx, upstream.UserInput{Email: "ann@acme.test", FirstName: "Ann"})
	if err != nil {
		t.Fatal(err)
	}
	team, err := e.store.CreateTeam(e.ctx, upstream.TeamInput{Name: "Core", Members: []string{u.ID}})
	if err != nil {
		t.Fatal(err)
	}
	star, err := e.store.CreateBadge(e.ctx, upstream.BadgeInput{Name: "Star"})
	if err != nil {
		t.Fatal(err)
	}
	late, err := e.store.CreateBadge(e.ctx, upstream.BadgeInput{Name: "Late"})
	if err != nil {
		t.Fatal(err)
	}
	approved, err := e.store.AssignBadge(e.ctx, upstream.AssignBadgeInput{BadgeID: star.ID, AssigneeIDs: []string{u.ID, team.ID}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.DecideBadge(e.ctx, approved.ID, true); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.AssignBadge(e.ctx, upstream.AssignBadgeInput{BadgeID: late.ID, AssigneeIDs: []string{u.ID}}); err != nil {
		t.Fatal(err) // stays pending: not shown
	}
	emp, err := e.store.GetEmployee(e.ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(emp.Badges) != 1 || emp.Badges[0].Name != "Star" {
		t.Errorf("employee badges = %+v, want only the approved Star", emp.Badges)
	}
	tm, err := e.store.GetTeam(e.ctx, team.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(tm.Badges) != 1 || tm.Badges[0].ID != star.ID {
		t.Errorf("team badges = %+v", tm.Badges)
	}
	page, err := e.store.ListTeams(e.ctx, upstream.ListQuery{})
	if err != nil || len(page.Items) != 1 || len(page.Items[0].Badges) != 1 {
		t.Errorf("listed team badges = %+v (%v)", page.Items, err)
	}
}

func TestSessionListingHonoursPerSessionDeny(t *testing.T) {
	e := newEnv(t)
	open := e.session(upstream.SessionInput{Title: "Open to all"})
	secret := e.session(upstream.SessionInput{Title: "Board only"})
	m, err := e.store.CreateUser(e.ctx, upstream.UserInput{Email: "m@acme.test", Role: "member"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.SetItemAccess(e.ctx, "session", secret.ID, upstream.Access{Inherits: false, Permissions: []upstream.PermissionEntry{
		{PrincipalID: m.ID, PrincipalKind: "user", Deny: map[string]int{string(upstream.SessionsRead): 1}}}}); err != nil {
		t.Fatal(err)
	}
	member := upstream.NewContext(context.Background(), upstream.Caller{AccountID: e.boot.AccountID, UserID: m.ID})
	page, err := e.store.ListSessions(member, upstream.ListQuery{}, true)
	if err != nil {
		t.Fatal(err)
	}
	if page.TotalCount != 1 || len(page.Items) != 1 || page.Items[0].ID != open.ID {
		t.Fatalf("member lists %d sessions (total %d), want only %q", len(page.Items), page.TotalCount, open.Title)
	}
	if _, err := e.store.GetSession(member, secret.ID); err == nil {
		t.Fatal("member read the denied session by id")
	}
	all, err := e.store.ListSessions(e.ctx, upstream.ListQuery{}, true)
	if err != nil || all.TotalCount != 2 {
		t.Fatalf("admin lists %d sessions (%v)", all.TotalCount, err)
	}
}
