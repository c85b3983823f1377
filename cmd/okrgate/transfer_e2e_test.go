package main_test

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/okrgate/okrgate/upstream/backend/sqlstore/sqlstoretest"
)

// TestMoveAccountE2E moves a seeded account with okrgate export and import
// from a SQLite file into PostgreSQL (OKRGATE_TEST_POSTGRES; a second SQLite
// file without it), serves both, and checks that the moved token works and
// the REST listings and a GraphQL tree answer byte for byte the same.
func TestMoveAccountE2E(t *testing.T) {
	// A built binary and a database of its own; mostly waiting on them.
	t.Parallel()
	dir := t.TempDir()
	src := filepath.Join(dir, "src.db")
	b := bootstrapDB(t, src, "Moving Co", "admin@moving.test")
	if out, err := exec.Command(binary, "seed", "--db", src, "--account", b.AccountID, "--goals", "150").CombinedOutput(); err != nil {
		t.Fatalf("seed: %v\n%s", err, out)
	}
	file := filepath.Join(dir, "account.jsonl")
	if out, err := exec.Command(binary, "export", "--db", src, "--account", b.AccountID, "--include-tokens", "--out", file).CombinedOutput(); err != nil {
		t.Fatalf("export: %v\n%s", err, out)
	}
	dst := filepath.Join(dir, "dst.db")
	if os.Getenv("OKRGATE_TEST_POSTGRES") != "" {
		dst = sqlstoretest.PostgresURL(t)
	}
	out, err := exec.Command(binary, "import", "--db", dst, "--create", "--in", file).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "150 objectives' figures recomputed and equal") {
		t.Fatalf("import: %v\n%s", err, out)
	}
	out, err = exec.Command(binary, "import", "--db", dst, "--in", file).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "the account exists") || !strings.Contains(string(out), "nothing was imported") {
		t.Fatalf("a second import: %v\n%s", err, out)
	}

	a, z := startServer(t, src), startServer(t, dst)
	get := func(base, path string) (int, []byte) {
		req, _ := http.NewRequest("GET", base+path, nil)
		req.Header.Set("Authorization", "Bearer "+b.Token)
		req.Header.Set("service-accountId", b.AccountID)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, body
	}
	for _, path := range []string{
		"/api/v2/integrations/goals?limit=1000&sort=name",
		"/api/v2/metrics?limit=1000",
		"/api/v1/sessions",
		"/api/v2/integrations/tasks?limit=1000",
		"/api/v2/users",
	} {
		ca, ba := get(a.base, path)
		cz, bz := get(z.base, path)
		if ca != 200 || cz != ca || !bytes.Equal(ba, bz) {
			t.Errorf("GET %s: source %d %.200s, target %d %.200s", path, ca, ba, cz, bz)
		}
	}
	tree := `{"query":"{ sessions(first: 5) { nodes { title goals(roots: true) { id name attainment children { id attainment metrics { id attainment checkins { actual } } } } } } }"}`
	post := func(base string) []byte {
		req, _ := http.NewRequest("POST", base+"/graphql", strings.NewReader(tree))
		req.Header.Set("Authorization", "Bearer "+b.Token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return body
	}
	if ga, gz := post(a.base), post(z.base); !bytes.Equal(ga, gz) || bytes.Contains(ga, []byte(`"errors"`)) {
		t.Errorf("the GraphQL tree differs:\nsource %.300s\ntarget %.300s", ga, gz)
	}
}
