package rest_test

import (
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
)

// TestNoCrossAccountLeaks: the other account's admin tries every way to
// reach acct's data — by id, by filter, by nested projection, by the
// grouping and by edges (parentId, goalId) — and sees nothing of it.
func TestNoCrossAccountLeaks(t *testing.T) {
	e := newAuthzEnv(t)
	f := e.fixture()
	secret := "Acme secret objective"
	ctx := e.adminCtx()
	if _, err := e.store.UpdateGoal(ctx, f.goal, upstream.GoalPatch{Name: &secret}); err != nil {
		t.Fatal(err)
	}
	// Another account's goal whose parent the attacker tries to set to acct's goal.
	oss := e.ok(req{method: "POST", path: "/api/v1/sessions", as: &e.other, body: map[string]any{"title": "G", "start": "2026-01-01", "end": "2026-12-31"}}, 201)
	q := url.QueryEscape
	paths := []string{
		"/api/v2/integrations/goals?filter=" + q(`{"_id":"`+f.goal+`"}`),
		"/api/v2/integrations/goals?filter=" + q(`{"name":{"$regex":"secret","$options":"i"}}`),
		"/api/v2/integrations/goals?filter=" + q(`{"sessionId":"`+f.session+`"}`) + "&fields=" + q("name,metrics{name,goalName},tasks{name,parentName}"),
		"/api/v2/integrations/goals/groupBy/owners?ownerIds=" + e.acct.UserID + "&includeMetrics=true",
		"/api/v2/integrations/goals/groupBy/owners?ids=" + f.goal,
		"/api/v2/metrics?filter=" + q(`{"goalId":"`+f.goal+`"}`),
		"/api/v2/metrics?filter=" + q(`{"goalName":"`+secret+`"}`),
		"/api/v2/integrations/tasks?filter=" + q(`{"parentId":"`+f.goal+`"}`),
		"/api/v1/metrics/owner/" + e.acct.UserID,
		"/api/v2/users?filter=" + q(`{"email":"ann@acme.test"}`),
		"/api/v1/accounts/users?filter=" + q("email:acme"),
		"/api/v2/employees?filter=" + q(`{"email":"ann@acme.test"}`),
		"/api/v2/teams?filter=" + q(`{"_id":"`+f.team+`"}`),
		"/api/v2/roles?filter=" + q(`{"_id":"`+f.role+`"}`),
		"/api/v1/roles/account/mapping/",
		"/api/v2/sessions?filter=" + q(`{"_id":"`+f.session+`"}`),
	}
	for _, p := range paths {
		r := e.do(req{method: "GET", path: p, as: &e.other})
		if r.status != 200 {
			t.Errorf("GET %s: %d %s", p, r.status, r.body)
			continue
		}
		body := string(r.body)
		for _, leak := range []string{secret, f.goal, f.metric, f.task, f.team, f.role, f.mapping, e.acct.UserID, e.acct.AccountID, "ann@acme.test"} {
			if strings.Contains(body, leak) && !strings.Contains(p, leak) || strings.Contains(body, `"`+leak+`"`) {
				t.Errorf("GET %s as the other account leaks %q: %s", p, leak, body)
			}
		}
	}
	// By id: every read and write of acct's ids is 404.
	for _, p := range []string{"/api/v1/goals/" + f.goal, "/api/v1/metrics/" + f.metric, "/api/v1/metrics/checkin/" + f.checkin,
		"/api/v2/integrations/tasks/" + f.task, "/api/v1/sessions/" + f.session, "/api/v1/teams/" + f.team,
		"/api/v1/roles/" + f.role, "/api/v1/permissions/" + f.grant, "/api/v2/users/" + f.user, "/api/v1/employees/" + f.user,
		"/api/v1/accounts/" + e.acct.AccountID, "/api/v1/permissions/principal/" + f.role,
		"/api/v1/permissions/currentUser-allowedActions/" + f.metric + "?targetType=metric",
		"/api/v1/permissions/default-access/goal/" + f.goal} {
		e.problem(req{method: "GET", path: p, as: &e.other}, 404, "not_found")
	}
	// By edge: a goal of the other account cannot hang under acct's goal,
	// nor a key result or a task under acct's items.
	e.problem(req{method: "POST", path: "/api/v1/goals", as: &e.other, body: map[string]any{"name": "x", "sessionId": str(oss, "id"), "parentId": f.goal}}, 400, "invalid_input")
	e.problem(req{method: "POST", path: "/api/v1/metrics", as: &e.other, body: map[string]any{"name": "x", "goalId": f.goal, "target": 1}}, 400, "invalid_input")
	e.problem(req{method: "POST", path: "/api/v2/integrations/tasks", as: &e.other, body: map[string]any{"name": "x", "parentId": f.metric}}, 400, "invalid_input")
	e.problem(req{method: "POST", path: "/api/v1/teams", as: &e.other, body: map[string]any{"name": "x", "members": []string{e.acct.UserID}}}, 400, "invalid_input")
	e.problem(req{method: "POST", path: "/api/v1/permissions", as: &e.other, body: map[string]any{"action": "goals:read", "principals": []string{e.acct.UserID}}}, 400, "invalid_input")
}

// TestPrivateGoals: a private goal is seen by its owner, its session's
// manager and admins; to the others it does not exist — except as an
// obfuscated stub where a visible child's tree passes through it — and its
// name appears in no response body.
func TestPrivateGoals(t *testing.T) {
	e := newAuthzEnv(t)
	owner := e.addUser("member")
	manager := e.addUser("member")
	ctx := e.adminCtx()
	ss, err := e.store.CreateSession(ctx, upstream.SessionInput{Title: "S", Start: "2026-01-01", End: "2026-12-31"})
	if err != nil {
		t.Fatal(err)
	}
	// The manager gets sessions:manage on this session through its access.
	if _, err := e.store.SetItemAccess(ctx, "session", ss.ID, upstream.Access{Inherits: true, Permissions: []upstream.PermissionEntry{
		{PrincipalID: manager.UserID, PrincipalKind: "user", Grant: map[string]int{"sessions:manage": 1}}}}); err != nil {
		t.Fatal(err)
	}
	const secret = "Zanzibar acquisition"
	const krName = "Zanzibar term sheet"
	const taskName = "Call Zanzibar bank"
	root, _ := e.store.CreateGoal(ctx, upstream.GoalInput{Name: "Public root", SessionID: ss.ID})
	priv, err := e.store.CreateGoal(ctx, upstream.GoalInput{Name: secret, Description: "about " + secret, SessionID: ss.ID, ParentID: root.ID,
		Private: true, OwnerIDs: []string{owner.UserID}})
	if err != nil {
		t.Fatal(err)
	}
	child, err := e.store.CreateGoal(ctx, upstream.GoalInput{Name: "Public child", SessionID: ss.ID, ParentID: priv.ID})
	if err != nil {
		t.Fatal(err)
	}
	lonely, _ := e.store.CreateGoal(ctx, upstream.GoalInput{Name: secret + " 2", SessionID: ss.ID, Private: true, OwnerIDs: []string{owner.UserID}})
	tgt := 1.0
	m, err := e.store.CreateMetric(ctx, upstream.MetricInput{Name: krName, GoalID: priv.ID, Target: &tgt})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.CheckIn(ctx, m.ID, upstream.CheckInInput{Actual: &tgt}); err != nil {
		t.Fatal(err)
	}
	tk, err := e.store.CreateTask(ctx, upstream.TaskInput{Name: taskName, ParentID: priv.ID})
	if err != nil {
		t.Fatal(err)
	}
	// A task the member owns under the private goal: it sees its task, not the parent's name.
	own, err := e.store.CreateTask(ctx, upstream.TaskInput{Name: "my task", ParentID: priv.ID, OwnerID: e.member.UserID})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.store.AddGoalTag(ctx, priv.ID, "zanzibar-tag"); err != nil {
		t.Fatal(err)
	}
	met, _ := e.store.CreateGoal(ctx, upstream.GoalInput{Name: "met", SessionID: ss.ID})
	_ = met
	q := url.QueryEscape
	listings := []string{
		"/api/v2/integrations/goals",
		"/api/v2/integrations/goals?fields=" + q("name,description,metrics{name,goalName},tasks{name,parentName},tags"),
		"/api/v2/integrations/goals?filter=" + q(`{"name":{"$regex":"zanzibar","$options":"i"}}`),
		"/api/v2/integrations/goals?sort=name",
		"/api/v2/integrations/goals/groupBy/owners?includeMetrics=true",
		"/api/v2/integrations/goals/groupBy/owners?ownerIds=" + owner.UserID + "&includeMetrics=true",
		"/api/v1/sessions/" + ss.ID + "/stats/goalsMet",
		"/api/v2/metrics",
		"/api/v2/metrics?filter=" + q(`{"goalId":"`+priv.ID+`"}`),
		"/api/v1/metrics/owner/" + e.acct.UserID,
		"/api/v2/integrations/tasks",
		"/api/v2/integrations/tasks?filter=" + q(`{"parentName":{"$regex":"zanzibar","$options":"i"}}`),
		"/api/v1/goals/" + root.ID,
		"/api/v1/goals/" + child.ID,
		"/api/v1/goals/" + priv.ID, // the obfuscated stub
		"/api/v1/goals/" + priv.ID + "?fields=" + q("name,metrics{name},tags"),
	}
	for _, who := range []struct {
		name string
		as   *sqlstore.BootstrapResult
	}{{"member", &e.member}, {"viewer", &e.viewer}} {
		for _, p := range listings {
			r := e.do(req{method: "GET", path: p, as: who.as})
			if r.status != 200 {
				t.Errorf("%s GET %s: %d %s", who.name, p, r.status, r.body)
				continue
			}
			for _, leak := range []string{"Zanzibar", "zanzibar", krName, taskName, owner.UserID} {
				if strings.Contains(string(r.body), leak) {
					t.Errorf("%s GET %s leaks %q: %s", who.name, p, leak, r.body)
				}
			}
		}
		// The stub: obfuscated, with its place in the tree only.
		stub := e.ok(req{method: "GET", path: "/api/v1/goals/" + priv.ID, as: who.as}, 200)
		if stub["obfuscated"] != true || str(stub, "name") != "" || str(stub, "parentId") != root.ID || len(stub["ownerIds"].([]any)) != 0 {
			t.Errorf("%s: stub = %v", who.name, stub)
		}
		// In the listing, the stub is counted and shown obfuscated; the lonely private goal is absent.
		all := e.ok(req{method: "GET", path: "/api/v2/integrations/goals?limit=1000", as: who.as}, 200)
		var ids []string
		for _, g := range items(all) {
			ids = append(ids, str(g, "id"))
		}
		if !slices.Contains(ids, priv.ID) || slices.Contains(ids, lonely.ID) || int(num(all, "totalCount")) != len(ids) {
			t.Errorf("%s: listing ids %v (total %v), private %s lonely %s", who.name, ids, all["totalCount"], priv.ID, lonely.ID)
		}
		// Everything else about it is 404.
		for _, p := range []string{"/api/v1/goals/" + lonely.ID, "/api/v1/metrics/" + m.ID, "/api/v2/integrations/tasks/" + tk.ID,
			"/api/v1/metrics/" + m.ID + "/checkins", "/api/v1/permissions/currentUser-allowedActions/" + priv.ID + "?targetType=goal",
			"/api/v1/permissions/default-access/goal/" + priv.ID} {
			e.problem(req{method: "GET", path: p, as: who.as}, 404, "not_found")
		}
		e.problem(req{method: "PATCH", path: "/api/v1/goals/" + priv.ID, as: who.as, body: map[string]any{"name": "x"}}, 404, "not_found")
	}
	// The member's own task under the private goal: visible, parent name hidden.
	mt := e.ok(req{method: "GET", path: "/api/v2/integrations/tasks/" + own.ID, as: &e.member}, 200)
	if str(mt, "name") != "my task" || str(mt, "parentName") != "" {
		t.Errorf("member's own task = %v", mt)
	}
	// Owner, manager and admin see it in full.
	for _, who := range []struct {
		name string
		as   *sqlstore.BootstrapResult
	}{{"owner", &owner}, {"manager", &manager}, {"admin", &e.acct}} {
		g := e.ok(req{method: "GET", path: "/api/v1/goals/" + priv.ID, as: who.as}, 200)
		if str(g, "name") != secret || g["obfuscated"] == true {
			t.Errorf("%s: private goal = %v", who.name, g)
		}
		ms := e.ok(req{method: "GET", path: "/api/v2/metrics?filter=" + q(`{"goalId":"`+priv.ID+`"}`), as: who.as}, 200)
		if num(ms, "totalCount") != 1 || str(items(ms)[0], "goalName") != secret {
			t.Errorf("%s: metrics of the private goal = %v", who.name, ms)
		}
	}
	// The owner may edit it; the manager too (sessions:manage is not goals:update,
	// but the manager sees it): a member manager without goals:update gets 403.
	e.ok(req{method: "PATCH", path: "/api/v1/goals/" + priv.ID, as: &owner, body: map[string]any{"description": "x"}}, 200)
	e.problem(req{method: "PATCH", path: "/api/v1/goals/" + priv.ID, as: &manager, body: map[string]any{"description": "y"}}, 403, "forbidden")
}
