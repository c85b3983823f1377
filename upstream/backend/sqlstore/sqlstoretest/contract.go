package sqlstoretest

import (
	"context"
	"testing"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/apitest"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
)

// ContractEnv bootstraps the contract suite's two accounts (Acme and
// Globex) in st, adds a member and a viewer to Acme, and returns their
// tokens as an apitest.Env whose API is st; a test over another
// implementation (the HTTP client of a facade over st) replaces API.
func ContractEnv(t testing.TB, st *sqlstore.Store) apitest.Env {
	t.Helper()
	ctx := context.Background()
	boot := func(name, email string) (string, context.Context) {
		b, err := st.Bootstrap(ctx, sqlstore.BootstrapInput{AccountName: name, Email: email})
		if err != nil {
			t.Fatal(err)
		}
		c, err := st.Authenticate(ctx, b.Token)
		if err != nil {
			t.Fatal(err)
		}
		return b.Token, upstream.NewContext(ctx, c)
	}
	env := apitest.Env{API: st}
	var admin context.Context
	env.Admin, admin = boot("Acme", "admin@acme.test")
	env.OtherAdmin, _ = boot("Globex", "admin@globex.test")
	user := func(role string) string {
		u, err := st.CreateUser(admin, sqlstore.UserInput{Email: role + "@acme.test", FirstName: role, Role: role})
		if err != nil {
			t.Fatal(err)
		}
		tok, err := st.CreateToken(admin, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	env.Member, env.Viewer = user(upstream.RoleMember), user(upstream.RoleViewer)
	return env
}
