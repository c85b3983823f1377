package main_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// registered is a trusted document as a client's repository holds it.
const registered = `# The sessions a dashboard lists.
query Sessions($first: Int) {
  sessions(first: $first) { totalCount nodes { id title } }
}
`

// gqlRequest posts body to /graphql with token and returns the status
// and the decoded answer.
func gqlRequest(t *testing.T, base, token string, body map[string]any) (int, map[string]any) {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", base+"/graphql", bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("%d %s: %v", res.StatusCode, raw, err)
	}
	return res.StatusCode, out
}

// errorCode is the first error's extensions.code, or "".
func errorCode(ans map[string]any) string {
	errs, _ := ans["errors"].([]any)
	if len(errs) == 0 {
		return ""
	}
	e, _ := errs[0].(map[string]any)
	ext, _ := e["extensions"].(map[string]any)
	code, _ := ext["code"].(string)
	return code
}

// TestTrustedDocumentsOnly runs the binary with --trusted-documents-only on
// a directory of one document: that document runs however the client
// prints it, by id (an automatic persisted query's hash, or documentId),
// and through an automatic persisted query's round trip; any other
// document is refused with DOCUMENT_NOT_TRUSTED, also after registering it
// as an automatic persisted query; introspection is governed by its own
// flag. With the escape for admins, the admin token runs any document.
func TestTrustedDocumentsOnly(t *testing.T) {
	dir := t.TempDir()
	docs := filepath.Join(dir, "docs")
	if err := os.Mkdir(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(docs, "sessions.graphql"), []byte(registered), 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(registered))
	id := hex.EncodeToString(sum[:])
	// graphql-codegen's client preset registers a document with its
	// selections sorted, under the hash of that form; the client sends it
	// as written.
	sorted := "query Nodes($first: Int) { sessions(first: $first) { nodes { id title } totalCount } }"
	sortedSum := sha256.Sum256([]byte(sorted))
	sortedID := "sha256:" + hex.EncodeToString(sortedSum[:])
	manifest, _ := json.Marshal(map[string]string{sortedID: sorted})
	if err := os.WriteFile(filepath.Join(docs, "persisted-documents.json"), manifest, 0o644); err != nil {
		t.Fatal(err)
	}
	asWritten := "query Nodes($first: Int) {\n  sessions(first: $first) {\n    totalCount\n    nodes { title id }\n  }\n}\n"
	db := filepath.Join(dir, "trusted.db")
	boot := bootstrapDB(t, db, "Acme", "ann@acme.test")

	out, err := exec.Command(binary, "documents", "--trusted-documents", docs).Output()
	if err != nil || !strings.Contains(string(out), id) || !strings.Contains(string(out), "Sessions") {
		t.Fatalf("documents: %v: %s", err, out)
	}

	srv := startServer(t, db, "--trusted-documents", docs, "--trusted-documents-only", "--trusted-documents-escape", "none")
	ok := func(what string, body map[string]any) {
		t.Helper()
		status, ans := gqlRequest(t, srv.base, boot.Token, body)
		data, _ := ans["data"].(map[string]any)
		if status != 200 || ans["errors"] != nil || data["sessions"] == nil {
			t.Errorf("%s: %d %v; want the sessions", what, status, ans)
		}
	}
	refused := func(what string, body map[string]any) {
		t.Helper()
		status, ans := gqlRequest(t, srv.base, boot.Token, body)
		if code := errorCode(ans); code != "DOCUMENT_NOT_TRUSTED" || ans["data"] != nil {
			t.Errorf("%s: %d %v; want DOCUMENT_NOT_TRUSTED and no data", what, status, ans)
		}
	}
	vars := map[string]any{"first": 2}
	ok("the registered text", map[string]any{"query": registered, "variables": vars})
	ok("the registered document printed otherwise", map[string]any{
		"query": "query Sessions($first: Int) { sessions(first: $first) { totalCount, nodes { id, title } } }", "variables": vars})
	ok("by hash", map[string]any{"variables": vars,
		"extensions": map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": id}}})
	ok("by documentId", map[string]any{"documentId": "sha256:" + id, "variables": vars})
	ok("an automatic persisted query of the registered text", map[string]any{"query": registered, "variables": vars,
		"extensions": map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": id}}})

	ok("a manifest's document as written", map[string]any{"query": asWritten, "variables": vars})
	ok("a manifest's document as written, with the manifest's hash", map[string]any{"query": asWritten, "variables": vars,
		"extensions": map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": strings.TrimPrefix(sortedID, "sha256:")}}})
	ok("a manifest's document by documentId", map[string]any{"documentId": sortedID, "variables": vars})
	status, ans := gqlRequest(t, srv.base, boot.Token, map[string]any{"documentId": "sha256:" + strings.Repeat("0", 64)})
	if code := errorCode(ans); code != "UNKNOWN_DOCUMENT" || !strings.Contains(fmt.Sprint(ans["errors"]), "unknown document") {
		t.Errorf("an unknown documentId: %d %v; want UNKNOWN_DOCUMENT", status, ans)
	}

	other := "query Other { sessions(first: 1) { totalCount } }"
	refused("another document with a registered hash", map[string]any{"query": other,
		"extensions": map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": strings.TrimPrefix(sortedID, "sha256:")}}})
	refused("another document", map[string]any{"query": other})
	refused("another document that selects the same fields", map[string]any{"query": "query Sessions { sessions(first: 2) { totalCount nodes { id title } } }"})
	otherSum := sha256.Sum256([]byte(other))
	apq := map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": hex.EncodeToString(otherSum[:])}}
	refused("another document as an automatic persisted query", map[string]any{"query": other, "extensions": apq})
	refused("its hash afterwards", map[string]any{"extensions": apq})
	if _, ans := gqlRequest(t, srv.base, boot.Token, map[string]any{"query": "{ __schema { queryType { name } } }"}); ans["errors"] != nil {
		t.Errorf("introspection: %v", ans)
	}
	srv.stop(t)

	srv = startServer(t, db, "--trusted-documents", docs, "--trusted-documents-only")
	status, ans = gqlRequest(t, srv.base, boot.Token, map[string]any{"query": other})
	if status != 200 || ans["errors"] != nil {
		t.Errorf("an admin with the default escape: %d %v; want the answer", status, ans)
	}
	srv.stop(t)

	// Without a registry, a documentId is unknown too.
	srv = startServer(t, db)
	status, ans = gqlRequest(t, srv.base, boot.Token, map[string]any{"documentId": sortedID})
	if code := errorCode(ans); code != "UNKNOWN_DOCUMENT" {
		t.Errorf("a documentId on a server without trusted documents: %d %v; want UNKNOWN_DOCUMENT", status, ans)
	}
}

// TestTrustedDocumentsRefusedAtStart: a registry holding a document that
// is not valid against the schema stops serve and documents, naming it.
func TestTrustedDocumentsRefusedAtStart(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "manifest.json")
	if err := os.WriteFile(bad, []byte(`{"abc": "query Stale { sessions { nodes { noSuchField } } }"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(binary, "documents", "--trusted-documents", bad).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "abc") || !strings.Contains(string(out), "noSuchField") {
		t.Errorf("documents: %v: %s; want a failure naming the document and the field", err, out)
	}
	out, err = exec.Command(binary, "serve", "--db", filepath.Join(dir, "x.db"), "--addr", "127.0.0.1:0", "--trusted-documents", bad).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "noSuchField") {
		t.Errorf("serve: %v: %s; want it refused at start", err, out)
	}
}
