package main_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestServeReference: the built binary serves the REST API's reference
// page, the Redoc build it loads (compiled in: its content hashes to the
// page's integrity attribute) and the OpenAPI document it renders, all
// without a token; the page's policy allows its own origin only. (The
// browser test, .ci/browser-test.mjs, renders it in Chromium.)
func TestServeReference(t *testing.T) {
	db := filepath.Join(t.TempDir(), "ref.db")
	bootstrapDB(t, db, "Acme", "admin@acme.test")
	srv := startServer(t, db)
	defer srv.stop(t)
	get := func(path string) (*http.Response, []byte) {
		t.Helper()
		resp, err := http.Get(srv.base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s: %d %.300s", path, resp.StatusCode, b)
		}
		return resp, b
	}
	resp, page := get("/reference")
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		t.Errorf("GET /reference: Content-Type %q", ct)
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || strings.Contains(csp, "https:") {
		t.Errorf("GET /reference: Content-Security-Policy %q", csp)
	}
	m := regexp.MustCompile(`<script src="([^"]+)" integrity="([^"]+)"`).FindSubmatch(page)
	if m == nil || !strings.Contains(string(page), `Redoc.init("/api/openapi.json"`) {
		t.Fatalf("GET /reference: %s", page)
	}
	_, redoc := get(string(m[1]))
	sum := sha256.Sum256(redoc)
	if got := "sha256-" + base64.StdEncoding.EncodeToString(sum[:]); got != html.UnescapeString(string(m[2])) || len(redoc) < 500_000 {
		t.Errorf("GET %s: %d bytes hashing to %s, the page's integrity is %s", m[1], len(redoc), got, m[2])
	}
	_, raw := get("/api/openapi.json")
	var doc struct {
		Info       struct{ Description string }
		Components struct {
			SecuritySchemes map[string]struct{ Type, Scheme string }
		}
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if s := doc.Components.SecuritySchemes["bearerAuth"]; s.Type != "http" || s.Scheme != "bearer" ||
		!strings.Contains(doc.Info.Description, "`Authorization: Bearer <token>`") {
		t.Errorf("the document's bearer scheme: %+v; description %q", s, doc.Info.Description)
	}
	if strings.Contains(string(raw), "shared/") {
		t.Error("the OpenAPI document names a shared/ path")
	}
}
