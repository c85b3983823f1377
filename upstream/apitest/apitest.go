// Package apitest is the contract test suite of the upstream services: one
// set of tests that every implementation of upstream.API runs (the SQL store on SQLite and
// PostgreSQL, and the HTTP client over the REST facade), so they cannot
// drift apart.
//
// The suite is ordinary Go code that imports "testing", in the style of
// pkgsite's API tests: an implementation's own _test.go file calls Run with a
// factory that builds a fresh implementation per test. The tests use
// the services of Backend only: no SQL, no store type, no HTTP.
package apitest

import (
	"context"
	"math"
	"testing"

	"github.com/okrgate/okrgate/upstream"
)

// Env is one implementation under test and the credentials the suite acts
// with. The factory creates both accounts and the three users of the first
// one (with whatever means the implementation offers: a bootstrap, an admin
// command, a seeded database) and issues a bearer token for each; the suite
// turns the tokens into callers through API.Authenticate.
type Env struct {
	API Backend
	// Admin, Member and Viewer are tokens of users of one account holding the
	// built-in roles admin, member and viewer.
	Admin, Member, Viewer string
	// OtherAdmin is the token of an admin of a second account.
	OtherAdmin string
}

// Backend is what the suite tests: the services it has tests of, the
// versions behind conditional writes and the views that bind them
// (Writable). A service joins it with its first test here, so the suite
// asks an implementation for no more than it checks.
type Backend interface {
	upstream.AuthService
	upstream.GoalService
	upstream.MetricService
	upstream.TaskService
	upstream.SessionService
	upstream.UserService
	upstream.AvatarService
	upstream.TagService
	upstream.Versions
	upstream.Writable
}

// Run runs the contract suite. newAPI is called once per test, with that
// test's t (so t.TempDir and t.Cleanup belong to it), and must return an
// implementation with no goals, key results, tasks or sessions in either
// account. The tests run in parallel, each on its own Env.
func Run(t *testing.T, newAPI func(t *testing.T) Env) {
	for _, tc := range []struct {
		name string
		fn   func(t *testing.T, f *fixture)
	}{
		{"GoalCRUD", testGoalCRUD},
		{"GoalListing", testGoalListing},
		{"GoalKeysetPaging", testGoalKeysetPaging},
		{"GoalListingInManyKeys", testGoalListingInManyKeys},
		{"CheckInRecomputesAncestors", testCheckInRecomputesAncestors},
		{"DeleteGoalCascades", testDeleteGoalCascades},
		{"Tasks", testTasks},
		{"Sessions", testSessions},
		{"LockedSession", testLockedSession},
		{"ClosedSessionRefusesWrites", testClosedSessionRefusesWrites},
		{"UnknownIDsNotFound", testUnknownIDsNotFound},
		{"NoCrossAccountAccess", testNoCrossAccountAccess},
		{"PrivateGoalHiddenFromViewer", testPrivateGoalHiddenFromViewer},
		{"ViewerRefusedWrites", testViewerRefusedWrites},
		{"MemberWritesOwnItems", testMemberWritesOwnItems},
		{"CheckInsOfManyMetrics", testCheckInsOfManyMetrics},
		{"TaggingsOfManyTags", testTaggingsOfManyTags},
		{"ProjectionKeepsStoredFields", testProjectionKeepsStoredFields},
		{"ConditionalWrites", testConditionalWrites},
		{"AuthenticateMany", testAuthenticateMany},
		{"Avatars", testAvatars}, // avatars.go
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, newFixture(t, newAPI(t)))
		})
	}
}

// fixture is an Env with its tokens authenticated: a context per caller.
type fixture struct {
	api Backend
	env Env // the tokens
	// admin, member, viewer act in the first account; other acts as the
	// admin of the second.
	admin, member, viewer, other context.Context
	adminID, memberID, viewerID  string
	accountID, otherAccountID    string
}

func newFixture(t *testing.T, env Env) *fixture {
	t.Helper()
	if env.API == nil {
		t.Fatal("apitest: Env.API is nil")
	}
	f := &fixture{api: env.API, env: env}
	var admin, member, viewer, other upstream.Caller
	f.admin, admin = f.as(t, "admin", env.Admin)
	f.member, member = f.as(t, "member", env.Member)
	f.viewer, viewer = f.as(t, "viewer", env.Viewer)
	f.other, other = f.as(t, "other admin", env.OtherAdmin)
	f.adminID, f.memberID, f.viewerID = admin.UserID, member.UserID, viewer.UserID
	f.accountID, f.otherAccountID = admin.AccountID, other.AccountID
	if member.AccountID != f.accountID || viewer.AccountID != f.accountID {
		t.Fatalf("apitest: member (%s) and viewer (%s) are not in the admin's account %s", member.AccountID, viewer.AccountID, f.accountID)
	}
	if f.otherAccountID == f.accountID {
		t.Fatalf("apitest: OtherAdmin is in the first account %s", f.accountID)
	}
	return f
}

// as authenticates token through the implementation and returns a context
// acting for the caller.
func (f *fixture) as(t *testing.T, who, token string) (context.Context, upstream.Caller) {
	t.Helper()
	c, err := f.api.Authenticate(t.Context(), token)
	if err != nil {
		t.Fatalf("apitest: authenticate the %s: %v", who, err)
	}
	return upstream.NewContext(t.Context(), c), c
}

// session creates an open session in the first account.
func (f *fixture) session(t *testing.T, title string) upstream.Session {
	t.Helper()
	s, err := f.api.CreateSession(f.admin, upstream.SessionInput{Title: title, Start: "2026-01-01", End: "2026-03-31"})
	if err != nil {
		t.Fatalf("create session %q: %v", title, err)
	}
	return s
}

// goal creates a goal as the admin.
func (f *fixture) goal(t *testing.T, in upstream.GoalInput) upstream.Goal {
	t.Helper()
	g, err := f.api.CreateGoal(f.admin, in)
	if err != nil {
		t.Fatalf("create goal %q: %v", in.Name, err)
	}
	return g
}

// getGoal reads a goal as the admin.
func (f *fixture) getGoal(t *testing.T, id string) upstream.Goal {
	t.Helper()
	g, err := f.api.GetGoal(f.admin, id)
	if err != nil {
		t.Fatalf("get goal %s: %v", id, err)
	}
	return g
}

// wantCode fails t unless err carries code.
func wantCode(t *testing.T, what string, err error, code upstream.Code) {
	t.Helper()
	if got := upstream.ErrorCode(err); got != code {
		t.Errorf("%s: error code %q (%v), want %q", what, got, err, code)
	}
}

// unknownID returns a well-formed id that names nothing.
func unknownID() string { return upstream.NewIDSource().New() }

func num(x float64) *float64 { return &x }
func str(s string) *string   { return &s }

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
