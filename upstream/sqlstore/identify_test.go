package sqlstore_test

import (
	"context"
	"slices"
	"testing"

	"github.com/okrgate/okrgate/upstream"
)

// TestIdentifyUser: the user a verified identity names is found by email
// or id within the named account only, with its roles and no token; an
// unknown identity, another account's user and a suspended account are
// refused as for an API token.
func TestIdentifyUser(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	acme, _ := e.account("Acme", "ann@acme.test")
	rival, _ := e.account("Rival", "hank@rival.test")

	for _, value := range []string{"ann@acme.test", acme.UserID} {
		c, err := e.store.IdentifyUser(ctx, acme.AccountID, value)
		if err != nil || c.AccountID != acme.AccountID || c.UserID != acme.UserID || !slices.Contains(c.Roles, "admin") || c.TokenID != "" {
			t.Errorf("IdentifyUser(%q) = %+v, %v", value, c, err)
		}
	}
	for _, tc := range []struct{ account, value string }{
		{acme.AccountID, "nobody@acme.test"},
		{acme.AccountID, "hank@rival.test"}, // another account's user
		{rival.AccountID, acme.UserID},
		{"000000000000000000000000", "ann@acme.test"},
		{acme.AccountID, ""},
	} {
		if _, err := e.store.IdentifyUser(ctx, tc.account, tc.value); upstream.ErrorCode(err) != upstream.CodeUnauthenticated {
			t.Errorf("IdentifyUser(%s, %q): %v, want unauthenticated", tc.account, tc.value, err)
		}
	}
	if err := e.store.SetAccountActive(ctx, acme.AccountID, false); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.IdentifyUser(ctx, acme.AccountID, "ann@acme.test"); upstream.ErrorCode(err) != upstream.CodePaymentRequired {
		t.Errorf("IdentifyUser in a suspended account: %v, want account_suspended", err)
	}
}
