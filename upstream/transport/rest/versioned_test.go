package rest_test

import (
	"net/http"
	"testing"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/transport/rest"
)

// TestVersionedRoutesAreResources: a route marked Versioned names the kind
// of a resource with versions (upstream.Resources, Kind), which the store
// reads from the resource's table; every such resource has a versioned GET,
// PATCH and DELETE. Without it a route marked with a kind the store does
// not know answers an error at the first If-Match, and a resource given
// versions would serve no ETag.
func TestVersionedRoutesAreResources(t *testing.T) {
	served := map[string]map[string]bool{}
	for _, r := range rest.Routes() {
		if r.Versioned == "" {
			continue
		}
		if _, ok := upstream.ResourceOfKind(r.Versioned); !ok {
			t.Errorf("%s %s is versioned as %q, the kind of no resource (upstream.Resources)", r.Method, r.Pattern, r.Versioned)
		}
		if served[r.Versioned] == nil {
			served[r.Versioned] = map[string]bool{}
		}
		served[r.Versioned][r.Method] = true
	}
	for _, kind := range upstream.VersionedKinds() {
		for _, m := range []string{http.MethodGet, http.MethodPatch, http.MethodDelete} {
			if !served[kind][m] {
				t.Errorf("resources of kind %q have versions but no versioned %s route", kind, m)
			}
		}
	}
}
