package sqlstore_test

import (
	"context"
	"testing"

	"github.com/okrgate/okrgate/upstream"
)

// TestMintToken: the operator's MintToken issues a working token for an
// active user of any account, under the lifetime policy, and refuses
// unknown and deactivated users.
func TestMintToken(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	other, _ := e.account("Rival", "admin@rival.test")

	days := int64(7 * 24 * 3600)
	acc, tok, err := e.store.MintToken(ctx, other.UserID, upstream.TokenInput{Name: "recovered", ExpiresIn: &days, Scopes: []upstream.Scope{upstream.ScopeRead}})
	if err != nil || acc != other.AccountID || tok.UserID != other.UserID || tok.Name != "recovered" {
		t.Fatalf("MintToken = %q, %+v, %v", acc, tok, err)
	}
	c, err := e.store.Authenticate(ctx, tok.Secret)
	if err != nil || c.AccountID != other.AccountID || c.UserID != other.UserID {
		t.Fatalf("the minted token authenticates as %+v, %v", c, err)
	}
	if err := c.CheckWrite(); err == nil {
		t.Error("a read-only minted token may write")
	}

	tooLong := int64(400 * 24 * 3600)
	if _, _, err := e.store.MintToken(ctx, other.UserID, upstream.TokenInput{ExpiresIn: &tooLong}); upstream.ErrorCode(err) != upstream.CodeInvalid {
		t.Errorf("400 days: %v, want invalid_input", err)
	}
	if _, _, err := e.store.MintToken(ctx, "000000000000000000000000", upstream.TokenInput{}); upstream.ErrorCode(err) != upstream.CodeNotFound {
		t.Errorf("unknown user: %v, want not_found", err)
	}
	u, err := e.store.CreateUser(e.ctx, upstream.UserInput{Email: "ann@acme.test", FirstName: "Ann"})
	if err != nil {
		t.Fatal(err)
	}
	off := false
	if _, err := e.store.UpdateUser(e.ctx, u.ID, upstream.UserPatch{IsActive: &off}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.store.MintToken(ctx, u.ID, upstream.TokenInput{}); upstream.ErrorCode(err) != upstream.CodeConflict {
		t.Errorf("deactivated user: %v, want conflict", err)
	}
}
