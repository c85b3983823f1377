package sqlstore_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore/sqlstoretest"
)

// clockEnv is newEnv with a clock the test moves.
func clockEnv(t *testing.T, now *time.Time) *env {
	t.Helper()
	path := sqlstoretest.DSN(t)
	var scope sqlstoretest.ScopeChecker
	t.Cleanup(func() { scope.Check(t, 0) })
	st, err := sqlstore.Open(context.Background(), path, sqlstore.WithStatementObserver(scope.Observe),
		sqlstore.WithClock(func() time.Time { return *now }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	e := &env{t: t, path: path, store: st}
	e.boot, e.ctx = e.account("Acme", "admin@acme.test")
	return e
}

// token creates a user of the account with role and issues it a token.
func (e *env) token(email, role string, in upstream.TokenInput) (upstream.User, upstream.NewToken) {
	e.t.Helper()
	u, err := e.store.CreateUser(e.ctx, sqlstore.UserInput{Email: email, FirstName: email, Role: role})
	if err != nil {
		e.t.Fatal(err)
	}
	tok, err := e.store.IssueToken(e.ctx, u.ID, in)
	if err != nil {
		e.t.Fatal(err)
	}
	return u, tok
}

// TestAuthenticateManyDecidesAsAuthenticate authenticates, in one batch, a
// usable token (twice), an expired one, a revoked one, a deactivated
// user's, a suspended account's, an unknown one and an empty one, and
// compares each outcome with Authenticate's for the same token: the same
// caller, or the same error code and message.
func TestAuthenticateManyDecidesAsAuthenticate(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	e := clockEnv(t, &now)
	_, usable := e.token("usable@acme.test", "member", upstream.TokenInput{})
	minute := int64(60)
	_, expiring := e.token("expiring@acme.test", "viewer", upstream.TokenInput{ExpiresIn: &minute})
	_, revoked := e.token("revoked@acme.test", "viewer", upstream.TokenInput{})
	owner, err := e.store.Authenticate(context.Background(), revoked.Secret)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.store.RevokeToken(upstream.NewContext(context.Background(), owner), revoked.ID); err != nil {
		t.Fatal(err)
	}
	gone, deactivated := e.token("gone@acme.test", "viewer", upstream.TokenInput{})
	off := false
	if _, err := e.store.UpdateUser(e.ctx, gone.ID, upstream.UserPatch{IsActive: &off}); err != nil {
		t.Fatal(err)
	}
	globex, _ := e.account("Globex", "admin@globex.test")
	if err := e.store.SetAccountActive(context.Background(), globex.AccountID, false); err != nil {
		t.Fatal(err)
	}
	now = now.Add(2 * time.Minute) // the one-minute token has expired
	tokens := []string{usable.Secret, expiring.Secret, revoked.Secret, deactivated.Secret, globex.Token,
		"okr_unknown", "", usable.Secret, e.boot.Token}
	got, err := e.store.AuthenticateMany(context.Background(), tokens)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(tokens) {
		t.Fatalf("%d outcomes for %d tokens", len(got), len(tokens))
	}
	if r := got[0].Caller.Roles; !reflect.DeepEqual(r, []string{"member"}) {
		t.Errorf("the member's token authenticates with roles %v, want [member]", r)
	}
	refusals := 0
	for i, tok := range tokens {
		c, err := e.store.Authenticate(context.Background(), tok)
		if upstream.ErrorCode(got[i].Err) != upstream.ErrorCode(err) || upstream.ErrorMessage(got[i].Err) != upstream.ErrorMessage(err) {
			t.Errorf("token %d: AuthenticateMany %v, Authenticate %v", i, got[i].Err, err)
		}
		if !reflect.DeepEqual(got[i].Caller, c) {
			t.Errorf("token %d: AuthenticateMany %+v, Authenticate %+v", i, got[i].Caller, c)
		}
		if err != nil {
			refusals++
		}
	}
	if refusals != 6 {
		t.Errorf("%d tokens refused, want 6 (expired, revoked, deactivated, suspended, unknown, empty)", refusals)
	}
}

// TestAuthenticateManyStatements counts the statements of batches: two
// reads for any number of one account's tokens (their account, then the
// tokens), and one write for their stale records of use, however many
// subscribers share them.
func TestAuthenticateManyStatements(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	e := clockEnv(t, &now)
	var distinct []string
	for i := range 6 {
		_, tok := e.token(fmt.Sprintf("u%d@acme.test", i), "viewer", upstream.TokenInput{})
		distinct = append(distinct, tok.Secret)
	}
	statements := func(tokens []string) int64 {
		t.Helper()
		before := e.store.QueryCount()
		res, err := e.store.AuthenticateMany(context.Background(), tokens)
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range res {
			if r.Err != nil {
				t.Fatalf("token %d: %v", i, r.Err)
			}
		}
		return e.store.QueryCount() - before
	}
	// Never used: every record of use is written, in one statement.
	if n := statements(distinct); n != 3 {
		t.Errorf("6 tokens never used: %d statements, want 3 (two reads, one write)", n)
	}
	var many []string
	for range 50 {
		many = append(many, distinct...)
	}
	few, lots := statements(distinct[:2]), statements(many)
	if few != 2 || lots != 2 {
		t.Errorf("2 tokens: %d statements; %d subscribers over 6 tokens: %d; want 2 each", few, len(many), lots)
	}
}

// TestVisibilityClassesBatch derives the classes of many callers — in a
// team mapped to a role with a grant, granted directly, named by a goal,
// plain viewers — in one call, and compares each with the class derived
// for the caller alone; the statements of the call do not grow with the
// number of callers.
func TestVisibilityClassesBatch(t *testing.T) {
	e := newEnv(t)
	var callers []upstream.Caller
	for i := range 12 {
		role := []string{"viewer", "member"}[i%2]
		_, tok := e.token(fmt.Sprintf("c%d@acme.test", i), role, upstream.TokenInput{})
		c, err := e.store.Authenticate(context.Background(), tok.Secret)
		if err != nil {
			t.Fatal(err)
		}
		callers = append(callers, c)
	}
	role, err := e.store.CreateRole(e.ctx, upstream.RoleInput{Name: "planners"})
	if err != nil {
		t.Fatal(err)
	}
	team, err := e.store.CreateTeam(e.ctx, sqlstore.TeamInput{Name: "Planning", Members: []string{callers[0].UserID, callers[3].UserID}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.CreateRoleMapping(e.ctx, upstream.RoleMappingInput{RoleID: role.ID, TeamID: team.ID}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.CreatePermission(e.ctx, upstream.PermissionInput{Action: string(upstream.UsersRead), Principals: []string{role.ID}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.CreatePermission(e.ctx, upstream.PermissionInput{Action: string(upstream.UsersRead), Principals: []string{callers[5].UserID}}); err != nil {
		t.Fatal(err)
	}
	s := e.session(upstream.SessionInput{})
	e.goal(upstream.GoalInput{Name: "mine", SessionID: s.ID, OwnerIDs: []string{callers[7].UserID}})
	admin, err := e.store.Authenticate(context.Background(), e.boot.Token)
	if err != nil {
		t.Fatal(err)
	}
	callers = append(callers, admin)

	classes := func(cs []upstream.Caller) ([]string, int64) {
		t.Helper()
		before := e.store.QueryCount()
		got, err := e.store.VisibilityClasses(e.ctx, cs)
		if err != nil {
			t.Fatal(err)
		}
		return got, e.store.QueryCount() - before
	}
	all, many := classes(callers)
	distinct := map[string]bool{}
	for i, c := range callers {
		alone, _ := classes([]upstream.Caller{c})
		if alone[0] != all[i] {
			t.Errorf("caller %d: class %q in the batch, %q alone", i, all[i], alone[0])
		}
		distinct[all[i]] = true
	}
	if len(distinct) < 5 {
		t.Errorf("%d distinct classes, want at least 5 (team, granted, owner, viewers, members, admin): %q", len(distinct), all)
	}
	if _, two := classes(callers[:2]); many > two {
		t.Errorf("%d callers: %d statements; 2 callers: %d; want no more", len(callers), many, two)
	}
}
