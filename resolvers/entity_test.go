package resolvers_test

import (
	"bytes"
	"net/http/httptest"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/okrgate/okrgate/graph/fastpath"
	"github.com/okrgate/okrgate/resolvers"
	"github.com/okrgate/okrgate/resolvers/transport/graphqlhttp"
	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/infra/instrument"
)

// entitiesQuery asks for entities by representation, as a federation
// gateway does.
const entitiesQuery = `query($r: [_Any!]!) { _entities(representations: $r) { __typename ... on Node { id } ... on Goal { name } } }`

// representations are the _Any values of ids of type typ.
func representations(typ string, ids ...string) []any {
	out := make([]any, len(ids))
	for i, id := range ids {
		out[i] = map[string]any{"__typename": typ, "id": id}
	}
	return out
}

// TestFederationOptIn: without Config.Federation the served schema has
// none of the federation's fields, types or directives and _service is an
// unknown field; with it, _service answers the subgraph schema with the
// @key of every node type, and the served schema has _entities but not
// the plugin's code-generation types.
func TestFederationOptIn(t *testing.T) {
	plain, err := resolvers.ServedSchema()
	if err != nil {
		t.Fatal(err)
	}
	fed, err := resolvers.FederatedSchema()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"_service", "_entities"} {
		if plain.Query.Fields.ForName(f) != nil {
			t.Errorf("ServedSchema has Query.%s", f)
		}
		if fed.Query.Fields.ForName(f) == nil {
			t.Errorf("FederatedSchema has no Query.%s", f)
		}
	}
	for _, typ := range []string{"_Entity", "_Service", "_Any", "FieldSet"} {
		if plain.Types[typ] != nil {
			t.Errorf("ServedSchema has type %s", typ)
		}
		if fed.Types[typ] == nil {
			t.Errorf("FederatedSchema has no type %s", typ)
		}
	}
	if plain.Directives["key"] != nil || plain.Directives["link"] != nil || len(plain.SchemaDirectives) > 0 {
		t.Errorf("ServedSchema declares the federation's directives")
	}
	for name, def := range plain.Types {
		if def.Directives.ForName("key") != nil {
			t.Errorf("ServedSchema: %s has @key", name)
		}
		for _, impl := range plain.Implements[name] {
			if strings.HasPrefix(impl.Name, "_") {
				t.Errorf("ServedSchema: %s is a member of %s", name, impl.Name)
			}
		}
	}
	for name := range fed.Types {
		if name == "Entity" || strings.HasSuffix(name, "ByIDsInput") {
			t.Errorf("FederatedSchema has the plugin's type %s", name)
		}
	}
	members := fed.Types["_Entity"].Types
	slices.Sort(members)
	want := slices.Clone(nodeTypes)
	slices.Sort(want)
	if !slices.Equal(members, want) {
		t.Errorf("_Entity = %v, want the node types %v", members, want)
	}
	if def := fed.Types["Goal"]; def == nil || def.Kind != ast.Object || def.Directives.ForName("key") == nil {
		t.Errorf("FederatedSchema: Goal has no @key")
	}

	o := newOrgFixture(t, "fed-off")
	if r := o.do(t, `{ _service { sdl } }`, nil); r.code() != "GRAPHQL_VALIDATION_FAILED" {
		t.Errorf("_service without Federation: %+v, want GRAPHQL_VALIDATION_FAILED", r.Errors)
	}

	f := newOrgFixtureCfg(t, "fed-on", graphqlhttp.Config{Federation: true})
	var d struct{ Service struct{ SDL string } }
	f.do(t, `{ service: _service { sdl } }`, nil).mustData(t, &d)
	sdl := d.Service.SDL
	if !strings.Contains(sdl, `@link(url: "https://specs.apollo.dev/federation/v2.3"`) {
		t.Errorf("the SDL does not link federation v2: %.300s", sdl)
	}
	for _, typ := range nodeTypes {
		if !strings.Contains(sdl, "extend type "+typ+` @key(fields: "id")`) {
			t.Errorf("the SDL has no @key for %s", typ)
		}
	}
	for _, gen := range []string{"union _Entity", "ByIDsInput", "findMany"} {
		if strings.Contains(sdl, gen) {
			t.Errorf("the SDL has %s: a composer adds the federation's own definitions", gen)
		}
	}
}

// TestEntitiesBatch: _entities with ids of every node type answers each
// entity in the order asked, null for an unknown id, and costs one
// upstream call per type (two for the types whose lookup takes two), the
// same for a few ids as for 100.
func TestEntitiesBatch(t *testing.T) {
	var counts []map[string]int64
	for i, n := range []int{2, 5} {
		o := newOrgFixtureCfg(t, "entities"+strconv.Itoa(i), graphqlhttp.Config{Federation: true})
		fillNodes(t, o, n)
		all := nodeIDs(t, o)
		var reps []any
		var ids []string
		for _, typ := range nodeTypes {
			all[typ] = all[typ][:min(len(all[typ]), n)]
			reps = append(reps, representations(typ, all[typ]...)...)
			ids = append(ids, all[typ]...)
		}
		if n == 5 && len(ids) < 100 {
			t.Fatalf("only %d ids", len(ids))
		}
		// An unknown id, and a goal's id as a team's, are null.
		reps = append(reps, representations("Goal", "000000000000000000000000")...)
		reps = append(reps, representations("Team", all["Goal"][0])...)
		before := o.calls.Snapshot()
		var d struct {
			Entities []*struct {
				Typename string `json:"__typename"`
				ID       string
			} `json:"_entities"`
		}
		o.do(t, entitiesQuery, map[string]any{"r": reps}).mustData(t, &d)
		calls := instrument.Diff(before, o.calls.Snapshot())
		if len(d.Entities) != len(reps) {
			t.Fatalf("%d entities for %d representations", len(d.Entities), len(reps))
		}
		for j, id := range ids {
			e, typ := d.Entities[j], reps[j].(map[string]any)["__typename"]
			if e == nil || e.ID != id || e.Typename != typ {
				t.Fatalf("entity %d = %+v, want %s %s", j, e, typ, id)
			}
		}
		if tail := d.Entities[len(ids):]; tail[0] != nil || tail[1] != nil {
			t.Fatalf("unknown ids: %+v %+v, want null", tail[0], tail[1])
		}
		t.Logf("%d representations: upstream calls %v", len(reps), calls)
		counts = append(counts, calls)
	}
	if !reflect.DeepEqual(counts[0], counts[1]) {
		t.Fatalf("upstream calls differ: %v (few ids), %v (100 ids)", counts[0], counts[1])
	}
	// One listing per type; ListTeams, ListTags and ListRoles serve two
	// types each (Team and UserRole held through a team, Tag and
	// TagDetail, Role and UserRole held directly), ListRoleMappings two
	// (RoleMapping, UserRole through a team). The account is one
	// GetAccount, tokens one ListTokens, grants one ListPermissions.
	want := map[string]int64{"Authenticate": 1, "ListGoals": 1, "ListMetrics": 1, "ListTasks": 1, "ListCheckIns": 1,
		"ListSessions": 1, "ListUsers": 1, "ListTeams": 2, "ListTags": 2, "ListDashboards": 1, "ListKPIs": 1,
		"ListKPIGroups": 1, "ListLists": 1, "ListAnnouncements": 1, "ListComments": 1, "ListBadges": 1, "ListAssignedBadges": 1,
		"ListDashboardParameters": 1, "ListRoles": 2, "ListEmployees": 1, "ListRoleMappings": 2, "ListTokens": 1,
		"GetAccount": 1, "ListPermissions": 1}
	if !reflect.DeepEqual(counts[1], want) {
		t.Fatalf("upstream calls = %v, want %v", counts[1], want)
	}
}

// TestEntitiesRights: _entities answers what the caller may read, as
// nodes(ids:) does: a private goal is null for a viewer, and in the same
// batch the public goal is answered.
func TestEntitiesRights(t *testing.T) {
	o := newOrgFixtureCfg(t, "entities-rights", graphqlhttp.Config{Federation: true})
	private, err := o.store.CreateGoal(o.ctx, upstream.GoalInput{Name: "private", SessionID: o.sessionID, Private: true})
	if err != nil {
		t.Fatal(err)
	}
	public, err := o.store.CreateGoal(o.ctx, upstream.GoalInput{Name: "public", SessionID: o.sessionID})
	if err != nil {
		t.Fatal(err)
	}
	reps := representations("Goal", private.ID, public.ID)
	for _, c := range []struct {
		who, token string
		visible    bool
	}{{"admin", o.token, true}, {"viewer", o.viewerToken, false}} {
		r := o.doAs(t, c.token, entitiesQuery, map[string]any{"r": reps})
		var d struct {
			Entities []*struct{ ID, Name string } `json:"_entities"`
		}
		r.mustData(t, &d)
		if len(d.Entities) != 2 || d.Entities[1] == nil || d.Entities[1].Name != "public" {
			t.Fatalf("%s: %+v, want the public goal second", c.who, d.Entities)
		}
		if got := d.Entities[0] != nil; got != c.visible {
			t.Errorf("%s: the private goal answered: %v, want %v", c.who, got, c.visible)
		}
		// The same as nodes(ids:) answers the caller.
		n := o.doAs(t, c.token, `query($ids: [ID!]!) { nodes(ids: $ids) { id } }`, map[string]any{"ids": []string{private.ID, public.ID}})
		var nd struct{ Nodes []*struct{ ID string } }
		n.mustData(t, &nd)
		if got := nd.Nodes[0] != nil; got != c.visible {
			t.Errorf("%s: nodes(ids:) answered the private goal: %v; _entities: %v", c.who, got, c.visible)
		}
	}
}

// TestEntitiesFastPath: the fields below _entities answer the same bytes
// on the fast path as on gqlgen's executor, as the admin and a viewer.
func TestEntitiesFastPath(t *testing.T) {
	o := newOrgFixtureCfg(t, "entities-fast", graphqlhttp.Config{Federation: true})
	fillNodes(t, o, 2)
	gq := httptest.NewServer(graphqlhttp.NewHandler(graphqlhttp.Config{
		API: o.store, Auth: o.store, Metrics: newMetrics(t, prometheus.NewRegistry()), NoFastPath: true, Federation: true,
	}))
	defer gq.Close()
	ids := nodeIDs(t, o)
	var reps []any
	for _, typ := range []string{"Goal", "Team", "User", "Metric"} {
		reps = append(reps, representations(typ, ids[typ]...)...)
	}
	const q = `query($r: [_Any!]!) { _entities(representations: $r) { __typename
  ... on Goal { id name attainment children { id name } metrics { name checkins { actual } } owners { ... on User { name } ... on Team { name } } }
  ... on Team { id name members { name } }
  ... on User { id name email }
  ... on Metric { id name goal { name } }
} }`
	served := o.metrics.FastPath(fastpath.Served)
	for who, token := range map[string]string{"admin": o.token, "viewer": o.viewerToken} {
		fast := postRaw(t, o.srv.URL, token, q, map[string]any{"r": reps})
		slow := postRaw(t, gq.URL, token, q, map[string]any{"r": reps})
		if !bytes.Equal(sortErrors(t, fast), sortErrors(t, slow)) {
			t.Errorf("as %s: the answers differ\nfast path: %s\ngqlgen:    %s", who, clip(fast), clip(slow))
		}
		if !bytes.Contains(fast, []byte(`"checkins":[{"actual"`)) {
			t.Errorf("as %s: no check-in below the entities: %s", who, clip(fast))
		}
	}
	if o.metrics.FastPath(fastpath.Served) == served {
		t.Error("the fast path served none of the fields below _entities")
	}
}
