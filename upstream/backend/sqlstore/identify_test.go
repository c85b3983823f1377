package sqlstore_test

import (
	"context"
	"slices"
	"testing"

	"github.com/okrgate/okrgate/upstream"
)

// TestIdentifyUser: the user a verified identity names is found by its
// e-mail only (never by its id) within the named account only, with its
// roles and no token; an unknown identity, another account's user and a
// suspended account are refused as for an API token.
func TestIdentifyUser(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	acme, actx := e.account("Acme", "ann@acme.test")
	rival, _ := e.account("Rival", "hank@rival.test")
	id := func(sub, email string) upstream.ProviderIdentity {
		return upstream.ProviderIdentity{Issuer: "https://idp.test", Subject: sub, Email: email}
	}

	c, err := e.store.IdentifyUser(ctx, acme.AccountID, id("ann", "ann@acme.test"))
	if err != nil || c.AccountID != acme.AccountID || c.UserID != acme.UserID || !slices.Contains(c.Roles, "admin") || c.TokenID != "" {
		t.Errorf("IdentifyUser(ann@acme.test) = %+v, %v", c, err)
	}
	for _, tc := range []struct {
		account string
		id      upstream.ProviderIdentity
	}{
		{acme.AccountID, id("x1", "nobody@acme.test")},
		{acme.AccountID, id("x2", acme.UserID)},       // a user's id is not its e-mail
		{acme.AccountID, id("x3", "hank@rival.test")}, // another account's user
		{rival.AccountID, id("ann", "ann@acme.test")}, // the identity is bound in Acme only
		{"000000000000000000000000", id("ann", "ann@acme.test")},
		{acme.AccountID, id("x4", "")},
		{acme.AccountID, id("", "ann@acme.test")}, // no subject
	} {
		if _, err := e.store.IdentifyUser(ctx, tc.account, tc.id); upstream.ErrorCode(err) != upstream.CodeUnauthenticated {
			t.Errorf("IdentifyUser(%s, %+v): %v, want unauthenticated", tc.account, tc.id, err)
		}
	}

	// The binding: ann's identity stays ann's whatever its e-mail claim
	// says later, and no other identity of the provider becomes ann.
	bob, err := e.store.CreateUser(actx, upstream.UserInput{Email: "bob@acme.test", FirstName: "Bob", LastName: "B", Role: "member"})
	if err != nil {
		t.Fatal(err)
	}
	if c, err := e.store.IdentifyUser(ctx, acme.AccountID, id("ann", "bob@acme.test")); err != nil || c.UserID != acme.UserID {
		t.Errorf("ann's identity claiming bob's e-mail: %+v, %v; want ann still", c, err)
	}
	if _, err := e.store.IdentifyUser(ctx, acme.AccountID, id("mallory", "ann@acme.test")); upstream.ErrorCode(err) != upstream.CodeUnauthenticated {
		t.Errorf("another identity claiming ann's e-mail: %v, want unauthenticated", err)
	}
	if c, err := e.store.IdentifyUser(ctx, acme.AccountID, id("bob", "bob@acme.test")); err != nil || c.UserID != bob.ID {
		t.Errorf("bob's first sign-in: %+v, %v", c, err)
	}
	other := upstream.ProviderIdentity{Issuer: "https://other-idp.test", Subject: "ann", Email: "ann@acme.test"}
	if c, err := e.store.IdentifyUser(ctx, acme.AccountID, other); err != nil || c.UserID != acme.UserID {
		t.Errorf("ann through another provider: %+v, %v", c, err)
	}

	if err := e.store.SetAccountActive(ctx, acme.AccountID, false); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.IdentifyUser(ctx, acme.AccountID, id("ann", "ann@acme.test")); upstream.ErrorCode(err) != upstream.CodePaymentRequired {
		t.Errorf("IdentifyUser in a suspended account: %v, want account_suspended", err)
	}
}
