package client_test

import (
	"context"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/client"
	"github.com/okrgate/okrgate/upstream/query"
	"github.com/okrgate/okrgate/upstream/transport/rest"
)

// TestListPermissionsByID: grants listed by id $in through the client give
// the store's answer, with the designed listing (one call) and without it
// (one call per id, counted).
func TestListPermissionsByID(t *testing.T) {
	for _, tc := range []struct {
		name      string
		opts      rest.Options
		fallbacks float64
	}{{"designed", rest.Options{}, 0}, {"fallback", rest.Options{NoGatewayRoutes: true}, 3}} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBackend(t, tc.opts)
			ctx := context.Background()
			caller, err := b.store.Authenticate(ctx, b.env.Admin)
			if err != nil {
				t.Fatal(err)
			}
			cctx := upstream.NewContext(ctx, caller)
			var ids []any
			for _, action := range []string{"goals:read", "sessions:read"} {
				p, err := b.store.CreatePermission(cctx, upstream.PermissionInput{Action: action, Principals: []string{caller.UserID}})
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, p.ID)
			}
			q := upstream.ListQuery{Filter: query.In("id", append(ids, "5f1a2b3c4d5e6f7a8b9c0d1e")...)}
			want, err := b.store.ListPermissions(cctx, q)
			if err != nil {
				t.Fatal(err)
			}
			reg := prometheus.NewRegistry()
			c := b.newClient(t, client.Options{Registerer: reg})
			if _, err := c.Discover(ctx); err != nil {
				t.Fatal(err)
			}
			ccaller, err := c.Authenticate(ctx, b.env.Admin)
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.ListPermissions(upstream.NewContext(ctx, ccaller), q)
			if err != nil {
				t.Fatal(err)
			}
			if got.TotalCount != 2 || want.TotalCount != 2 || len(got.Items) != 2 || got.Items[0].ID != want.Items[0].ID || got.Items[1].ID != want.Items[1].ID {
				t.Fatalf("through the client %+v, the store %+v", got, want)
			}
			if n := testutil.ToFloat64(fallbackCounter(t, reg, "ListPermissions")); n != tc.fallbacks {
				t.Errorf("fallback calls %v, want %v", n, tc.fallbacks)
			}
		})
	}
}
