package sqlstore_test

import (
	"slices"
	"testing"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore/sqlstoretest"
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

// notNamingUsers are the account tables VisibilityClasses does not search
// for user ids, each with why no decision on an item compares a caller's
// user id with what the table holds. A new table is in neither list until
// someone decides (TestNamedTablesDecided).
var notNamingUsers = map[string]string{
	"users":                "a caller's own row: its roles and teams are part of every class already",
	"tokens":               "credentials: no decision on an item reads them",
	"teams":                "team membership is part of every class (the caller's teams)",
	"roles":                "role definitions: the caller's roles are part of every class",
	"role_mappings":        "role-to-team mappings: resolved into the caller's roles",
	"permissions":          "principal grants: the caller's grants are part of every class",
	"checkins":             "a check-in is shown as its key result is (which is searched)",
	"tags":                 "tags name no person",
	"item_tags":            "tag links name no person",
	"dashboard_parameters": "a dashboard's parameters: the dashboard is searched",
	"idempotency_keys":     "recorded answers of writes, replayed to their writer only",
	"goal_subtrees":        "derived paths of goals (ids of goals, not users)",
	"events":               "the log: an event is shown as its item is",
	"webhooks":             "subscriptions of admins, not items decided per caller",
	"webhook_deliveries":   "delivery attempts of webhooks",
	"identities":           "sign-in bindings: no decision on an item reads them",
	"avatars":              "pictures of users: readable by every caller of the account",
	"comments":             "a comment is shown as its key result is (which is searched); its author is compared only to delete it, a write",
}

// TestNamedTablesDecided: every account table is either searched for the
// user ids that make a caller's visibility class finer (namedTables in
// classes.go) or listed in notNamingUsers with a reason. A table added
// without that decision fails here: were it to hold owner or access ids,
// live subscribers of different rights would share what they see.
func TestNamedTablesDecided(t *testing.T) {
	named := sqlstore.NamedTableNames()
	for table := range sqlstoretest.AccountTables {
		_, excluded := notNamingUsers[table]
		switch in := slices.Contains(named, table); {
		case in && excluded:
			t.Errorf("table %s is both searched for user ids and listed as naming none", table)
		case !in && !excluded:
			t.Errorf("table %s: decide whether its rows name users (add it to namedTables in classes.go) or not (notNamingUsers here, with why)", table)
		}
	}
	for _, table := range named {
		if _, ok := sqlstoretest.AccountTables[table]; !ok {
			t.Errorf("namedTables names %s, which is not an account table", table)
		}
	}
}

// TestResourceTablesExist: every table upstream.Resources names is an
// account table of the schema (sqlstoretest.AccountTables, checked against
// the schema by TestAccountTablesListed), so that the tables derived from
// the description — those searched for user ids, those versions are read
// from — are the store's.
func TestResourceTablesExist(t *testing.T) {
	for _, r := range upstream.Resources {
		for _, tb := range r.Tables {
			if _, ok := sqlstoretest.AccountTables[tb.Name]; !ok {
				t.Errorf("upstream.Resources: %s names the table %s, which is no account table", r.Item.Name(), tb.Name)
			}
		}
	}
}
