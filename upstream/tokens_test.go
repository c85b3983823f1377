package upstream

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestTokenExpiry(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	p := TokenPolicy{DefaultTTL: 90 * 24 * time.Hour, MaxTTL: 366 * 24 * time.Hour}
	secs := func(n int64) *int64 { return &n }
	for _, tc := range []struct {
		name string
		in   TokenInput
		want time.Time
		bad  string // the field of the error
	}{
		{"default", TokenInput{}, now.Add(90 * 24 * time.Hour), ""},
		{"expiresIn", TokenInput{ExpiresIn: secs(60)}, now.Add(time.Minute), ""},
		{"expiresIn at the maximum", TokenInput{ExpiresIn: secs(366 * 24 * 3600)}, now.Add(366 * 24 * time.Hour), ""},
		{"expiresIn over the maximum", TokenInput{ExpiresIn: secs(366*24*3600 + 1)}, time.Time{}, "expiresIn"},
		{"expiresIn zero", TokenInput{ExpiresIn: secs(0)}, time.Time{}, "expiresIn"},
		{"expiresIn negative", TokenInput{ExpiresIn: secs(-5)}, time.Time{}, "expiresIn"},
		{"expiresAt", TokenInput{ExpiresAt: "2026-12-01T00:00:00Z"}, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), ""},
		{"expiresAt with offset", TokenInput{ExpiresAt: "2026-12-01T02:00:00+02:00"}, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), ""},
		{"expiresAt in the past", TokenInput{ExpiresAt: "2026-11-22T09:00:00Z"}, time.Time{}, "expiresAt"},
		{"expiresAt now", TokenInput{ExpiresAt: "2026-11-22T10:00:00Z"}, time.Time{}, "expiresAt"},
		{"expiresAt beyond the maximum", TokenInput{ExpiresAt: "2028-01-01T00:00:00Z"}, time.Time{}, "expiresAt"},
		{"expiresAt not a time", TokenInput{ExpiresAt: "tomorrow"}, time.Time{}, "expiresAt"},
		{"both", TokenInput{ExpiresIn: secs(60), ExpiresAt: "2026-12-01T00:00:00Z"}, time.Time{}, "expiresIn"},
	} {
		got, err := p.Expiry(now, tc.in)
		if tc.bad != "" {
			var e *Error
			if err == nil || !errors.As(err, &e) || e.Code != CodeInvalid || len(e.Fields) != 1 || e.Fields[0].Field != tc.bad {
				t.Errorf("%s: got %v, %v; want invalid_input on %s", tc.name, got, err, tc.bad)
			}
			continue
		}
		if err != nil || !got.Equal(tc.want) {
			t.Errorf("%s: got %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
}

func TestTokenPolicyValidate(t *testing.T) {
	if err := DefaultTokenPolicy().Validate(); err != nil {
		t.Errorf("default policy: %v", err)
	}
	for _, p := range []TokenPolicy{{0, time.Hour}, {time.Hour, 0}, {2 * time.Hour, time.Hour}, {-time.Hour, time.Hour}} {
		if p.Validate() == nil {
			t.Errorf("%+v: valid, want an error", p)
		}
	}
}

func TestNormalizeScopes(t *testing.T) {
	for _, tc := range []struct {
		in   []Scope
		want string
	}{
		{nil, "read,write"},
		{[]Scope{"read"}, "read"},
		{[]Scope{"write"}, "read,write"},
		{[]Scope{"write", "read", "write"}, "read,write"},
	} {
		got, err := NormalizeScopes(tc.in)
		s := ""
		for i, x := range got {
			if i > 0 {
				s += ","
			}
			s += string(x)
		}
		if err != nil || s != tc.want {
			t.Errorf("%v: got %q, %v; want %q", tc.in, s, err, tc.want)
		}
	}
	if _, err := NormalizeScopes([]Scope{"admin"}); ErrorCode(err) != CodeInvalid {
		t.Errorf("unknown scope: %v, want invalid_input", err)
	}
}

func TestTokenUsable(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		expires string
		ok      bool
	}{
		{"", true},
		{"2026-11-22T10:00:00.001Z", true},
		{"2026-11-22T10:00:00.000Z", false}, // expiry is exclusive
		{"2026-11-21T10:00:00.000Z", false},
		{"garbage", false},
	} {
		err := TokenUsable(now, tc.expires)
		if (err == nil) != tc.ok || (err != nil && ErrorCode(err) != CodeUnauthenticated) {
			t.Errorf("expires %q: %v, want ok=%v", tc.expires, err, tc.ok)
		}
	}
}

func TestLastUsedStale(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		last  string
		stale bool
	}{
		{"", true},
		{"2026-11-22T10:00:00.000Z", false},
		{"2026-11-22T09:59:00.001Z", false},
		{"2026-11-22T09:59:00.000Z", true},
		{"bad", true},
	} {
		if got := LastUsedStale(now, tc.last); got != tc.stale {
			t.Errorf("last used %q: stale %v, want %v", tc.last, got, tc.stale)
		}
	}
}

func TestMayMintToken(t *testing.T) {
	me := Caller{AccountID: "a", UserID: "u1", Scopes: []Scope{ScopeRead, ScopeWrite}}
	readOnly := Caller{AccountID: "a", UserID: "u1", Scopes: []Scope{ScopeRead}}
	role := func(name string, grants ...Action) Rights {
		b, _ := BuiltinRoleByName(name)
		return RightsOf(SubjectFacts{RoleIDs: []string{b.ID}, Grants: grants})
	}
	admin, member, viewer := role(RoleAdmin), role(RoleMember), role(RoleViewer)
	manager := role(RoleMember, UsersManage) // a member with users:manage
	for _, tc := range []struct {
		name string
		c    Caller
		f    MintFacts
		want Code
	}{
		{"own token", me, MintFacts{TargetUserID: "u1", TargetActive: true, CallerRights: viewer}, ""},
		{"own token, admin", me, MintFacts{TargetUserID: "u1", TargetActive: true, CallerRights: admin}, ""},
		{"own token from a read-only token", readOnly, MintFacts{TargetUserID: "u1", TargetActive: true}, CodeInsufficientScope},
		{"admin for a service user", me, MintFacts{TargetUserID: "u2", TargetActive: true, CallerRights: admin, TargetRights: member}, ""},
		{"admin for another admin", me, MintFacts{TargetUserID: "u2", TargetActive: true, CallerRights: admin, TargetRights: admin}, CodeForbidden},
		{"admin for a holder of users:manage", me, MintFacts{TargetUserID: "u2", TargetActive: true, CallerRights: admin, TargetRights: manager}, CodeForbidden},
		{"admin for a holder of roles:manage", me, MintFacts{TargetUserID: "u2", TargetActive: true, CallerRights: admin, TargetRights: role(RoleViewer, RolesManage)}, CodeForbidden},
		{"admin for a holder of permissions:manage", me, MintFacts{TargetUserID: "u2", TargetActive: true, CallerRights: admin, TargetRights: role(RoleViewer, PermsManage)}, CodeForbidden},
		{"admin for a holder of teams:manage", me, MintFacts{TargetUserID: "u2", TargetActive: true, CallerRights: admin, TargetRights: role(RoleViewer, TeamsManage)}, CodeForbidden},
		{"admin for a holder of every action", me, MintFacts{TargetUserID: "u2", TargetActive: true, CallerRights: admin, TargetRights: ActionRights(everyAction()...)}, CodeForbidden},
		{"manager for a member", me, MintFacts{TargetUserID: "u2", TargetActive: true, CallerRights: manager, TargetRights: member}, ""},
		{"manager for a session manager", me, MintFacts{TargetUserID: "u2", TargetActive: true, CallerRights: manager, TargetRights: role(RoleMember, SessionsManage)}, CodeForbidden},
		{"viewer manager for a member", me, MintFacts{TargetUserID: "u2", TargetActive: true, CallerRights: role(RoleViewer, UsersManage), TargetRights: member}, CodeForbidden},
		{"member for another user", me, MintFacts{TargetUserID: "u2", TargetActive: true, CallerRights: member, TargetRights: viewer}, CodeForbidden},
		{"admin for a deactivated user", me, MintFacts{TargetUserID: "u2", CallerRights: admin, TargetRights: member}, CodeConflict},
		{"in-process caller", Caller{AccountID: "a", UserID: "u1"}, MintFacts{TargetUserID: "u1", TargetActive: true}, ""},
	} {
		if got := ErrorCode(MayMintToken(tc.c, tc.f)); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestMayRevokeToken(t *testing.T) {
	me := Caller{AccountID: "a", UserID: "u1"}
	if err := MayRevokeToken(me, "t1", "u1"); err != nil {
		t.Errorf("own token: %v", err)
	}
	if got := ErrorCode(MayRevokeToken(me, "t1", "u2")); got != CodeNotFound {
		t.Errorf("another's token: %q, want not_found", got)
	}
	me.Scopes = []Scope{ScopeRead}
	if got := ErrorCode(MayRevokeToken(me, "t1", "u1")); got != CodeInsufficientScope {
		t.Errorf("read-only token: %q, want insufficient_scope", got)
	}
}

func TestCheckWrite(t *testing.T) {
	if err := CheckWrite(context.Background()); err != nil {
		t.Errorf("no caller: %v", err)
	}
	for _, tc := range []struct {
		scopes []Scope
		want   Code
	}{{nil, ""}, {[]Scope{ScopeRead, ScopeWrite}, ""}, {[]Scope{ScopeRead}, CodeInsufficientScope}} {
		ctx := NewContext(context.Background(), Caller{AccountID: "a", UserID: "u", Scopes: tc.scopes})
		if got := ErrorCode(CheckWrite(ctx)); got != tc.want {
			t.Errorf("scopes %v: %q, want %q", tc.scopes, got, tc.want)
		}
	}
}
