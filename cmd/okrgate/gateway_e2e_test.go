package main_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	okrbin "github.com/okrgate/okrgate/cmd/okrgate/internal/binary"
)

// gatewayTree is the nested tree of one session: roots, three levels of
// children, key results, check-ins and tasks, owners.
const gatewayTree = `query Tree($id: ID!) {
  session(id: $id) {
    id title
    goals(roots: true) { ...G children { ...G children { ...G children { ...G } } } }
  }
}
fragment G on Goal {
  id name attainment private
  owners { ...O }
  tasks { id name status owner { ...O } }
  metrics { id name attainment owners { ...O } checkins { id actual } tasks { id name status owner { ...O } } }
}
fragment O on Owner { __typename ... on User { id name } ... on Team { id name } }`

// gql posts a GraphQL query to base with token and returns the status and
// the raw body.
func gql(t *testing.T, base, token, query string, vars map[string]any) (int, []byte) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, _ := http.NewRequest("POST", base+"/graphql", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, raw
}

// metric sums the samples of the metric name whose labels contain every
// label of want ("method=\"ListGoals\"").
func metric(t *testing.T, base, name string, want ...string) float64 {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var sum float64
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		if !strings.HasPrefix(l, name+"{") && !strings.HasPrefix(l, name+" ") {
			continue
		}
		ok := true
		for _, w := range want {
			ok = ok && strings.Contains(l, w)
		}
		if !ok {
			continue
		}
		f, err := strconv.ParseFloat(l[strings.LastIndexByte(l, ' ')+1:], 64)
		if err == nil {
			sum += f
		}
	}
	return sum
}

// largestSession returns the id of the session holding the most goals.
func largestSession(t *testing.T, c client) string {
	t.Helper()
	ss := c.must("GET", "/api/v2/sessions?limit=1000", nil, 200)
	best, bestN := "", -1.0
	for _, s := range ss["items"].([]any) {
		id := s.(map[string]any)["id"].(string)
		g := c.must("GET", "/api/v2/integrations/goals?limit=1&filter="+`%7B%22sessionId%22:%22`+id+`%22%7D`, nil, 200)
		if n := num(g["totalCount"]); n > bestN {
			best, bestN = id, n
		}
	}
	return best
}

// calls is what one tree query through the gateway cost upstream:
// upstream.API calls, HTTP requests, and of these the $in splits and the
// retries (after a 503 of the upstream's load shedding, on a busy machine).
type calls struct{ api, http, splits, retries float64 }

// TestGatewayTree runs a store server and a gateway (serve --upstream) as
// two processes, at 100 and 1,000 objectives: the tree answers the same
// bytes through both, and the gateway's upstream calls depend on the query
// only (HTTP calls less $in splits are the same at both sizes and equal the
// upstream.API calls).
func TestGatewayTree(t *testing.T) {
	// A built binary and a database of its own; mostly waiting on them.
	t.Parallel()
	if testing.Short() {
		t.Skip("seeds 1,100 objectives")
	}
	var got []calls
	for _, n := range []int{100, 1000} {
		db := filepath.Join(t.TempDir(), "store.db")
		boot, err := okrbin.Seed(binary, db, n, 1, nil)
		if err != nil {
			t.Fatal(err)
		}
		// The four-level tree costs about 3.5 million by the static estimate.
		// The store sheds no reads: on a busy machine its default bound would
		// answer some of the gateway's concurrent loads 503 (retried, and
		// counted apart below, but a retried load can still fail).
		store := startServer(t, db, "--graphql-max-cost", "10000000", "--max-inflight-reads", "0")
		gw := startServer(t, filepath.Join(t.TempDir(), "unused.db"), "--upstream", store.base, "--graphql-max-cost", "10000000")
		c := client{t: t, hc: http.DefaultClient, base: store.base, token: boot.Token, acct: boot.AccountID}
		sid := largestSession(t, c)
		vars := map[string]any{"id": sid}

		st1, direct := gql(t, store.base, boot.Token, gatewayTree, vars)
		gql(t, gw.base, boot.Token, gatewayTree, vars) // warms the token cache
		// upstream.API calls other than Authenticate (answered from the
		// gateway's token cache, no HTTP call).
		apiCalls := func() float64 {
			return metric(t, gw.base, "okrgate_upstream_calls_total") - metric(t, gw.base, "okrgate_upstream_calls_total", `method="Authenticate"`)
		}
		snapshot := func() calls {
			return calls{apiCalls(), metric(t, gw.base, "okrgate_upstream_http_requests_total"),
				metric(t, gw.base, "okrgate_upstream_split_calls_total"), metric(t, gw.base, "okrgate_upstream_http_retries_total")}
		}
		before := snapshot()
		st2, through := gql(t, gw.base, boot.Token, gatewayTree, vars)
		after := snapshot()
		if st1 != 200 || st2 != 200 || bytes.Contains(direct, []byte(`"errors"`)) {
			t.Fatalf("%d objectives: direct %d %.300s; gateway %d %.300s", n, st1, direct, st2, through)
		}
		if !bytes.Equal(direct, through) {
			t.Errorf("%d objectives: the gateway answered other bytes than the store server (%d vs %d bytes)\n%.500s\n%.500s", n, len(through), len(direct), through, direct)
		}
		k := calls{after.api - before.api, after.http - before.http, after.splits - before.splits, after.retries - before.retries}
		t.Logf("%d objectives: %d bytes; upstream.API calls %v, HTTP calls %v, of which $in splits %v and retries %v", n, len(direct), k.api, k.http, k.splits, k.retries)
		if k.http-k.splits-k.retries != k.api {
			t.Errorf("%d objectives: %v HTTP calls less %v splits and %v retries, want the %v upstream.API calls", n, k.http, k.splits, k.retries, k.api)
		}
		got = append(got, k)
		gw.stop(t)
		store.stop(t)
	}
	if got[0].api != got[1].api || got[0].http-got[0].splits-got[0].retries != got[1].http-got[1].splits-got[1].retries {
		t.Errorf("upstream calls depend on the data size: 100 objectives %+v, 1,000 objectives %+v", got[0], got[1])
	}
}

// TestGatewayUpstreamDown: with the store server stopped, GraphQL through
// the gateway answers with UPSTREAM_UNAVAILABLE and /readyz is 503; with a
// hanging upstream, the request's deadline (--upstream-timeout) holds.
func TestGatewayUpstreamDown(t *testing.T) {
	// A built binary and a database of its own; mostly waiting on them.
	t.Parallel()
	db := filepath.Join(t.TempDir(), "store.db")
	boot := bootstrapDB(t, db, "Acme", "admin@acme.test")
	store := startServer(t, db)
	gw := startServer(t, filepath.Join(t.TempDir(), "unused.db"), "--upstream", store.base)
	q := `{ sessions(first: 5) { totalCount } }`
	if st, body := gql(t, gw.base, boot.Token, q, nil); st != 200 || bytes.Contains(body, []byte(`"errors"`)) {
		t.Fatalf("gateway with the upstream up: %d %s", st, body)
	}
	ready := func(base string) (int, string) {
		resp, err := http.Get(base + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if st, _ := ready(gw.base); st != 200 {
		t.Errorf("/readyz with the upstream up: %d", st)
	}
	store.stop(t)
	for _, token := range []string{boot.Token, "okr_unknown_token_not_cached"} {
		st, body := gql(t, gw.base, token, q, nil)
		if !bytes.Contains(body, []byte(`"UPSTREAM_UNAVAILABLE"`)) {
			t.Errorf("gateway with the upstream down: %d %s", st, body)
		}
	}
	// /readyz answers from a check at most a second old (readyFresh): it
	// turns 503 at the first check after the upstream went down.
	st, rbody := ready(gw.base)
	for deadline := time.Now().Add(10 * time.Second); st == 200 && time.Now().Before(deadline); st, rbody = ready(gw.base) {
		time.Sleep(100 * time.Millisecond)
	}
	if st != 503 || !strings.HasPrefix(rbody, "upstream unavailable") {
		t.Errorf("/readyz with the upstream down: %d %q, want 503 naming the upstream", st, rbody)
	}

	hang := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-hang:
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()
	defer close(hang)
	gw2 := startServer(t, filepath.Join(t.TempDir(), "unused2.db"), "--upstream", slow.URL, "--upstream-timeout", "300ms")
	st, gbody := gql(t, gw2.base, boot.Token, q, nil)
	if !bytes.Contains(gbody, []byte(`"UPSTREAM_UNAVAILABLE"`)) {
		t.Errorf("gateway with a hanging upstream: %d %s", st, gbody)
	}
}

// TestSeedUpstream fills a running server through its REST API
// (okrgate seed --upstream URL --token T).
func TestSeedUpstream(t *testing.T) {
	db := filepath.Join(t.TempDir(), "store.db")
	boot := bootstrapDB(t, db, "Acme", "admin@acme.test")
	store := startServer(t, db)
	out, err := exec.Command(binary, "seed", "--upstream", store.base, "--token", boot.Token, "--goals", "12").Output()
	if err != nil {
		t.Fatalf("seed --upstream: %v", err)
	}
	var sum struct{ Goals, Metrics int }
	if err := json.Unmarshal(out, &sum); err != nil || sum.Goals != 12 || sum.Metrics == 0 {
		t.Fatalf("seed --upstream printed %s (%v)", out, err)
	}
	c := client{t: t, hc: http.DefaultClient, base: store.base, token: boot.Token, acct: boot.AccountID}
	if n := num(c.must("GET", "/api/v2/integrations/goals?limit=1", nil, 200)["totalCount"]); n != 12 {
		t.Errorf("the server holds %v goals after seeding 12", n)
	}
}

// TestGatewayAuthzAndWrites: through the gateway, a viewer's and a member's
// views equal the store server's (the private goal never shows), another
// account's ids find nothing, a check-in updates the ancestors, and a closed
// session refuses writes with the store server's code.
func TestGatewayAuthzAndWrites(t *testing.T) {
	db := filepath.Join(t.TempDir(), "store.db")
	boot := bootstrapDB(t, db, "Acme", "admin@acme.test")
	other := bootstrapDB(t, db, "Globex", "admin@globex.test")
	store := startServer(t, db)
	gw := startServer(t, filepath.Join(t.TempDir(), "unused.db"), "--upstream", store.base)
	admin := client{t: t, hc: http.DefaultClient, base: store.base, token: boot.Token, acct: boot.AccountID}
	user := func(role string) string {
		roles := admin.must("GET", "/api/v2/roles?limit=100", nil, 200)["items"].([]any)
		var roleID any
		for _, r := range roles {
			if r.(map[string]any)["name"] == role {
				roleID = r.(map[string]any)["id"]
			}
		}
		u := admin.must("POST", "/api/v2/users", map[string]any{"email": role + "@acme.test", "firstName": role, "roleIds": []any{roleID}}, 201)
		return admin.must("POST", "/api/v2/users/"+u["id"].(string)+"/tokens", nil, 201)["token"].(string)
	}
	member, viewer := user("member"), user("viewer")
	sess := admin.must("POST", "/api/v1/sessions", map[string]any{"title": "Q1", "start": "2027-01-01", "end": "2027-03-31"}, 201)
	sid := sess["id"].(string)
	root := admin.must("POST", "/api/v1/goals", map[string]any{"name": "Grow", "sessionId": sid, "attainmentTypeString": "average_children"}, 201)
	child := admin.must("POST", "/api/v1/goals", map[string]any{"name": "Sell", "sessionId": sid, "parentId": root["id"], "attainmentTypeString": "average_kr"}, 201)
	secret := admin.must("POST", "/api/v1/goals", map[string]any{"name": "Secret plan", "sessionId": sid, "private": true}, 201)
	m := admin.must("POST", "/api/v1/metrics", map[string]any{"name": "Deals", "goalId": child["id"], "initialValue": 0, "target": 10, "targetOperator": "at_least"}, 201)

	views := `query($id: ID!) { session(id: $id) { id title goals { id name private attainment owners { __typename } } }
	  goals(first: 50) { totalCount nodes { id name } } }`
	for _, who := range []struct{ name, token string }{{"admin", boot.Token}, {"member", member}, {"viewer", viewer}, {"other", other.Token}} {
		st1, direct := gql(t, store.base, who.token, views, map[string]any{"id": sid})
		st2, through := gql(t, gw.base, who.token, views, map[string]any{"id": sid})
		if st1 != st2 || !bytes.Equal(direct, through) {
			t.Errorf("%s: the gateway answered %d %s\nthe store server %d %s", who.name, st2, through, st1, direct)
		}
		if who.name != "admin" && bytes.Contains(through, []byte(secret["id"].(string))) {
			t.Errorf("%s sees the private goal through the gateway: %s", who.name, through)
		}
		if who.name == "other" && bytes.Contains(through, []byte(`"Grow"`)) {
			t.Errorf("another account's admin sees Acme's goals: %s", through)
		}
	}

	// The REST facade of the gateway answers as the store server's.
	for _, path := range []string{
		"/api/v2/integrations/goals?sort=name&fields=name,private,attainment",
		"/api/v1/goals/" + root["id"].(string),
		"/api/v1/goals/" + secret["id"].(string),
		"/api/v2/metrics?filter=" + `%7B%22goalId%22:%22` + child["id"].(string) + `%22%7D`,
	} {
		for _, token := range []string{boot.Token, viewer} {
			st1, direct, _ := client{t: t, hc: http.DefaultClient, base: store.base, token: token, acct: boot.AccountID}.do("GET", path, nil)
			st2, through, _ := client{t: t, hc: http.DefaultClient, base: gw.base, token: token, acct: boot.AccountID}.do("GET", path, nil)
			delete(direct, "requestId")
			delete(through, "requestId")
			a, _ := json.Marshal(direct)
			b, _ := json.Marshal(through)
			if st1 != st2 || !bytes.Equal(a, b) {
				t.Errorf("GET %s: gateway %d %s\nstore server %d %s", path, st2, b, st1, a)
			}
		}
	}

	checkIn := `mutation($m: ID!, $v: Float!) { checkIn(metricId: $m, input: {actual: $v}) { metric { attainment } goal { attainment parent { attainment } } } }`
	// A member who owns nothing may not check in: refused alike.
	_, direct := gql(t, store.base, member, checkIn, map[string]any{"m": m["id"], "v": 5})
	_, through := gql(t, gw.base, member, checkIn, map[string]any{"m": m["id"], "v": 5})
	if !bytes.Contains(through, []byte(`"FORBIDDEN"`)) || !bytes.Equal(direct, through) {
		t.Errorf("a member's check-in: gateway %s, store server %s", through, direct)
	}
	st, body := gql(t, gw.base, boot.Token, checkIn, map[string]any{"m": m["id"], "v": 5})
	if st != 200 || !bytes.Contains(body, []byte(`"goal":{"attainment":0.5,"parent":{"attainment":0.5}}`)) {
		t.Errorf("check-in through the gateway: %d %s", st, body)
	}
	if got := num(admin.must("GET", "/api/v1/goals/"+root["id"].(string), nil, 200)["attainment"]); got != 0.5 {
		t.Errorf("the root's attainment on the store server after the check-in: %v", got)
	}
	admin.must("PATCH", "/api/v1/sessions/"+sid, map[string]any{"status": "closed"}, 200)
	_, direct = gql(t, store.base, boot.Token, checkIn, map[string]any{"m": m["id"], "v": 7})
	_, through = gql(t, gw.base, boot.Token, checkIn, map[string]any{"m": m["id"], "v": 7})
	if !bytes.Contains(through, []byte(`"SESSION_CLOSED"`)) || !bytes.Contains(direct, []byte(`"SESSION_CLOSED"`)) {
		t.Errorf("check-in in a closed session: gateway %s, store server %s", through, direct)
	}
}
