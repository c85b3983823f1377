package upstream_test

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/okrgate/okrgate/upstream"
)

func TestNormalizeWebhookEvents(t *testing.T) {
	got, err := upstream.NormalizeWebhookEvents([]upstream.EventType{upstream.EventGoalCreated, upstream.EventCheckInCreated, upstream.EventGoalCreated})
	if err != nil || !slices.Equal(got, []upstream.EventType{upstream.EventGoalCreated, upstream.EventCheckInCreated}) {
		t.Errorf("duplicates: %v, %v", got, err)
	}
	if got, err := upstream.NormalizeWebhookEvents([]upstream.EventType{"*"}); err != nil || len(got) != 1 {
		t.Errorf("all: %v, %v", got, err)
	}
	for _, bad := range [][]upstream.EventType{nil, {"goal.exploded"}, {"*", upstream.EventGoalCreated}, {""}} {
		if _, err := upstream.NormalizeWebhookEvents(bad); upstream.ErrorCode(err) != upstream.CodeInvalid {
			t.Errorf("%v: %v, want invalid_input", bad, err)
		}
	}
	for _, e := range upstream.EventTypes() {
		if !upstream.WebhookWants([]upstream.EventType{"*"}, e) {
			t.Errorf("* does not select %s", e)
		}
	}
	if upstream.WebhookWants([]upstream.EventType{upstream.EventGoalCreated}, upstream.EventGoalUpdated) {
		t.Error("goal.created selects goal.updated")
	}
}

func TestWebhookOutcome(t *testing.T) {
	p := upstream.WebhookRetryPolicy{First: time.Second, MaxGap: 4 * time.Second, For: 10 * time.Second}
	first := time.Unix(1000, 0)
	if s, next := upstream.WebhookOutcome(p, first, 1, first, 204); s != upstream.DeliverySucceeded || !next.IsZero() {
		t.Errorf("204: %s %v", s, next)
	}
	// 500 at attempt 1, 2, 3: waits 1 s, 2 s, 4 s (capped), then past 10 s: failed.
	at := first
	var waits []time.Duration
	for attempt := 1; ; attempt++ {
		s, next := upstream.WebhookOutcome(p, first, attempt, at, 500)
		if s == upstream.DeliveryFailed {
			break
		}
		if s != upstream.DeliveryPending || attempt > 10 {
			t.Fatalf("attempt %d: %s", attempt, s)
		}
		waits = append(waits, next.Sub(at))
		at = next
	}
	if want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}; !slices.Equal(waits, want) {
		t.Errorf("waits %v, want %v", waits, want)
	}
	for _, st := range []int{0, 199, 301, 302, 404, 500} {
		if upstream.WebhookAttemptSucceeded(st) {
			t.Errorf("status %d counts as delivered", st)
		}
	}
}

func TestMayManageWebhooks(t *testing.T) {
	admin := upstream.NewSubject(upstream.SubjectFacts{UserID: "u", RoleIDs: []string{builtinRoleID(t, upstream.RoleAdmin)}})
	member := upstream.NewSubject(upstream.SubjectFacts{UserID: "u", RoleIDs: []string{builtinRoleID(t, upstream.RoleMember)}})
	rw := upstream.Caller{AccountID: "a", UserID: "u"}
	ro := upstream.Caller{AccountID: "a", UserID: "u", Scopes: []upstream.Scope{upstream.ScopeRead}}
	if err := upstream.MayManageWebhooks(rw, admin, true); err != nil {
		t.Errorf("admin: %v", err)
	}
	if err := upstream.MayManageWebhooks(ro, admin, false); err != nil {
		t.Errorf("admin reading with a read-only token: %v", err)
	}
	if err := upstream.MayManageWebhooks(ro, admin, true); upstream.ErrorCode(err) != upstream.CodeInsufficientScope {
		t.Errorf("admin writing with a read-only token: %v", err)
	}
	if err := upstream.MayManageWebhooks(rw, member, false); upstream.ErrorCode(err) != upstream.CodeForbidden {
		t.Errorf("member: %v", err)
	}
}

func builtinRoleID(t *testing.T, name string) string {
	t.Helper()
	for _, r := range upstream.BuiltinRoles() {
		if r.Name == name {
			return r.ID
		}
	}
	t.Fatalf("no built-in role %s", name)
	return ""
}

func TestWebhookSecrets(t *testing.T) {
	a, b := upstream.NewWebhookSecret(), upstream.NewWebhookSecret()
	if a == b || !strings.HasPrefix(a, "whsec_") || len(a) != len("whsec_")+43 {
		t.Errorf("secrets %q %q", a, b)
	}
	// The fingerprint tells secrets apart, is what a receiver computes from
	// its own copy, and shows no run of the secret's characters, whatever
	// the secret's length (a custom one of the minimum 16 bytes included).
	for _, secret := range []string{a, "0123456789abcdef", "whsec_abcdefghij", strings.Repeat("s", upstream.MaxWebhookSecretLen)} {
		fp := upstream.WebhookSecretFingerprint(secret)
		sum := sha256.Sum256([]byte(secret))
		if fp != "sha256:"+hex.EncodeToString(sum[:])[:8] {
			t.Errorf("fingerprint of %q = %q, want sha256: and 8 hex digits of its SHA-256", secret, fp)
		}
		hash := strings.TrimPrefix(fp, "sha256:")
		for i := 0; i+3 <= len(secret); i++ {
			if strings.Contains(hash, secret[i:i+3]) {
				t.Errorf("fingerprint %q of %q shows %q of it", fp, secret, secret[i:i+3])
			}
		}
	}
	if upstream.WebhookSecretFingerprint(a) == upstream.WebhookSecretFingerprint(b) {
		t.Errorf("two secrets, one fingerprint %q", upstream.WebhookSecretFingerprint(a))
	}
	if err := upstream.CheckWebhookSecret("short"); upstream.ErrorCode(err) != upstream.CodeInvalid {
		t.Errorf("short secret: %v", err)
	}
	if err := upstream.CheckWebhookSecret(""); err != nil {
		t.Errorf("empty secret (generate one): %v", err)
	}
	if _, err := upstream.CheckWebhookURL(upstream.WebhookTargetPolicy{}, "https://x.example/"+strings.Repeat("a", upstream.MaxWebhookURLLen)); upstream.ErrorCode(err) != upstream.CodeInvalid {
		t.Errorf("long url: %v", err)
	}
}
