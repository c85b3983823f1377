package resolvers_test

import (
	"context"
	"sort"
	"strings"
	"testing"

	"github.com/okrgate/okrgate/graph"
	"github.com/okrgate/okrgate/resolvers"
	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
)

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
