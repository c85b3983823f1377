package sqlstore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore/internal/testdb"
	"github.com/okrgate/okrgate/upstream/query"
)

// TestVisibilitySQLAgreesWithRule: the visibility SQL of the listings
// (scope.go) and the listing rule in package upstream (Visibility) agree.
// Each seed builds an account on a real SQLite file — users holding
// built-in roles, an account role held directly and through a team,
// grants, sessions and goals with random access lists, private goals and
// key results, goal trees across sessions, tasks and check-ins — and,
// for every non-admin user, the goals (with their obfuscated stubs), key
// results, tasks (with hidden parent names) and check-ins its listings
// show must be exactly what upstream.Visibility says, applied to the
// account's rows as an admin reads them.
func TestVisibilitySQLAgreesWithRule(t *testing.T) {
	var total visStats
	for seed := uint64(1); seed <= 6; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			w := newVisWorld(t, seed)
			for _, u := range w.users {
				total.add(w.compare(t, u))
			}
		})
	}
	// The cases are not vacuous: some listings hide goals, show stubs,
	// hide key results and parents' names, and some are refused.
	if total.hiddenGoals == 0 || total.stubs == 0 || total.hiddenMetrics == 0 || total.hiddenParents == 0 || total.refused == 0 {
		t.Fatalf("the generated cases miss a kind: %+v", total)
	}
}

// visStats counts what the listings of a user hid or obfuscated.
type visStats struct{ hiddenGoals, stubs, hiddenMetrics, hiddenParents, refused int }

func (s *visStats) add(o visStats) {
	s.hiddenGoals += o.hiddenGoals
	s.stubs += o.stubs
	s.hiddenMetrics += o.hiddenMetrics
	s.hiddenParents += o.hiddenParents
	s.refused += o.refused
}

// visWorld is one generated account.
type visWorld struct {
	s          *Store
	admin      context.Context
	account    string
	rng        *rand.Rand
	users      []visUser
	principals []string // users, teams, roles: what access entries name
	owners     []string // users and teams: what owner lists name
}

type visUser struct {
	id  string
	ctx context.Context
}

func newVisWorld(t *testing.T, seed uint64) *visWorld {
	t.Helper()
	ctx := context.Background()
	s, err := Open(ctx, testdb.DSN(t, "vis.db"))
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
	b, err := s.Bootstrap(ctx, BootstrapInput{AccountName: "Vis", Email: "admin@vis.test"})
	must(err)
	ac, err := s.Authenticate(ctx, b.Token)
	must(err)
	w := &visWorld{s: s, admin: upstream.NewContext(ctx, ac), account: ac.AccountID, rng: rand.New(rand.NewPCG(seed, 7))}
	role, err := s.CreateRole(w.admin, upstream.RoleInput{Name: "Readers"})
	must(err)
	member, viewer := "000000000000000000000002", "000000000000000000000003"
	roles := [][]string{{member}, {member}, {viewer}, {role.ID}, {member}, {member}}
	for i, r := range roles {
		u, err := s.CreateUser(w.admin, UserInput{Email: fmt.Sprintf("u%d@vis.test", i), FirstName: fmt.Sprint("U", i), RoleIDs: r})
		must(err)
		tok, err := s.CreateUserToken(w.admin, u.ID)
		must(err)
		c, err := s.Authenticate(ctx, tok.Token)
		must(err)
		w.users = append(w.users, visUser{id: u.ID, ctx: upstream.NewContext(ctx, c)})
		w.principals = append(w.principals, u.ID)
		w.owners = append(w.owners, u.ID)
	}
	t1, err := s.CreateTeam(w.admin, TeamInput{Name: "T1", Members: []string{w.users[0].id, w.users[2].id}})
	must(err)
	t2, err := s.CreateTeam(w.admin, TeamInput{Name: "T2", Members: []string{w.users[3].id, w.users[4].id}})
	must(err)
	_, err = s.CreateRoleMapping(w.admin, upstream.RoleMappingInput{RoleID: role.ID, TeamID: t2.ID})
	must(err)
	w.principals = append(w.principals, t1.ID, t2.ID, role.ID, member, viewer)
	w.owners = append(w.owners, t1.ID, t2.ID)
	_, err = s.CreatePermission(w.admin, upstream.PermissionInput{Action: string(upstream.GoalsRead), Principals: []string{role.ID}})
	must(err)
	if w.rng.IntN(2) == 0 {
		_, err = s.CreatePermission(w.admin, upstream.PermissionInput{Action: string(upstream.SessionsManage), Principals: []string{w.users[1].id}})
		must(err)
	}

	var sessionIDs []string
	for i := range 4 {
		ss, err := s.CreateSession(w.admin, upstream.SessionInput{Title: fmt.Sprint("S", i), Start: "2026-01-01", End: "2026-03-31"})
		must(err)
		sessionIDs = append(sessionIDs, ss.ID)
	}
	var goals []upstream.Goal
	for i := range 40 {
		in := upstream.GoalInput{Name: fmt.Sprint("G", i), SessionID: pick(w.rng, sessionIDs), Private: w.rng.IntN(10) < 3,
			OwnerIDs: w.someOwners()}
		if len(goals) > 0 && w.rng.IntN(10) < 7 {
			in.ParentID = pick(w.rng, goals).ID
		}
		g, err := s.CreateGoal(w.admin, in)
		must(err)
		goals = append(goals, g)
	}
	var metrics []upstream.Metric
	target := 10.0
	for i := range 40 {
		m, err := s.CreateMetric(w.admin, upstream.MetricInput{Name: fmt.Sprint("M", i), GoalID: pick(w.rng, goals).ID,
			Target: &target, Private: w.rng.IntN(10) < 3, OwnerIDs: w.someOwners()})
		must(err)
		metrics = append(metrics, m)
		if w.rng.IntN(2) == 0 {
			actual := float64(w.rng.IntN(10))
			_, err := s.CheckIn(w.admin, m.ID, upstream.CheckInInput{Actual: &actual})
			must(err)
		}
	}
	for i := range 30 {
		in := upstream.TaskInput{Name: fmt.Sprint("T", i), OwnerID: pick(w.rng, w.users).id}
		switch w.rng.IntN(3) {
		case 0:
			in.ParentID = pick(w.rng, goals).ID
		case 1:
			in.ParentID = pick(w.rng, metrics).ID
		}
		_, err := s.CreateTask(w.admin, in)
		must(err)
	}
	// Owners change after key results copied them (goalOwnerIds).
	for range 5 {
		ids := w.someOwners()
		_, err := s.UpdateGoal(w.admin, pick(w.rng, goals).ID, upstream.GoalPatch{OwnerIDs: &ids})
		must(err)
	}
	// Access lists last: they may take the admin's own rights away from
	// no one, but the writes above are easier made before.
	for _, id := range sessionIDs {
		if w.rng.IntN(4) > 0 {
			_, err := s.SetItemAccess(w.admin, "session", id, w.someAccess())
			must(err)
		}
	}
	for _, g := range goals {
		if w.rng.IntN(10) < 4 {
			_, err := s.SetItemAccess(w.admin, "goal", g.ID, w.someAccess())
			must(err)
		}
	}
	return w
}

func pick[T any](rng *rand.Rand, xs []T) T { return xs[rng.IntN(len(xs))] }

// someOwners returns zero to two owners (users or teams).
func (w *visWorld) someOwners() []string {
	var out []string
	for range w.rng.IntN(3) {
		if o := pick(w.rng, w.owners); !slices.Contains(out, o) {
			out = append(out, o)
		}
	}
	return out
}

// someAccess returns an access list: inheriting or not, with entries that
// grant or deny goals:read, sessions:manage or everything to a few
// principals.
func (w *visWorld) someAccess() upstream.Access {
	a := upstream.Access{Inherits: w.rng.IntN(3) > 0, Permissions: []upstream.PermissionEntry{}}
	actions := []string{string(upstream.GoalsRead), string(upstream.SessionsManage), "*"}
	for range w.rng.IntN(4) {
		e := upstream.PermissionEntry{PrincipalID: pick(w.rng, w.principals), Grant: map[string]int{}, Deny: map[string]int{}}
		if w.rng.IntN(2) == 0 {
			e.Deny[pick(w.rng, actions)] = 1
		} else {
			e.Grant[pick(w.rng, actions)] = 1
		}
		a.Permissions = append(a.Permissions, e)
	}
	return a
}

// compare lists as u and checks the listings against the rule.
func (w *visWorld) compare(t *testing.T, u visUser) visStats {
	t.Helper()
	all := upstream.ListQuery{Limit: upstream.MaxLimit}
	ss, err := w.s.ListSessions(w.admin, all, true)
	if err != nil {
		t.Fatal(err)
	}
	gs, err := w.s.ListGoals(w.admin, all)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := w.s.ListMetrics(w.admin, all)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := w.s.ListTasks(w.admin, all)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := w.s.ListCheckIns(w.admin, all)
	if err != nil {
		t.Fatal(err)
	}
	c, err := upstream.MustCaller(u.ctx)
	if err != nil {
		t.Fatal(err)
	}
	sub, err := w.s.deriveSubject(context.Background(), w.s.read(), c)
	if err != nil {
		t.Fatal(err)
	}
	vis := upstream.NewVisibility(sub, ss.Items)

	goalByID := map[string]*upstream.Goal{}
	for i := range gs.Items {
		goalByID[gs.Items[i].ID] = &gs.Items[i]
	}
	metricByID := map[string]*upstream.Metric{}
	for i := range ms.Items {
		metricByID[ms.Items[i].ID] = &ms.Items[i]
	}

	var wantGoals, wantStubs []string
	stubs := vis.Stubs(gs.Items)
	for _, g := range gs.Items {
		if vis.GoalListed(g) || slices.Contains(stubs, g.ID) {
			wantGoals = append(wantGoals, g.ID)
		}
	}
	wantStubs = append(wantStubs, stubs...)
	var wantMetrics, wantCheckIns, wantTasks, wantHidden []string
	for _, m := range ms.Items {
		if vis.MetricListed(m, goalByID[m.GoalID]) {
			wantMetrics = append(wantMetrics, m.ID)
		}
	}
	for _, ci := range cs.Items {
		if slices.Contains(wantMetrics, ci.MetricID) {
			wantCheckIns = append(wantCheckIns, ci.ID)
		}
	}
	for _, tk := range ts.Items {
		p := upstream.TaskParent{Goal: goalByID[tk.ParentID], Metric: metricByID[tk.ParentID]}
		if p.Metric != nil {
			p.MetricGoal = goalByID[p.Metric.GoalID]
		}
		listed, hide := vis.TaskListed(tk, p)
		if listed {
			wantTasks = append(wantTasks, tk.ID)
		}
		if hide {
			wantHidden = append(wantHidden, tk.ID)
		}
	}

	// A listing the subject may not make at all is refused, not empty.
	var st visStats
	refused := func(a upstream.Action, err error) bool {
		t.Helper()
		if !sub.Allowed(a, nil, nil) {
			st.refused++
			if upstream.ErrorCode(err) != upstream.CodeForbidden {
				t.Errorf("user %s: listing without %s: %v, want forbidden", u.id, a, err)
			}
			return true
		}
		if err != nil {
			t.Fatal(err)
		}
		return false
	}
	gotG, err := w.s.ListGoals(u.ctx, all)
	if refused(upstream.GoalsRead, err) {
		wantGoals, wantStubs = nil, nil
	}
	var gotGoals, gotStubs []string
	for _, g := range gotG.Items {
		gotGoals = append(gotGoals, g.ID)
		if g.Obfuscated {
			gotStubs = append(gotStubs, g.ID)
		}
	}
	gotM, err := w.s.ListMetrics(u.ctx, all)
	if refused(upstream.MetricsRead, err) {
		wantMetrics = nil
	}
	var gotMetrics []string
	for _, m := range gotM.Items {
		gotMetrics = append(gotMetrics, m.ID)
	}
	gotC, err := w.s.ListCheckIns(u.ctx, all)
	if refused(upstream.MetricsRead, err) {
		wantCheckIns = nil
	}
	var gotCheckIns []string
	for _, ci := range gotC.Items {
		gotCheckIns = append(gotCheckIns, ci.ID)
	}
	gotT, err := w.s.ListTasks(u.ctx, all)
	if refused(upstream.TasksRead, err) {
		wantTasks, wantHidden = nil, nil
	}
	var gotTasks, gotHidden []string
	for _, tk := range gotT.Items {
		gotTasks = append(gotTasks, tk.ID)
		if tk.ParentID != "" && tk.ParentName == "" {
			gotHidden = append(gotHidden, tk.ID)
		}
	}

	for _, x := range []struct {
		what      string
		got, want []string
		total     int
	}{
		{"goals", gotGoals, wantGoals, gotG.TotalCount},
		{"obfuscated goals", gotStubs, wantStubs, -1},
		{"key results", gotMetrics, wantMetrics, gotM.TotalCount},
		{"check-ins", gotCheckIns, wantCheckIns, gotC.TotalCount},
		{"tasks", gotTasks, wantTasks, gotT.TotalCount},
		{"tasks with a hidden parent", gotHidden, wantHidden, -1},
	} {
		slices.Sort(x.got)
		slices.Sort(x.want)
		if !slices.Equal(x.got, x.want) {
			t.Errorf("user %s: %s listed %v, the rule says %v", u.id, x.what, x.got, x.want)
		}
		if x.total >= 0 && x.total != len(x.want) {
			t.Errorf("user %s: %s totalCount %d, the rule says %d", u.id, x.what, x.total, len(x.want))
		}
	}
	// A filtered page shorter than the listing: its count (the table's
	// less the hidden rows, for key results) is still how many the
	// subject may see that match.
	if sub.Allowed(upstream.MetricsRead, nil, nil) && len(gs.Items) > 0 {
		var half []string
		for i, g := range gs.Items {
			if i%2 == 0 {
				half = append(half, g.ID)
			}
		}
		f, err := query.ParseFilter(upstream.MetricFields, `{"goalId":{"$in":`+idsParam(half)+`}}`)
		if err != nil {
			t.Fatal(err)
		}
		p, err := w.s.ListMetrics(u.ctx, upstream.ListQuery{Limit: 1, Filter: f})
		if err != nil {
			t.Fatal(err)
		}
		want := 0
		for _, m := range ms.Items {
			if slices.Contains(half, m.GoalID) && slices.Contains(wantMetrics, m.ID) {
				want++
			}
		}
		if p.TotalCount != want {
			t.Errorf("user %s: key results of half the goals, a page of 1: totalCount %d, the rule says %d", u.id, p.TotalCount, want)
		}
	}
	st.hiddenGoals = len(gs.Items) - len(wantGoals)
	st.stubs = len(wantStubs)
	st.hiddenMetrics = len(ms.Items) - len(wantMetrics)
	st.hiddenParents = len(wantHidden)
	return st
}
