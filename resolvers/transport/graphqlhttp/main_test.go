package graphqlhttp_test

import (
	"context"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/okrgate/okrgate/resolvers/transport/graphqlhttp"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore/sqlstoretest"
	"github.com/okrgate/okrgate/upstream/infra/observe"
)

func TestMain(m *testing.M) { os.Exit(sqlstoretest.Main(m)) }

// fixture is the GraphQL endpoint over a store of its own (SQLite, and
// PostgreSQL in that run of TestMain), served on 127.0.0.1 behind the
// observe stack as the binary serves it, with the token of its account's
// admin.
type fixture struct {
	store *sqlstore.Store
	token string
	srv   *httptest.Server
}

// newFixture serves cfg with the fixture's store as its API and tokens.
func newFixture(t *testing.T, cfg graphqlhttp.Config) *fixture {
	t.Helper()
	st := sqlstoretest.Open(t)
	boot, err := st.Bootstrap(context.Background(), sqlstore.BootstrapInput{AccountName: "Acme", Email: "admin@acme.test"})
	if err != nil {
		t.Fatal(err)
	}
	cfg.API, cfg.Auth = st, st
	srv := httptest.NewServer(observe.Stack(observe.Config{})(graphqlhttp.NewHandler(cfg)))
	t.Cleanup(srv.Close)
	return &fixture{store: st, token: boot.Token, srv: srv}
}

// gqlError is one error of a GraphQL answer.
type gqlError struct {
	Message    string         `json:"message"`
	Extensions map[string]any `json:"extensions"`
}
