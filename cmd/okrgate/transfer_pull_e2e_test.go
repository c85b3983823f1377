package main_test

import (
	"bytes"
	"encoding/json"
	"image"
	"image/png"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/okrgate/okrgate/upstream/backend/sqlstore/sqlstoretest"
)

// faultyProxy stands between a pull and its source: it answers one request
// with 429 and a Retry-After, and while dead it drops every connection, as
// a source that went away midway.
type faultyProxy struct {
	rp *httputil.ReverseProxy
	mu sync.Mutex
	n  int
	// throttle is the request answered 429; dieAt the first request
	// dropped while dead.
	throttle, dieAt int
	dead            bool
	throttled       int
}

func (p *faultyProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	p.n++
	n := p.n
	if p.dieAt > 0 && n >= p.dieAt {
		p.dead = true
	}
	dead := p.dead
	p.mu.Unlock()
	switch {
	case dead:
		if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
			conn.Close()
		}
	case n == p.throttle:
		p.mu.Lock()
		p.throttled++
		p.mu.Unlock()
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(http.StatusTooManyRequests)
	default:
		p.rp.ServeHTTP(w, r)
	}
}

func (p *faultyProxy) heal() {
	p.mu.Lock()
	p.dead, p.dieAt = false, 0
	p.mu.Unlock()
}

// TestPullAccountE2E reads a seeded account (check-in history, a tagged
// objective, an uploaded picture) from a running okrgate through its REST
// API with okrgate import --from, into SQLite and, with
// OKRGATE_TEST_POSTGRES, PostgreSQL. The source answers 429 once and then
// dies midway; the pull waits out the 429, fails when the source is gone,
// and run again resumes from its spool. The target then answers the REST
// listings, the picture and a GraphQL tree byte for byte as the source does.
func TestPullAccountE2E(t *testing.T) {
	// A built binary and a database of its own; mostly waiting on them.
	t.Parallel()
	dir := t.TempDir()
	src := filepath.Join(dir, "src.db")
	b := bootstrapDB(t, src, "Pulled Co", "admin@pulled.test")
	if out, err := exec.Command(binary, "seed", "--db", src, "--account", b.AccountID, "--goals", "60").CombinedOutput(); err != nil {
		t.Fatalf("seed: %v\n%s", err, out)
	}
	// The source's per-token limit is raised: besides three pulls the test
	// reads every item from the source to compare, far more than a
	// client's 600 a minute. The pull's waiting out a 429 is the proxy's
	// (throttle above).
	a := startServer(t, src, "--rate-limit", "token=100000/1m,address=100000/1m,auth-failures=20/1m")
	call := func(base, token, method, path, ctype string, body []byte) (int, []byte) {
		t.Helper()
		req, _ := http.NewRequest(method, base+path, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("service-accountId", b.AccountID)
		if ctype != "" {
			req.Header.Set("Content-Type", ctype)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, out
	}
	// A tagged objective and an uploaded picture, through the API.
	_, raw := call(a.base, b.Token, "GET", "/api/v1/sessions", "", nil)
	var ss struct {
		Items []struct{ ID string } `json:"items"`
	}
	if err := json.Unmarshal(raw, &ss); err != nil || len(ss.Items) == 0 {
		t.Fatalf("sessions: %v %s", err, raw)
	}
	goal, _ := json.Marshal(map[string]any{"name": "Tagged", "sessionId": ss.Items[0].ID, "tags": []map[string]string{{"title": "moved"}}})
	if code, out := call(a.base, b.Token, "POST", "/api/v1/goals", "application/json", goal); code != 201 {
		t.Fatalf("create a tagged goal: %d %s", code, out)
	}
	var pic bytes.Buffer
	png.Encode(&pic, image.NewRGBA(image.Rect(0, 0, 4, 4)))
	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	part, _ := mw.CreateFormFile("file", "me.png")
	part.Write(pic.Bytes())
	mw.Close()
	if code, out := call(a.base, b.Token, "POST", "/api/v1/fileserver/avatar/"+b.UserID, mw.FormDataContentType(), form.Bytes()); code != 200 {
		t.Fatalf("upload a picture: %d %s", code, out)
	}

	hook := []byte(`{"url":"https://hooks.pulled.test/okr","events":["*"],"description":"to the chat"}`)
	if code, out := call(a.base, b.Token, "POST", "/api/v1/webhooks", "application/json", hook); code != 201 {
		t.Fatalf("create a webhook: %d %s", code, out)
	}

	// A key result renamed after its check-ins: their snapshots keep the
	// name it had.
	_, raw = call(a.base, b.Token, "GET", "/api/v2/checkins?limit=1&sort=id", "", nil)
	var cis struct {
		Items []struct{ MetricID string } `json:"items"`
	}
	if err := json.Unmarshal(raw, &cis); err != nil || len(cis.Items) == 0 {
		t.Fatalf("check-ins: %v %s", err, raw)
	}
	if code, out := call(a.base, b.Token, "PATCH", "/api/v1/metrics/"+cis.Items[0].MetricID, "application/json", []byte(`{"name":"Renamed after its check-ins"}`)); code != 200 {
		t.Fatalf("rename a key result: %d %s", code, out)
	}

	content := addContent(t, func(method, path string, body any) (int, []byte) {
		var raw []byte
		ctype := ""
		if body != nil {
			raw, _ = json.Marshal(body)
			ctype = "application/json"
		}
		return call(a.base, b.Token, method, path, ctype, raw)
	}, b.UserID)

	target, _ := url.Parse(a.base)
	proxy := &faultyProxy{rp: httputil.NewSingleHostReverseProxy(target), throttle: 4, dieAt: 12}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ps := &http.Server{Handler: proxy}
	go ps.Serve(ln)
	t.Cleanup(func() { ps.Close() })
	from := "http://" + ln.Addr().String()

	pull := func(db, spool string) (string, error) {
		out, err := exec.Command(binary, "import", "--db", db, "--create", "--from", from, "--token", b.Token,
			"--account", b.AccountID, "--spool", spool, "--page-size", "20").CombinedOutput()
		return string(out), err
	}
	dsts := []string{filepath.Join(dir, "dst.db")}
	if os.Getenv("OKRGATE_TEST_POSTGRES") != "" {
		dsts = append(dsts, sqlstoretest.PostgresURL(t))
	}
	for i, dst := range dsts {
		spool := filepath.Join(dir, "spool")
		if i == 0 {
			out, err := pull(dst, spool)
			if err == nil || !strings.Contains(out, "nothing was imported") || !strings.Contains(out, "run the same command again to resume") {
				t.Fatalf("a pull from a source that died midway: %v\n%s", err, out)
			}
			if proxy.throttled != 1 || strings.Contains(out, "429") {
				t.Fatalf("the 429 was answered %d times and not waited out:\n%s", proxy.throttled, out)
			}
			proxy.heal()
		}
		out, err := pull(dst, spool)
		if err != nil || !strings.Contains(out, "61 objectives' figures recomputed and equal") || strings.Contains(out, "differed") {
			t.Fatalf("pull into %s: %v\n%s", dst, err, out)
		}
		if i == 0 && (!strings.Contains(out, "of them kept from an earlier run") || strings.Contains(out, " 0 of them kept")) {
			t.Fatalf("the second run did not resume from the spool:\n%s", out)
		}
		for _, want := range []string{"avatars 1", "item_tags 2", "tags 2", "webhooks 1", "role_mappings 1", "dashboards 2", "dashboard_parameters 1",
			"badges 1", "badge_assignments 2", "kpi_groups 2", "kpi_favorites 1", "kpis 1", "lists 1", "announcements 1",
			"not in the file: API tokens", "not in the file: webhook signing secrets", "not in the file: dashboards' creators", "not in the file: identity-provider bindings"} {
			if !strings.Contains(out, want) {
				t.Errorf("pull into %s: the report lacks %q:\n%s", dst, want, out)
			}
		}
		sameContent(t, exportedRows(t, src, b.AccountID, contentTables), exportedRows(t, dst, b.AccountID, contentTables))
		if _, err := os.Stat(spool); !os.IsNotExist(err) {
			t.Errorf("the spool is left after a successful pull: %v", err)
		}
		if out, err := pull(dst, spool); err == nil || !strings.Contains(out, "the account exists") {
			t.Errorf("a second pull into %s: %v\n%s", dst, err, out)
		}

		tok, err := exec.Command(binary, "token", "create", "--db", dst, "--account", b.AccountID, "--json").Output()
		var minted struct{ Token string }
		if err != nil || json.Unmarshal(tok, &minted) != nil || minted.Token == "" {
			t.Fatalf("token create: %v %s", err, tok)
		}
		token := minted.Token
		z := startServer(t, dst)
		for _, path := range append([]string{
			"/api/v2/integrations/goals?limit=1000&sort=name&fields=id,name,attainment,aggregatedAttainment,fullAggregatedAttainment,childrenCount,subTreeCount,tags,assignee,ownerIds,parentId,metricsCount,currentUserAllowedActions",
			"/api/v2/goals?limit=1000",
			"/api/v2/metrics?limit=1000",
			"/api/v2/checkins?limit=1000",
			"/api/v1/sessions",
			"/api/v2/integrations/tasks?limit=1000",
			"/api/v2/users",
			"/api/v2/teams",
			"/api/v2/integrations/tags?name=",
			"/api/v2/users/" + b.UserID,
		}, content...) {
			ca, ba := call(a.base, b.Token, "GET", path, "", nil)
			cz, bz := call(z.base, token, "GET", path, "", nil)
			if ca != 200 || cz != ca || !bytes.Equal(ba, bz) {
				t.Errorf("GET %s: source %d %.300s\ntarget %d %.300s", path, ca, ba, cz, bz)
			}
		}
		var hooks struct {
			Items []struct {
				URL, Description string
				Active           bool
			}
		}
		_, raw := call(z.base, token, "GET", "/api/v1/webhooks", "", nil)
		if json.Unmarshal(raw, &hooks); len(hooks.Items) != 1 || hooks.Items[0].URL != "https://hooks.pulled.test/okr" || hooks.Items[0].Active {
			t.Errorf("the moved webhooks: %s, want the source's one, inactive (its secret stays behind)", raw)
		}
		var me struct{ Picture string }
		_, raw = call(z.base, token, "GET", "/api/v2/users/"+b.UserID, "", nil)
		if json.Unmarshal(raw, &me); me.Picture == "" {
			t.Fatalf("the moved user has no picture: %s", raw)
		}
		if code, got := call(z.base, token, "GET", me.Picture, "", nil); code != 200 || !bytes.Equal(got, pic.Bytes()) {
			t.Errorf("the moved picture: %d, %d bytes, want the %d uploaded", code, len(got), pic.Len())
		}
		tree := []byte(`{"query":"{ sessions(first: 5) { nodes { title goals(roots: true) { id name attainment tags { title } children { id attainment metrics { id attainment checkins { actual } } } } } } }"}`)
		_, ga := call(a.base, b.Token, "POST", "/graphql", "application/json", tree)
		_, gz := call(z.base, token, "POST", "/graphql", "application/json", tree)
		if !bytes.Equal(ga, gz) || bytes.Contains(ga, []byte(`"errors"`)) {
			t.Errorf("the GraphQL tree differs:\nsource %.300s\ntarget %.300s", ga, gz)
		}
		sameSnapshots(t, func(path string) (int, []byte) { return call(a.base, b.Token, "GET", path, "", nil) },
			func(path string) (int, []byte) { return call(z.base, token, "GET", path, "", nil) })
	}

	// An okrgate without GET /api/v2/checkins/snapshots (an older one): the
	// pull reads each check-in's snapshot on its own, and they agree too.
	legacy := hidingProxy(t, target, func(p string) bool { return p != "/api/v2/checkins/snapshots" })
	ldst := filepath.Join(dir, "legacy.db")
	out, err := exec.Command(binary, "import", "--db", ldst, "--create", "--from", legacy, "--token", b.Token,
		"--account", b.AccountID, "--spool", filepath.Join(dir, "legacy-spool")).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "61 objectives' figures recomputed and equal") || strings.Contains(string(out), "differed") {
		t.Fatalf("pull from an okrgate without the snapshots' listing: %v\n%s", err, out)
	}
	ltok, err := exec.Command(binary, "token", "create", "--db", ldst, "--account", b.AccountID, "--json").Output()
	var lminted struct{ Token string }
	if err != nil || json.Unmarshal(ltok, &lminted) != nil {
		t.Fatalf("token create: %v %s", err, ltok)
	}
	lz := startServer(t, ldst)
	sameSnapshots(t, func(path string) (int, []byte) { return call(a.base, b.Token, "GET", path, "", nil) },
		func(path string) (int, []byte) { return call(lz.base, lminted.Token, "GET", path, "", nil) })

	// A source like the real platform: none of okrgate's designed listings
	// (check-ins, taggings, grants) in its OpenAPI document. The pull moves
	// the rest, names what it could not read, and the objectives' figures,
	// recomputed from the key results' current values, equal the source's.
	platform := hidingProxy(t, target, func(p string) bool {
		return strings.HasPrefix(p, "/api/v1/") || p == "/api/v2/goals" || p == "/api/v2/users" || p == "/api/openapi.json"
	})
	dst := filepath.Join(dir, "platform.db")
	out, err = exec.Command(binary, "import", "--db", dst, "--create", "--from", platform, "--token", b.Token,
		"--account", b.AccountID, "--spool", filepath.Join(dir, "platform-spool")).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "61 objectives' figures recomputed and equal") {
		t.Fatalf("pull from a platform-like source: %v\n%s", err, out)
	}
	for _, want := range []string{"not in the file: check-in history", "not in the file: tags on objectives", "not in the file: grants", "not in the file: badge assignments"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the report of a platform-like pull lacks %q:\n%s", want, out)
		}
	}
	tok, err := exec.Command(binary, "token", "create", "--db", dst, "--account", b.AccountID, "--json").Output()
	var minted struct{ Token string }
	if err != nil || json.Unmarshal(tok, &minted) != nil {
		t.Fatalf("token create: %v %s", err, tok)
	}
	z := startServer(t, dst)
	for _, path := range []string{
		"/api/v2/integrations/goals?limit=1000&sort=name&fields=id,name,attainment,aggregatedAttainment,fullAggregatedAttainment,childrenCount,subTreeCount,assignee,ownerIds,parentId,metricsCount",
		"/api/v2/metrics?limit=1000",
		"/api/v1/sessions",
		"/api/v2/users",
		"/api/v1/roles/account/mapping/",
		"/api/v1/dashboards/parameters",
		"/api/v1/badges",
		"/api/v1/kpis/groups",
		"/api/v1/kpis",
		"/api/v1/lists",
		"/api/v1/announcements",
	} {
		ca, ba := call(a.base, b.Token, "GET", path, "", nil)
		cz, bz := call(z.base, minted.Token, "GET", path, "", nil)
		if ca != 200 || cz != ca || !bytes.Equal(ba, bz) {
			t.Errorf("platform-like pull, GET %s: source %d %.300s\ntarget %d %.300s", path, ca, ba, cz, bz)
		}
	}
}

// hidingProxy serves target with an OpenAPI document that names only the
// paths keep keeps, as a server that lacks the others would (the client
// then falls back as it would there); it returns the proxy's base URL.
func hidingProxy(t *testing.T, target *url.URL, keep func(path string) bool) string {
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.ModifyResponse = func(resp *http.Response) error {
		if resp.Request.URL.Path != "/api/openapi.json" {
			return nil
		}
		var doc map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
			return err
		}
		resp.Body.Close()
		paths := doc["paths"].(map[string]any)
		for p := range paths {
			if !keep(p) {
				delete(paths, p)
			}
		}
		b, _ := json.Marshal(doc)
		resp.Body = io.NopCloser(bytes.NewReader(b))
		resp.ContentLength = int64(len(b))
		resp.Header.Del("Content-Length")
		return nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: rp}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}

// sameSnapshots compares, check-in by check-in, the key result as it was
// right after each (GET /api/v1/metrics/checkin/{id}) on a source and a
// target.
func sameSnapshots(t *testing.T, src, dst func(path string) (int, []byte)) {
	t.Helper()
	_, raw := src("/api/v2/checkins?limit=1000&sort=id")
	var cis struct {
		Items []struct{ ID string } `json:"items"`
	}
	if err := json.Unmarshal(raw, &cis); err != nil || len(cis.Items) == 0 {
		t.Fatalf("the source's check-ins: %v %.300s", err, raw)
	}
	for _, ci := range cis.Items {
		path := "/api/v1/metrics/checkin/" + ci.ID
		ca, ba := src(path)
		cz, bz := dst(path)
		if ca != 200 || cz != ca || !bytes.Equal(ba, bz) {
			t.Errorf("GET %s: source %d %.300s\ntarget %d %.300s", path, ca, ba, cz, bz)
		}
	}
}
