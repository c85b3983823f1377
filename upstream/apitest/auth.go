package apitest

import (
	"reflect"
	"testing"

	"github.com/okrgate/okrgate/upstream"
)

// testAuthenticateMany authenticates the Env's tokens, one repeated, with
// an unknown and an empty one, in one batch: each outcome is the caller
// or the error code Authenticate gives the same token.
func testAuthenticateMany(t *testing.T, f *fixture) {
	tokens := []string{f.env.Admin, "okr_unknown", f.env.Member, f.env.Admin, f.env.Viewer, f.env.OtherAdmin, ""}
	got, err := f.api.AuthenticateMany(t.Context(), tokens)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(tokens) {
		t.Fatalf("%d outcomes for %d tokens", len(got), len(tokens))
	}
	for i, tok := range tokens {
		c, err := f.api.Authenticate(t.Context(), tok)
		if upstream.ErrorCode(got[i].Err) != upstream.ErrorCode(err) {
			t.Errorf("token %d: AuthenticateMany %v, Authenticate %v", i, got[i].Err, err)
		}
		if !reflect.DeepEqual(got[i].Caller, c) {
			t.Errorf("token %d: AuthenticateMany %+v, Authenticate %+v", i, got[i].Caller, c)
		}
	}
	if got[1].Err == nil || got[6].Err == nil {
		t.Errorf("an unknown and an empty token authenticated: %+v, %+v", got[1], got[6])
	}
}
