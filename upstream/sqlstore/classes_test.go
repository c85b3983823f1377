package sqlstore_test

import (
	"testing"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/sqlstore"
)

// TestVisibilityClasses derives the classes of an account's callers: two
// viewers whom no item names share one; a member of a team, a viewer who
// owns a goal, and the admin have classes of their own; and a viewer
// moved into the team takes the team member's class at once.
func TestVisibilityClasses(t *testing.T) {
	e := newEnv(t)
	caller := func(email, role string) upstream.Caller {
		u, err := e.store.CreateUser(e.ctx, upstream.UserInput{Email: email, FirstName: email, Role: role})
		if err != nil {
			t.Fatal(err)
		}
		tok, err := e.store.CreateToken(e.ctx, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		c, err := e.store.Authenticate(e.ctx, tok)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	v1, v2, owner := caller("v1@acme.test", "viewer"), caller("v2@acme.test", "viewer"), caller("owner@acme.test", "viewer")
	inTeam, joiner := caller("m1@acme.test", "member"), caller("m2@acme.test", "member")
	team, err := e.store.CreateTeam(e.ctx, sqlstore.TeamInput{Name: "Planning", Members: []string{inTeam.UserID}})
	if err != nil {
		t.Fatal(err)
	}
	s := e.session(upstream.SessionInput{})
	e.goal(upstream.GoalInput{Name: "mine", SessionID: s.ID, OwnerIDs: []string{owner.UserID}})
	admin, err := e.store.Authenticate(e.ctx, e.boot.Token)
	if err != nil {
		t.Fatal(err)
	}
	classes := func() map[string]string {
		t.Helper()
		cs := []upstream.Caller{v1, v2, owner, inTeam, joiner, admin}
		got, err := e.store.VisibilityClasses(e.ctx, cs)
		if err != nil {
			t.Fatal(err)
		}
		return map[string]string{"v1": got[0], "v2": got[1], "owner": got[2], "inTeam": got[3], "joiner": got[4], "admin": got[5]}
	}
	got := classes()
	if got["v1"] != got["v2"] {
		t.Errorf("two viewers no item names: classes %q and %q, want one", got["v1"], got["v2"])
	}
	for _, pair := range [][2]string{{"v1", "owner"}, {"v1", "inTeam"}, {"inTeam", "joiner"}, {"v1", "admin"}, {"inTeam", "admin"}} {
		if got[pair[0]] == got[pair[1]] {
			t.Errorf("%s and %s share the class %q", pair[0], pair[1], got[pair[0]])
		}
	}
	if _, err := e.store.AddTeamMember(e.ctx, team.ID, joiner.UserID); err != nil {
		t.Fatal(err)
	}
	if got := classes(); got["joiner"] != got["inTeam"] {
		t.Errorf("after joining the team: class %q, want the team member's %q", got["joiner"], got["inTeam"])
	}
}
