package client_test

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/okrgate/okrgate/upstream/apitest"
	"github.com/okrgate/okrgate/upstream/backend/client"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore/sqlstoretest"
	"github.com/okrgate/okrgate/upstream/transport/rest"
)

// backend is a REST facade over a store on a real SQLite file, served on
// 127.0.0.1, with the two accounts and three users of the contract suite.
type backend struct {
	store *sqlstore.Store
	srv   *httptest.Server
	env   apitest.Env
}

func newBackend(t *testing.T, opts rest.Options) *backend {
	t.Helper()
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, filepath.Join(t.TempDir(), "okr.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	opts.Webhooks, opts.Events, opts.Auth = st, st, st
	srv := httptest.NewServer(rest.New(st, opts))
	t.Cleanup(srv.Close)
	env := sqlstoretest.ContractEnv(t, st)
	return &backend{store: st, srv: srv, env: env}
}

// newClient returns a client of b's facade.
func (b *backend) newClient(t *testing.T, opts client.Options) *client.Client {
	t.Helper()
	c, err := client.New(b.srv.URL, opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestAPIContract runs the contract suite of upstream.API against the
// client, over real HTTP, against the REST facade over the SQLite store.
func TestAPIContract(t *testing.T) {
	apitest.Run(t, func(t *testing.T) apitest.Env {
		b := newBackend(t, rest.Options{})
		env := b.env
		env.API = b.newClient(t, client.Options{})
		return env
	})
}

// TestAPIContractFallback runs the suite against a facade without the
// gateway's designed listings; the client learns that from the facade's
// OpenAPI document and falls back to documented operations.
func TestAPIContractFallback(t *testing.T) {
	apitest.Run(t, func(t *testing.T) apitest.Env {
		b := newBackend(t, rest.Options{NoGatewayRoutes: true})
		env := b.env
		c := b.newClient(t, client.Options{})
		caps, err := c.Discover(context.Background())
		if err != nil || *caps != (client.Capabilities{}) {
			t.Fatalf("Discover = %+v, %v; want no designed listing", caps, err)
		}
		env.API = c
		return env
	})
}
