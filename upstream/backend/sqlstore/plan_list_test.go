package sqlstore

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/okrgate/okrgate/upstream/backend/sqlstore/internal/testdb"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/query"
)

// planFixture is a store on a real SQLite file holding one of everything the
// GraphQL edges load (a goal tree, key results, check-ins, tasks, tags,
// teams, badges), with the account's admin and a member.
type planFixture struct {
	s              *Store
	admin, member  context.Context
	session        upstream.Session
	root, child    upstream.Goal
	metric         upstream.Metric
	team           upstream.Team
	badge          upstream.Badge
	adminID, memID string
	tagID          string
}

func newPlanFixture(t *testing.T) *planFixture {
	t.Helper()
	ctx := context.Background()
	s, err := Open(ctx, testdb.DSN(t, "plan.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	b, err := s.Bootstrap(ctx, BootstrapInput{AccountName: "Plan", Email: "admin@plan.test"})
	must(err)
	ac, err := s.Authenticate(ctx, b.Token)
	must(err)
	f := &planFixture{s: s, admin: upstream.NewContext(ctx, ac), adminID: ac.UserID}
	u, err := s.CreateUser(f.admin, UserInput{Email: "member@plan.test", FirstName: "Mem", Role: upstream.RoleMember})
	must(err)
	tok, err := s.CreateUserToken(f.admin, u.ID)
	must(err)
	mc, err := s.Authenticate(ctx, tok.Token)
	must(err)
	f.member, f.memID = upstream.NewContext(ctx, mc), u.ID
	f.team, err = s.CreateTeam(f.admin, TeamInput{Name: "Ops", Members: []string{u.ID}})
	must(err)
	f.session, err = s.CreateSession(f.admin, upstream.SessionInput{Title: "Q1", Start: "2026-01-01", End: "2026-03-31"})
	must(err)
	f.root, err = s.CreateGoal(f.admin, upstream.GoalInput{Name: "Root", SessionID: f.session.ID, OwnerIDs: []string{u.ID, f.team.ID},
		Tags: []upstream.TagInput{{Title: "growth"}}})
	must(err)
	f.child, err = s.CreateGoal(f.admin, upstream.GoalInput{Name: "Child", SessionID: f.session.ID, ParentID: f.root.ID, Private: true})
	must(err)
	// The member sees its grandchild through the private child: a stub.
	_, err = s.CreateGoal(f.admin, upstream.GoalInput{Name: "Grandchild", SessionID: f.session.ID, ParentID: f.child.ID, OwnerID: u.ID})
	must(err)
	target := 10.0
	f.metric, err = s.CreateMetric(f.admin, upstream.MetricInput{Name: "KR", GoalID: f.root.ID, Target: &target, OwnerID: u.ID})
	must(err)
	_, err = s.CreateMetric(f.admin, upstream.MetricInput{Name: "KR2", GoalID: f.root.ID, Target: &target})
	must(err)
	for _, actual := range []float64{3, 4} {
		_, err = s.CheckIn(f.admin, f.metric.ID, upstream.CheckInInput{Actual: &actual})
		must(err)
	}
	_, err = s.CreateSession(f.admin, upstream.SessionInput{Title: "Q2", Start: "2026-04-01", End: "2026-06-30"})
	must(err)
	_, err = s.CreateTeam(f.admin, TeamInput{Name: "Sales"})
	must(err)
	_, err = s.CreateBadge(f.admin, upstream.BadgeInput{Name: "Moon"})
	must(err)
	_, err = s.CreateTask(f.admin, upstream.TaskInput{Name: "T1", ParentID: f.root.ID, OwnerID: u.ID})
	must(err)
	_, err = s.CreateTask(f.admin, upstream.TaskInput{Name: "T2", ParentID: f.metric.ID})
	must(err)
	f.badge, err = s.CreateBadge(f.admin, upstream.BadgeInput{Name: "Star"})
	must(err)
	_, err = s.AssignBadge(f.admin, upstream.AssignBadgeInput{BadgeID: f.badge.ID, AssigneeIDs: []string{u.ID}})
	must(err)
	tags, err := s.ListTags(f.admin, upstream.TagQuery{})
	must(err)
	if len(tags.Items) > 0 {
		f.tagID = tags.Items[0].ID
	}
	return f
}

// planStep is one recorded statement with its query plan.
type planStep struct {
	stmt string
	plan []string
}

// record runs fn and returns every statement the read pool ran meanwhile,
// each with its EXPLAIN QUERY PLAN.
func (f *planFixture) record(t *testing.T, fn func() error) []planStep {
	t.Helper()
	var mu sync.Mutex
	type call struct {
		stmt string
		args []any
	}
	var calls []call
	f.s.trace = func(stmt string, args []any) {
		mu.Lock()
		defer mu.Unlock()
		calls = append(calls, call{stmt, append([]any(nil), args...)})
	}
	err := fn()
	f.s.trace = nil
	if err != nil {
		t.Fatal(err)
	}
	out := make([]planStep, 0, len(calls))
	for _, c := range calls {
		out = append(out, planStep{stmt: c.stmt, plan: queryPlan(t, f.s, c.stmt, c.args...)})
	}
	return out
}

func in(field string, vals ...string) *query.Expr {
	as := make([]any, len(vals))
	for i, v := range vals {
		as[i] = v
	}
	return query.In(field, as...)
}

func byID() []query.SortKey { return []query.SortKey{{Field: "id"}} }

// listShape is one list call the GraphQL edges (or REST's default page)
// make: key names the column its $in filter looks up ("" for a default
// page, which must walk the (account_id, id) index without a sort).
type listShape struct {
	name  string
	table string // the SQL table listed
	key   string // the key column the filter looks up, "" for a default page
	call  func(ctx context.Context) error
}

func (f *planFixture) shapes() []listShape {
	// A page of one: the fixture holds two or more of each, so the page is
	// read in order and stops after the limit (a listing whose page holds
	// every match reads them unordered and sorts them in Go, see
	// table.listFrom; the keyed lookups below do).
	page := upstream.ListQuery{Limit: 1}
	keyed := func(e *query.Expr) upstream.ListQuery {
		return upstream.ListQuery{Filter: e, Sort: byID(), Limit: upstream.MaxLimit}
	}
	g2 := []string{f.root.ID, f.child.ID}
	s := f.s
	return []listShape{
		{"goals page", "goals", "", func(ctx context.Context) error { _, err := s.ListGoals(ctx, page); return err }},
		{"goals by id", "goals", "id", func(ctx context.Context) error { _, err := s.ListGoals(ctx, keyed(in("id", g2...))); return err }},
		{"goals by parentId", "goals", "parent_id", func(ctx context.Context) error {
			_, err := s.ListGoals(ctx, keyed(in("parentId", g2...)))
			return err
		}},
		{"goals by sessionId", "goals", "session_id", func(ctx context.Context) error {
			_, err := s.ListGoals(ctx, keyed(in("sessionId", f.session.ID, "x")))
			return err
		}},
		{"root goals by sessionId", "goals", "session_id", func(ctx context.Context) error {
			_, err := s.ListGoals(ctx, keyed(query.And(in("sessionId", f.session.ID, "x"), query.Eq("parentId", ""))))
			return err
		}},
		{"goals by ownerIds", "goals", "owner", func(ctx context.Context) error {
			_, err := s.ListGoals(ctx, keyed(in("ownerIds", f.memID, f.team.ID)))
			return err
		}},
		{"goal", "goals", "id", func(ctx context.Context) error { _, err := s.GetGoal(ctx, f.root.ID); return err }},
		{"metrics page", "metrics", "", func(ctx context.Context) error { _, err := s.ListMetrics(ctx, page); return err }},
		{"metrics by goalId", "metrics", "goal_id", func(ctx context.Context) error {
			_, err := s.ListMetrics(ctx, keyed(in("goalId", g2...)))
			return err
		}},
		{"metrics by id", "metrics", "id", func(ctx context.Context) error {
			_, err := s.ListMetrics(ctx, keyed(in("id", f.metric.ID, "x")))
			return err
		}},
		{"checkins page", "checkins", "", func(ctx context.Context) error { _, err := s.ListCheckIns(ctx, page); return err }},
		{"checkins by metricId", "checkins", "metric_id", func(ctx context.Context) error {
			_, err := s.ListCheckIns(ctx, keyed(in("metricId", f.metric.ID, "x")))
			return err
		}},
		{"tasks page", "tasks", "", func(ctx context.Context) error { _, err := s.ListTasks(ctx, page); return err }},
		{"tasks by parentId", "tasks", "parent_id", func(ctx context.Context) error {
			_, err := s.ListTasks(ctx, keyed(in("parentId", f.root.ID, f.metric.ID)))
			return err
		}},
		{"sessions page", "sessions", "", func(ctx context.Context) error { _, err := s.ListSessions(ctx, page, true); return err }},
		{"sessions by id", "sessions", "id", func(ctx context.Context) error {
			_, err := s.ListSessions(ctx, keyed(in("id", f.session.ID, "x")), true)
			return err
		}},
		{"sessions by parentId", "sessions", "parent_id", func(ctx context.Context) error {
			_, err := s.ListSessions(ctx, keyed(in("parentId", f.session.ID, "x")), true)
			return err
		}},
		{"users page", "users", "", func(ctx context.Context) error { _, err := s.ListUsers(ctx, page); return err }},
		{"users by id", "users", "id", func(ctx context.Context) error {
			_, err := s.ListUsers(ctx, keyed(in("id", f.memID, f.adminID)))
			return err
		}},
		{"teams page", "teams", "", func(ctx context.Context) error { _, err := s.ListTeams(ctx, page); return err }},
		{"teams by id", "teams", "id", func(ctx context.Context) error {
			_, err := s.ListTeams(ctx, keyed(in("id", f.team.ID, "x")))
			return err
		}},
		{"teams by parentId", "teams", "parent_id", func(ctx context.Context) error {
			_, err := s.ListTeams(ctx, keyed(in("parentId", f.team.ID, "x")))
			return err
		}},
		{"employees by id", "users", "id", func(ctx context.Context) error {
			_, err := s.ListEmployees(ctx, keyed(in("id", f.memID, f.adminID)))
			return err
		}},
		{"taggings by tagId", "item_tags", "tag_id", func(ctx context.Context) error {
			_, err := s.ListTaggings(ctx, keyed(query.And(in("tagId", f.tagID, "x"), query.Eq("itemType", "goal"))))
			return err
		}},
		{"badges by id", "badges", "id", func(ctx context.Context) error {
			_, err := s.ListBadges(ctx, keyed(in("id", f.badge.ID, "x")))
			return err
		}},
		{"badge holders by badgeId", "badge_assignments", "badge_id", func(ctx context.Context) error {
			_, err := s.ListAssignedBadges(ctx, keyed(query.And(in("badgeId", f.badge.ID, "x"), query.Eq("status", upstream.BadgeApproved))))
			return err
		}},
		{"badges page", "badges", "", func(ctx context.Context) error { _, err := s.ListBadges(ctx, page); return err }},
	}
}

// accountWide are the statements that read a whole account by design, each
// once per request at most (the caller's visibility scope and grants are
// memoised, TestVisibilityOncePerRequest): the grants of the account, all of
// its sessions (an account has few), the goals and key results hidden from
// the caller (walking the account's restricted ones), the goals hidden from
// the caller that lie above a visible one, and the teams a page of employees
// manages (an account has few teams).
var accountWide = []string{
	"WITH u(doc) AS (SELECT doc FROM users WHERE id = ? AND account_id = ?)", // the subject: grants
	"SELECT doc FROM sessions WHERE account_id = ? AND (TRUE)",
	"WITH RECURSIVE s(id) AS",
	"WITH RECURSIVE inv(id) AS",
	"SELECT doc FROM teams WHERE account_id = ? AND (json_extract(doc, '$.manager') IN",
}

var (
	planScan   = regexp.MustCompile(`^SCAN (\w+)$`)
	planWalk   = regexp.MustCompile(`^SEARCH (\w+) USING (?:COVERING )?INDEX \w+ \(account_id=\?\)$`)
	cteName    = regexp.MustCompile(`(\w+)\(id\) AS \(`)
	pageOfList = regexp.MustCompile(`ORDER BY id ASC LIMIT \? OFFSET \?$`)
)

// TestListPlans runs every list call the GraphQL edges and REST's default
// pages make, as an admin and as a member (whose listings go through the
// visibility conditions), and checks the query plan of every statement
// they run (EXPLAIN QUERY PLAN on a real SQLite file): no statement scans a
// whole table; a keyed lookup never walks the whole account (it searches
// the index of its key); a default page walks (account_id, id) and stops
// after the page, without a temporary sort.
func TestListPlans(t *testing.T) {
	if testdb.Postgres() {
		t.Skip("SQLite's query plans")
	}
	f := newPlanFixture(t)
	for _, who := range []struct {
		name string
		ctx  context.Context
	}{{"admin", f.admin}, {"member", f.member}} {
		for _, sh := range f.shapes() {
			ctx := upstream.WithMemo(who.ctx)
			steps := f.record(t, func() error { return sh.call(ctx) })
			sawPage := false
			for _, st := range steps {
				stmt := oneLine(st.stmt)
				ctes := map[string]bool{}
				for _, m := range cteName.FindAllStringSubmatch(stmt, -1) {
					ctes[m[1]] = true
				}
				wide := slices.ContainsFunc(accountWide, func(p string) bool { return strings.HasPrefix(stmt, p) })
				for _, line := range st.plan {
					if m := planScan.FindStringSubmatch(line); m != nil && !ctes[m[1]] {
						t.Errorf("%s, %s: %q scans a whole table: %s\n  in %.300s", who.name, sh.name, m[1], line, stmt)
					}
					if m := planWalk.FindStringSubmatch(line); m != nil && sh.key != "" && !wide && sh.key != "owner" {
						t.Errorf("%s, %s: walks the whole account: %s\n  in %.300s", who.name, sh.name, line, stmt)
					}
				}
				if sh.key == "" && pageOfList.MatchString(stmt) && strings.Contains(stmt, "FROM "+sh.table) {
					sawPage = true
					p := strings.Join(st.plan, "; ")
					if strings.Contains(p, "TEMP B-TREE FOR ORDER BY") || !strings.Contains(p, sh.table+"_account_id") {
						t.Errorf("%s, %s: page plan %q; want a walk of %s_account_id without a temporary sort", who.name, sh.name, p, sh.table)
					}
				}
			}
			if sh.key == "" && !sawPage {
				t.Errorf("%s, %s: no page statement of %s ran", who.name, sh.name, sh.table)
			}
		}
	}
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// TestPlannerStatsCoverEveryIndex: every index of the schema, the later
// migrations' included, has planner statistics, modelled (stats.go) unless
// ANALYZE wrote them; a table's row count in them is plannerRows.
func TestPlannerStatsCoverEveryIndex(t *testing.T) {
	if testdb.Postgres() {
		t.Skip("SQLite's planner statistics")
	}
	f := newPlanFixture(t)
	var missing []string
	rows, err := f.s.r.Query(`SELECT il.name FROM sqlite_schema t, pragma_index_list(t.name) il
		WHERE t.type = 'table' AND t.name NOT LIKE 'sqlite_%' AND t.name NOT LIKE 'goose_%'
		AND NOT EXISTS (SELECT 1 FROM sqlite_stat1 s WHERE s.idx = il.name)`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		missing = append(missing, n)
	}
	if len(missing) > 0 {
		t.Fatalf("indexes without planner statistics: %v", missing)
	}
	var stat string
	if err := f.s.r.QueryRow("SELECT stat FROM sqlite_stat1 WHERE idx = 'metrics_account_goal_id'").Scan(&stat); err != nil {
		t.Fatal(err)
	}
	if stat != "1000000 100000 10 1" {
		t.Fatalf("metrics_account_goal_id: stat %q, want 1000000 100000 10 1", stat)
	}
}
