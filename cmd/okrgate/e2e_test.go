package main_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
)

func TestEndToEnd(t *testing.T) {
	hc := conformingClient(t)
	db := filepath.Join(t.TempDir(), "e2e.db")
	boot := bootstrapDB(t, db, "Acme", "admin@acme.test")
	other := bootstrapDB(t, db, "Rival", "admin@rival.test")
	srv := startServer(t, db)
	c := client{t: t, hc: hc, base: srv.base, token: boot.Token, acct: boot.AccountID}

	sess := c.must("POST", "/api/v1/sessions", map[string]any{"title": "Q1 2027", "start": "2027-01-01", "end": "2027-03-31"}, 201)
	sid := sess["id"].(string)
	root := c.must("POST", "/api/v1/goals", map[string]any{"name": "Grow", "sessionId": sid, "attainmentTypeString": "average_children"}, 201)
	child := c.must("POST", "/api/v1/goals", map[string]any{"name": "Sell more", "sessionId": sid, "parentId": root["id"]}, 201)
	kr := c.must("POST", "/api/v1/metrics", map[string]any{"name": "Revenue", "goalId": child["id"], "initialValue": 0, "target": 100, "targetOperator": "at_least"}, 201)
	ci := c.must("POST", "/api/v1/metrics/"+kr["id"].(string)+"/checkin", map[string]any{"actual": 50, "comment": "half way"}, 201)
	if ci["id"] == nil || num(ci["attainment"]) != 0.5 {
		t.Fatalf("check-in = %v", ci)
	}
	if m := c.must("GET", "/api/v1/metrics/"+kr["id"].(string), nil, 200); num(m["attainment"]) != 0.5 {
		t.Errorf("key result attainment = %v", m["attainment"])
	}
	for _, id := range []any{child["id"], root["id"]} {
		g := c.must("GET", "/api/v1/goals/"+id.(string), nil, 200)
		if num(g["attainment"]) != 0.5 || num(g["fullAggregatedAttainment"]) != 0.5 {
			t.Errorf("goal %s: attainment %v full %v, want 0.5", g["name"], g["attainment"], g["fullAggregatedAttainment"])
		}
	}
	snap := c.must("GET", "/api/v1/metrics/checkin/"+ci["id"].(string), nil, 200)
	if num(snap["actual"]) != 50 {
		t.Errorf("snapshot = %v", snap)
	}
	hist := c.must("GET", "/api/v1/metrics/"+kr["id"].(string)+"/checkins", nil, 200)
	if num(hist["totalCount"]) != 1 {
		t.Errorf("history = %v", hist)
	}

	// Listing with filter, sort and nested projection.
	list := c.must("GET", `/api/v2/integrations/goals?filter={sessionId:"`+sid+`"}&sort=-name&fields=name,metrics{name,attainment}`, nil, 200)
	items := list["items"].([]any)
	if num(list["totalCount"]) != 2 || items[0].(map[string]any)["name"] != "Sell more" {
		t.Fatalf("list = %v", list)
	}
	first := items[0].(map[string]any)
	if _, ok := first["attainment"]; ok {
		t.Errorf("projection leaked attainment: %v", first)
	}
	if ms := first["metrics"].([]any); len(ms) != 1 || ms[0].(map[string]any)["name"] != "Revenue" {
		t.Errorf("embedded metrics = %v", first["metrics"])
	}
	if c.must("GET", "/api/v2/metrics?filter={goalId:\""+child["id"].(string)+"\"}", nil, 200)["totalCount"] != 1.0 {
		t.Error("metrics listing by goalId")
	}
	_, _, hdr := c.do("GET", "/api/v1/metrics/owner/"+boot.UserID, nil)
	if hdr.Get("Deprecation") == "" || !strings.Contains(hdr.Get("Link"), "successor-version") {
		t.Errorf("deprecated route headers: %v", hdr)
	}

	// Tasks.
	task := c.must("POST", "/api/v2/integrations/tasks", map[string]any{"name": "Call customers", "parentId": child["id"], "parentType": "goal", "status": "todo", "dueDate": "2027-02-01"}, 201)
	tid := task["id"].(string)
	if upd := c.must("PATCH", "/api/v2/integrations/tasks/"+tid, map[string]any{"status": "done"}, 200); upd["status"] != "done" {
		t.Errorf("task update = %v", upd)
	}
	if g := c.must("GET", "/api/v1/goals/"+child["id"].(string), nil, 200); num(g["tasksCount"]) != 1 {
		t.Errorf("tasksCount = %v", g["tasksCount"])
	}
	c.must("DELETE", "/api/v2/integrations/tasks/"+tid, nil, 204)
	c.must("GET", "/api/v2/integrations/tasks/"+tid, nil, 404)

	// Tags, grouping, stats.
	c.must("POST", "/api/v2/integrations/goals/"+child["id"].(string)+"/tags", map[string]any{"title": " Growth "}, 201)
	if code, _, _ := c.do("POST", "/api/v2/integrations/goals/"+child["id"].(string)+"/tags", map[string]any{"title": "growth"}); code != 304 {
		t.Errorf("re-tagging answered %d, want 304", code)
	}
	grouped := c.must("GET", "/api/v2/integrations/goals/groupBy/owners?includeMetrics=true", nil, 200)
	if num(grouped["totalCount"]) != 1 {
		t.Errorf("groupBy = %v", grouped)
	}
	c.must("POST", "/api/v1/metrics/"+kr["id"].(string)+"/checkin", map[string]any{"actual": 100}, 201)
	met := c.must("GET", "/api/v1/sessions/"+sid+"/stats/goalsMet?tags=GROWTH", nil, 200)
	if len(met["items"].([]any)) != 1 {
		t.Errorf("goalsMet = %v", met)
	}

	// Bad input answers 4xx with a problem body, and writes nothing.
	before := num(c.must("GET", "/api/v2/integrations/goals", nil, 200)["totalCount"])
	bad := []struct {
		name, method, path string
		body               any
		want               int
		client             client
	}{
		{"malformed JSON", "POST", "/api/v1/goals", `{"name": `, 400, c},
		{"wrong type", "POST", "/api/v1/goals", `{"name": 5, "sessionId": "` + sid + `"}`, 400, c},
		{"unknown field", "POST", "/api/v1/goals", `{"name": "x", "sessionId": "` + sid + `", "bogus": 1}`, 400, c},
		{"bad date", "POST", "/api/v1/goals", `{"name": "x", "sessionId": "` + sid + `", "dateFrom": "yesterday"}`, 400, c},
		{"missing session", "POST", "/api/v1/goals", `{"name": "x"}`, 400, c},
		{"$where", "GET", `/api/v2/integrations/goals?filter={"$where":"1"}`, nil, 400, c},
		{"unknown filter field", "GET", `/api/v2/integrations/goals?filter={"nmae":"x"}`, nil, 400, c},
		{"limit 5000", "GET", "/api/v2/integrations/goals?limit=5000", nil, 400, c},
		{"unknown parameter", "GET", "/api/v2/integrations/goals?colour=red", nil, 400, c},
		{"missing token", "GET", "/api/v2/integrations/goals", nil, 401, client{t: t, hc: hc, base: srv.base, acct: boot.AccountID}},
		{"bad token", "GET", "/api/v2/integrations/goals", nil, 401, client{t: t, hc: hc, base: srv.base, token: "okr_nope", acct: boot.AccountID}},
		{"missing account header", "GET", "/api/v2/integrations/goals", nil, 400, client{t: t, hc: hc, base: srv.base, token: boot.Token}},
		{"other account header", "GET", "/api/v2/integrations/goals", nil, 403, client{t: t, hc: hc, base: srv.base, token: boot.Token, acct: other.AccountID}},
		{"other account's goal", "GET", "/api/v1/goals/" + root["id"].(string), nil, 404, client{t: t, hc: hc, base: srv.base, token: other.Token, acct: other.AccountID}},
		{"other account's goal patch", "PATCH", "/api/v1/goals/" + root["id"].(string), `{"name":"pwned"}`, 404, client{t: t, hc: hc, base: srv.base, token: other.Token, acct: other.AccountID}},
		{"check-in without actual", "POST", "/api/v1/metrics/" + kr["id"].(string) + "/checkin", `{"comment":"x"}`, 400, c},
		{"cycle", "PATCH", "/api/v1/goals/" + root["id"].(string), `{"parentId":"` + child["id"].(string) + `"}`, 400, c},
	}
	for _, b := range bad {
		code, body, _ := b.client.do(b.method, b.path, b.body)
		if code != b.want {
			t.Errorf("%s: status %d, want %d (%v)", b.name, code, b.want, body)
		}
	}
	if after := num(c.must("GET", "/api/v2/integrations/goals", nil, 200)["totalCount"]); after != before {
		t.Errorf("goals before bad input %v, after %v", before, after)
	}
	if g := c.must("GET", "/api/v1/goals/"+root["id"].(string), nil, 200); g["name"] != "Grow" || g["parentId"] != "" {
		t.Errorf("root changed by rejected writes: %v", g)
	}

	// SIGTERM exits 0; data written before the restart is there after it.
	srv.stop(t)
	srv2 := startServer(t, db)
	c2 := client{t: t, hc: hc, base: srv2.base, token: boot.Token, acct: boot.AccountID}
	g := c2.must("GET", "/api/v1/goals/"+root["id"].(string), nil, 200)
	if g["name"] != "Grow" || num(g["attainment"]) != 1 {
		t.Errorf("after restart: %v", g)
	}
	srv2.stop(t)
}

func TestServeDemo(t *testing.T) {
	hc := conformingClient(t)
	db := filepath.Join(t.TempDir(), "demo.db")
	cmd := exec.Command(binary, "serve", "--demo", "--db", db, "--addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0")
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	sc := bufio.NewScanner(stdout)
	var base, token, acct string
	for sc.Scan() && (base == "" || token == "" || acct == "") {
		l := sc.Text()
		if r, ok := strings.CutPrefix(l, "okrgate listening on "); ok {
			base = strings.Fields(r)[0]
		}
		if r, ok := strings.CutPrefix(l, "demo admin token: "); ok {
			token = strings.Fields(r)[0]
		}
		if r, ok := strings.CutPrefix(l, "demo account:"); ok {
			acct = strings.TrimSpace(r)
		}
	}
	go io.Copy(io.Discard, stdout)
	c := client{t: t, hc: hc, base: base, token: token, acct: acct}
	goals := c.must("GET", "/api/v2/integrations/goals?limit=1000&fields=name,parentId,fullSubTreeCount", nil, 200)
	if n := num(goals["totalCount"]); n < 8 {
		t.Fatalf("demo has %v goals", n)
	}
	deepest := 0.0
	for _, it := range goals["items"].([]any) {
		deepest = max(deepest, num(it.(map[string]any)["fullSubTreeCount"]))
	}
	if deepest < 6 {
		t.Errorf("demo tree is too small: largest subtree %v", deepest)
	}
	if n := num(c.must("GET", "/api/v2/sessions", nil, 200)["totalCount"]); n != 2 {
		t.Errorf("demo sessions = %v", n)
	}
	if n := num(c.must("GET", "/api/v2/teams", nil, 200)["totalCount"]); n != 3 {
		t.Errorf("demo teams = %v", n)
	}
	if n := num(c.must("GET", "/api/v2/users", nil, 200)["totalCount"]); n != 12 {
		t.Errorf("demo users = %v", n)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Errorf("exit after SIGTERM: %v", err)
	}
}

// TestAccountSuspend suspends and resumes an account with the binary while
// a server runs on the same database: its tokens get 402 in between, the
// other account is untouched.
func TestAccountSuspend(t *testing.T) {
	hc := conformingClient(t)
	db := filepath.Join(t.TempDir(), "suspend.db")
	boot := bootstrapDB(t, db, "Acme", "admin@acme.test")
	other := bootstrapDB(t, db, "Rival", "admin@rival.test")
	srv := startServer(t, db)
	defer srv.stop(t)
	c := client{t: t, hc: hc, base: srv.base, token: boot.Token, acct: boot.AccountID}
	o := client{t: t, hc: hc, base: srv.base, token: other.Token, acct: other.AccountID}
	admin := func(want string, args ...string) {
		t.Helper()
		out, err := exec.Command(binary, append([]string{"account"}, args...)...).CombinedOutput()
		if err != nil || !strings.Contains(string(out), want) {
			t.Fatalf("okrgate account %v: %v: %s", args, err, out)
		}
	}
	c.must("GET", "/api/v2/sessions", nil, 200)
	admin("suspended", "suspend", "--db", db, "--id", boot.AccountID)
	if p := c.must("GET", "/api/v2/sessions", nil, 402); p["code"] != "account_suspended" {
		t.Errorf("suspended account: %v", p)
	}
	o.must("GET", "/api/v2/sessions", nil, 200)
	admin("active", "resume", "--db", db, "--id", boot.AccountID)
	c.must("GET", "/api/v2/sessions", nil, 200)

	for _, args := range [][]string{{"account"}, {"account", "freeze"}, {"account", "suspend", "--db", db}} {
		if out, err := exec.Command(binary, args...).CombinedOutput(); err == nil || !strings.Contains(string(out), "usage") && !strings.Contains(string(out), "required") {
			t.Errorf("okrgate %v: %v: %s", args, err, out)
		}
	}
	out, err := exec.Command(binary, "account", "suspend", "--db", db, "--id", "000000000000000000000000").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "not found") {
		t.Errorf("unknown account: %v: %s", err, out)
	}
}

// TestCORS: with --cors-origins, a listed origin's preflight for a GraphQL
// POST and for a REST PATCH is answered, and its actual requests carry the
// CORS headers; another origin gets none. Without the flag nothing is added.
func TestCORS(t *testing.T) {
	db := filepath.Join(t.TempDir(), "cors.db")
	boot := bootstrapDB(t, db, "Acme", "admin@acme.test")
	srv := startServer(t, db, "--cors-origins", "https://app.example, https://*.acme.example")
	defer srv.stop(t)
	send := func(base, method, path, origin string, hdr map[string]string) *http.Response {
		t.Helper()
		req, err := http.NewRequest(method, base+path, strings.NewReader(`{"query":"{ viewer { email } }"}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Origin", origin)
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	preflight := func(base, path, origin, method string) *http.Response {
		return send(base, "OPTIONS", path, origin, map[string]string{
			"Access-Control-Request-Method":  method,
			"Access-Control-Request-Headers": "authorization,content-type,service-accountid,gtmhub-accountid",
		})
	}
	for _, origin := range []string{"https://app.example", "https://eu.acme.example"} {
		for path, method := range map[string]string{"/graphql": "POST", "/api/v1/goals/" + strings.Repeat("0", 24): "PATCH"} {
			r := preflight(srv.base, path, origin, method)
			if r.StatusCode != 200 || r.Header.Get("Access-Control-Allow-Origin") != origin ||
				!strings.Contains(r.Header.Get("Access-Control-Allow-Methods"), method) ||
				!strings.Contains(strings.ToLower(r.Header.Get("Access-Control-Allow-Headers")), "service-accountid") ||
				!strings.Contains(strings.ToLower(r.Header.Get("Access-Control-Allow-Headers")), "gtmhub-accountid") {
				t.Errorf("preflight %s %s from %s: %d %v", method, path, origin, r.StatusCode, r.Header)
			}
		}
	}
	auth := map[string]string{"Authorization": "Bearer " + boot.Token, "Content-Type": "application/json"}
	r := send(srv.base, "POST", "/graphql", "https://app.example", auth)
	if r.StatusCode != 200 || r.Header.Get("Access-Control-Allow-Origin") != "https://app.example" ||
		!strings.Contains(r.Header.Get("Access-Control-Expose-Headers"), "X-Request-Id") {
		t.Errorf("GraphQL POST from a listed origin: %d %v", r.StatusCode, r.Header)
	}
	if r := preflight(srv.base, "/graphql", "https://evil.example", "POST"); r.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("preflight from an unlisted origin allowed: %v", r.Header)
	}
	if r := send(srv.base, "POST", "/graphql", "https://evil.example", auth); r.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("request from an unlisted origin allowed: %v", r.Header)
	}

	// Subscriptions: an SSE stream is a POST under the same CORS, and a
	// websocket upgrade (which browsers do not submit to CORS) is checked
	// against the same origins.
	sse := func(origin string) *http.Response {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, "POST", srv.base+"/graphql",
			strings.NewReader(`{"query":"subscription { checkInCreated { id } }"}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Origin", origin)
		req.Header.Set("Accept", "text/event-stream")
		for k, v := range auth {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	if r := sse("https://app.example"); r.StatusCode != 200 || r.Header.Get("Access-Control-Allow-Origin") != "https://app.example" ||
		!strings.HasPrefix(r.Header.Get("Content-Type"), "text/event-stream") {
		t.Errorf("SSE from a listed origin: %d %v", r.StatusCode, r.Header)
	}
	if r := sse("https://evil.example"); r.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("SSE from an unlisted origin allowed: %v", r.Header)
	}
	upgrade := func(base, origin string) int {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		h := http.Header{}
		if origin != "" {
			h.Set("Origin", origin)
		}
		conn, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(base, "http")+"/graphql",
			&websocket.DialOptions{Subprotocols: []string{"graphql-transport-ws"}, HTTPHeader: h})
		if err == nil {
			conn.Close(websocket.StatusNormalClosure, "")
			return resp.StatusCode
		}
		if resp == nil {
			t.Fatalf("websocket from %q: %v", origin, err)
		}
		return resp.StatusCode
	}
	for origin, want := range map[string]int{"https://app.example": 101, "https://EU.acme.example": 101, srv.base: 101, "": 101,
		"https://evil.example": 403, "https://acme.example": 403, "null": 403} {
		if got := upgrade(srv.base, origin); got != want {
			t.Errorf("websocket upgrade from origin %q: HTTP %d, want %d", origin, got, want)
		}
	}

	plain := startServer(t, db)
	defer plain.stop(t)
	if r := preflight(plain.base, "/graphql", "https://app.example", "POST"); r.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("CORS without --cors-origins: %v", r.Header)
	}
	for origin, want := range map[string]int{"https://app.example": 403, plain.base: 101} {
		if got := upgrade(plain.base, origin); got != want {
			t.Errorf("without --cors-origins, websocket upgrade from origin %q: HTTP %d, want %d", origin, got, want)
		}
	}
}

// TestBackup copies a database while a server writes to it: a server on
// the copy has what was written before the backup and not what came after.
func TestBackup(t *testing.T) {
	hc := conformingClient(t)
	dir := t.TempDir()
	db, copyDB := filepath.Join(dir, "live.db"), filepath.Join(dir, "copy.db")
	boot := bootstrapDB(t, db, "Acme", "admin@acme.test")
	srv := startServer(t, db)
	defer srv.stop(t)
	c := client{t: t, hc: hc, base: srv.base, token: boot.Token, acct: boot.AccountID}
	sess := c.must("POST", "/api/v1/sessions", map[string]any{"title": "Q1", "start": "2027-01-01", "end": "2027-03-31"}, 201)
	before := c.must("POST", "/api/v1/goals", map[string]any{"name": "Before", "sessionId": sess["id"]}, 201)
	if out, err := exec.Command(binary, "backup", "--db", db, "--to", copyDB).CombinedOutput(); err != nil || !strings.Contains(string(out), "backed up") {
		t.Fatalf("backup: %v: %s", err, out)
	}
	after := c.must("POST", "/api/v1/goals", map[string]any{"name": "After", "sessionId": sess["id"]}, 201)
	if out, err := exec.Command(binary, "backup", "--db", db, "--to", copyDB).CombinedOutput(); err == nil || !strings.Contains(string(out), "already exists") {
		t.Errorf("backup over an existing file: %v: %s", err, out)
	}

	restored := startServer(t, copyDB)
	defer restored.stop(t)
	rc := client{t: t, hc: hc, base: restored.base, token: boot.Token, acct: boot.AccountID}
	if g := rc.must("GET", "/api/v1/goals/"+before["id"].(string), nil, 200); g["name"] != "Before" {
		t.Errorf("restored goal: %v", g)
	}
	rc.must("GET", "/api/v1/goals/"+after["id"].(string), nil, 404)
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{{"nope"}, {"--bogus"}, {"serve", "--bogus"}, {"bootstrap", "--create", "--db", filepath.Join(t.TempDir(), "x.db"), "--account", "", "--email", "x"}} {
		cmd := exec.Command(binary, args...)
		out, err := cmd.CombinedOutput()
		if err == nil {
			t.Errorf("okrgate %v succeeded", args)
		}
		if len(out) == 0 {
			t.Errorf("okrgate %v printed nothing", args)
		}
	}
}

// TestServeGraphQL: the binary serves GraphQL over the same data as REST,
// the playground page and Prometheus metrics that count upstream calls and
// store queries.
func TestServeGraphQL(t *testing.T) {
	hc := conformingClient(t)
	db := filepath.Join(t.TempDir(), "gql.db")
	boot := bootstrapDB(t, db, "Acme", "admin@acme.test")
	srv := startServer(t, db)
	c := client{t: t, hc: hc, base: srv.base, token: boot.Token, acct: boot.AccountID}
	sess := c.must("POST", "/api/v1/sessions", map[string]any{"title": "Q1", "start": "2027-01-01", "end": "2027-03-31"}, 201)
	root := c.must("POST", "/api/v1/goals", map[string]any{"name": "Grow", "sessionId": sess["id"]}, 201)
	c.must("POST", "/api/v1/goals", map[string]any{"name": "Sell", "sessionId": sess["id"], "parentId": root["id"]}, 201)

	gql := func(query string, vars map[string]any) map[string]any {
		t.Helper()
		body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
		req, _ := http.NewRequest("POST", srv.base+"/graphql", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+boot.Token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out["errors"] != nil {
			t.Fatalf("GraphQL answered %d: %v (%v)", resp.StatusCode, out, err)
		}
		return out["data"].(map[string]any)
	}
	data := gql(`query($id: ID!) { session(id: $id) { title goals(roots: true) { name children { name } } } }`, map[string]any{"id": sess["id"]})
	s := data["session"].(map[string]any)
	goals := s["goals"].([]any)
	if len(goals) != 1 || goals[0].(map[string]any)["name"] != "Grow" ||
		goals[0].(map[string]any)["children"].([]any)[0].(map[string]any)["name"] != "Sell" {
		t.Fatalf("session tree = %v", s)
	}
	// Custom scalars say what they serialize to (introspection's specifiedByURL).
	for _, scalar := range []string{"Date", "DateTime", "JSON"} {
		ty, _ := gql(`query($n: String!) { __type(name: $n) { kind specifiedByURL } }`, map[string]any{"n": scalar})["__type"].(map[string]any)
		if url, _ := ty["specifiedByURL"].(string); ty["kind"] != "SCALAR" || !strings.HasPrefix(url, "https://www.rfc-editor.org/") {
			t.Errorf("scalar %s: %v", scalar, ty)
		}
	}

	resp, err := http.Get(srv.base + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(page), "/graphql") {
		t.Errorf("playground: %d %.200s", resp.StatusCode, page)
	}
	resp, err = http.Get(srv.metrics)
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{`okrgate_upstream_calls_total{facade="graphql",method="ListGoals"}`, "okrgate_store_queries_total", "okrgate_graphql_requests_total"} {
		if !strings.Contains(string(metrics), want) {
			t.Errorf("/metrics does not mention %q", want)
		}
	}
	srv.stop(t)
}
