package main_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/okrgate/okrgate/upstream/backend/sqlstore/sqlstoretest"
)

// TestMoveAccountAtScale is run by hand (docs/moving-accounts.md, "Moving an
// account"): OKRGATE_MOVE_GOALS objectives seeded in SQLite, with pictures,
// webhooks and every content type, exported (tokens and secrets included)
// and imported into PostgreSQL (OKRGATE_TEST_POSTGRES), exported from there
// and imported into a Citus coordinator (OKRGATE_MOVE_CITUS, a database
// with the citus extension and its workers added; the test works in a
// schema of its own and drops it). Each target then answers every REST
// listing, page by page, the first thousand check-ins' snapshots and a
// GraphQL tree byte for byte as the source, to the moved token; a second
// import is refused. The same account pulled over REST (import --from)
// into SQLite answers the same, webhooks aside (they arrive inactive). The
// time and peak RSS of each step are logged, not asserted.
func TestMoveAccountAtScale(t *testing.T) {
	goals, _ := strconv.Atoi(os.Getenv("OKRGATE_MOVE_GOALS"))
	citus := os.Getenv("OKRGATE_MOVE_CITUS")
	if goals <= 0 || citus == "" || os.Getenv("OKRGATE_TEST_POSTGRES") == "" {
		t.Skip("run by hand: OKRGATE_MOVE_GOALS, OKRGATE_MOVE_CITUS and OKRGATE_TEST_POSTGRES (docs/moving-accounts.md, \"Moving an account\")")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "src.db")
	b := bootstrapDB(t, src, "Big Co", "admin@big.test")
	step(t, "seed", exec.Command(binary, "seed", "--db", src, "--account", b.AccountID, "--goals", strconv.Itoa(goals)))

	a := startServer(t, src, "--rate-limit", "off")
	// tokens holds the token of each server other than the source's (the
	// moved one, or one minted where a pull moved none).
	tokens := map[string]string{}
	call := func(base, method, path, ctype string, body []byte) (int, []byte) {
		t.Helper()
		req, _ := http.NewRequest(method, base+path, bytes.NewReader(body))
		token := b.Token
		if tok, ok := tokens[base]; ok {
			token = tok
		}
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
	// Pictures for every user, twenty webhooks and each content type.
	_, raw := call(a.base, "GET", "/api/v2/users?limit=1000", "", nil)
	var us struct {
		Items []struct{ ID string } `json:"items"`
	}
	if err := json.Unmarshal(raw, &us); err != nil || len(us.Items) == 0 {
		t.Fatalf("users: %v %.300s", err, raw)
	}
	for i, u := range us.Items {
		var pic bytes.Buffer
		png.Encode(&pic, image.NewRGBA(image.Rect(0, 0, 8+i, 8)))
		var form bytes.Buffer
		mw := multipart.NewWriter(&form)
		part, _ := mw.CreateFormFile("file", "me.png")
		part.Write(pic.Bytes())
		mw.Close()
		if code, out := call(a.base, "POST", "/api/v1/fileserver/avatar/"+u.ID, mw.FormDataContentType(), form.Bytes()); code != 200 {
			t.Fatalf("upload a picture: %d %s", code, out)
		}
	}
	for i := range 20 {
		hook := fmt.Sprintf(`{"url":"https://hooks.big.test/%d","events":["*"],"description":"hook %d"}`, i, i)
		if code, out := call(a.base, "POST", "/api/v1/webhooks", "application/json", []byte(hook)); code != 201 {
			t.Fatalf("create a webhook: %d %s", code, out)
		}
	}
	content := addContent(t, func(method, path string, body any) (int, []byte) {
		var raw []byte
		ctype := ""
		if body != nil {
			raw, _ = json.Marshal(body)
			ctype = "application/json"
		}
		return call(a.base, method, path, ctype, raw)
	}, b.UserID)

	file := filepath.Join(dir, "sqlite.jsonl")
	step(t, "export from SQLite", exec.Command(binary, "export", "--db", src, "--account", b.AccountID, "--include-tokens", "--include-secrets", "--out", file))
	pg := sqlstoretest.PostgresURL(t)
	step(t, "import into PostgreSQL", exec.Command(binary, "import", "--db", pg, "--in", file))
	refused(t, pg, file)
	file2 := filepath.Join(dir, "postgres.jsonl")
	step(t, "export from PostgreSQL", exec.Command(binary, "export", "--db", pg, "--account", b.AccountID, "--include-tokens", "--include-secrets", "--out", file2))
	ct := citusSchema(t, citus)
	step(t, "import into Citus", exec.Command(binary, "import", "--db", ct, "--in", file2))
	refused(t, ct, file2)
	pulled := filepath.Join(dir, "pulled.db")
	step(t, "pull into SQLite", exec.Command(binary, "import", "--db", pulled, "--create", "--from", a.base, "--token", b.Token,
		"--account", b.AccountID, "--spool", filepath.Join(dir, "spool")))
	minted, err := exec.Command(binary, "token", "create", "--db", pulled, "--account", b.AccountID, "--json").Output()
	var pulledToken struct{ Token string }
	if err != nil || json.Unmarshal(minted, &pulledToken) != nil {
		t.Fatalf("token create: %v %s", err, minted)
	}

	paged := []string{
		"/api/v2/integrations/goals?sort=name&fields=id,name,attainment,aggregatedAttainment,fullAggregatedAttainment,childrenCount,subTreeCount,tags,assignee,ownerIds,parentId,metricsCount,currentUserAllowedActions",
		"/api/v2/goals?sort=id",
		"/api/v2/metrics?sort=id",
		"/api/v2/checkins?sort=id",
		"/api/v2/integrations/tasks?sort=id",
		"/api/v2/users?sort=id",
		"/api/v2/teams?sort=id",
	}
	whole := append([]string{"/api/v1/sessions", "/api/v2/integrations/tags?name="}, content...)
	for _, target := range []struct {
		name, db, token string
	}{{"PostgreSQL", pg, b.Token}, {"Citus", ct, b.Token}, {"the pull", pulled, pulledToken.Token}} {
		z := startServer(t, target.db, "--rate-limit", "off")
		tokens[z.base] = target.token
		same := func(path string) []byte {
			ca, ba := call(a.base, "GET", path, "", nil)
			cz, bz := call(z.base, "GET", path, "", nil)
			if ca != 200 || cz != ca || !bytes.Equal(ba, bz) {
				t.Fatalf("%s, GET %s: source %d %.300s\ntarget %d %.300s", target.name, path, ca, ba, cz, bz)
			}
			return ba
		}
		pages := 0
		for _, path := range paged {
			for skip := 0; ; skip += 1000 {
				var pg struct{ Items []json.RawMessage }
				pages++
				if json.Unmarshal(same(fmt.Sprintf("%s&skip=%d&limit=1000", path, skip)), &pg) != nil || len(pg.Items) < 1000 {
					break
				}
			}
		}
		for _, path := range whole {
			same(path)
			pages++
		}
		if target.token == b.Token { // a pull moves webhooks inactive, without their secrets
			same("/api/v1/webhooks")
			pages++
		}
		for _, u := range us.Items {
			var me struct{ Picture string }
			_, raw := call(a.base, "GET", "/api/v2/users/"+u.ID, "", nil)
			json.Unmarshal(raw, &me)
			ca, pa := call(a.base, "GET", me.Picture, "", nil)
			cz, pz := call(z.base, "GET", me.Picture, "", nil)
			if me.Picture == "" || ca != 200 || cz != 200 || !bytes.Equal(pa, pz) {
				t.Fatalf("%s: the picture of %s (%q): %d, %d", target.name, u.ID, me.Picture, ca, cz)
			}
		}
		sameSnapshots(t, func(path string) (int, []byte) { return call(a.base, "GET", path, "", nil) },
			func(path string) (int, []byte) { return call(z.base, "GET", path, "", nil) })
		tree := []byte(`{"query":"{ sessions(first: 5) { nodes { title goals(roots: true) { id name attainment tags { title } children { id attainment metrics { id attainment checkins { actual } } } } } } }"}`)
		_, ga := call(a.base, "POST", "/graphql", "application/json", tree)
		_, gz := call(z.base, "POST", "/graphql", "application/json", tree)
		if !bytes.Equal(ga, gz) || bytes.Contains(ga, []byte(`"errors"`)) {
			t.Fatalf("%s: the GraphQL tree differs:\nsource %.300s\ntarget %.300s", target.name, ga, gz)
		}
		t.Logf("%s answers as the source: %d listing pages, %d pictures, the snapshots of up to 1,000 check-ins, a %d-byte GraphQL tree",
			target.name, pages, len(us.Items), len(ga))
	}
}

// step runs one command of the test and logs its wall time and peak RSS.
func step(t *testing.T, name string, cmd *exec.Cmd) {
	t.Helper()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		t.Fatalf("%s: %v\n%s", name, err, out.String())
	}
	rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss // KiB on Linux
	last := strings.TrimSpace(out.String())
	if i := strings.LastIndex(last, "\n"); i >= 0 && !strings.HasPrefix(name, "import") {
		last = last[i+1:]
	}
	t.Logf("%s: %s wall, %d MB peak RSS\n%s", name, wall.Round(100*time.Millisecond), rss/1024, last)
}

// refused checks that a second import of file into db is refused, the
// account being there.
func refused(t *testing.T, db, file string) {
	t.Helper()
	out, err := exec.Command(binary, "import", "--db", db, "--in", file).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "the account exists") || !strings.Contains(string(out), "nothing was imported") {
		t.Fatalf("a second import into %s: %v\n%s", db, err, out)
	}
}

// citusSchema makes a schema of its own on the Citus database at base and
// returns a URL of it; the schema is dropped after the test.
func citusSchema(t *testing.T, base string) string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	schema := fmt.Sprintf("move_%d", time.Now().UnixNano())
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Error(err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}
