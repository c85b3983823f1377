package playground_test

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/okrgate/okrgate/graph"
	"github.com/okrgate/okrgate/resolvers/playground"
)

func playgroundServer(t *testing.T, o playground.Options) *httptest.Server {
	t.Helper()
	h, err := playground.Handler(o)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func get(t *testing.T, url string, header http.Header) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if header != nil {
		req.Header = header
	}
	// A Transport of its own: the default one would add Accept-Encoding
	// and decompress silently.
	resp, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

var scriptRE = regexp.MustCompile(`(?:src|href)="([^"]+)" integrity="([^"]+)"`)

// TestPlaygroundEmbedded: by default the page loads only its own
// /playground/assets/ URLs, each answered (gzipped or plain) with content
// whose SHA-256 is the page's integrity attribute.
func TestPlaygroundEmbedded(t *testing.T) {
	srv := playgroundServer(t, playground.Options{Endpoint: "/graphql"})
	resp, page := get(t, srv.URL+"/", nil)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("GET /: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	refs := scriptRE.FindAllStringSubmatch(string(page), -1)
	if len(refs) != len(playground.Files) {
		t.Fatalf("page references %d assets, want %d: %v", len(refs), len(playground.Files), refs)
	}
	for _, ref := range refs {
		url, sri := ref[1], html.UnescapeString(ref[2])
		if !strings.HasPrefix(url, playground.AssetsPath) {
			t.Errorf("asset %s is not served locally", url)
			continue
		}
		resp, gz := get(t, srv.URL+url, http.Header{"Accept-Encoding": {"gzip, br"}})
		if resp.StatusCode != 200 || resp.Header.Get("Content-Encoding") != "gzip" {
			t.Fatalf("GET %s (gzip): %d, Content-Encoding %q", url, resp.StatusCode, resp.Header.Get("Content-Encoding"))
		}
		zr, err := gzip.NewReader(bytes.NewReader(gz))
		if err != nil {
			t.Fatal(err)
		}
		unzipped, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		_, plain := get(t, srv.URL+url, nil)
		if !bytes.Equal(plain, unzipped) {
			t.Errorf("%s: the plain answer differs from the gzipped one", url)
		}
		sum := sha256.Sum256(plain)
		if got := "sha256-" + base64.StdEncoding.EncodeToString(sum[:]); got != sri {
			t.Errorf("%s: integrity %s, content hashes to %s", url, sri, got)
		}
		if len(plain) < 1000 {
			t.Errorf("%s: only %d bytes", url, len(plain))
		}
		resp, _ = get(t, srv.URL+url, http.Header{"If-None-Match": {resp.Header.Get("ETag")}})
		if resp.StatusCode != http.StatusNotModified {
			t.Errorf("%s with its ETag: %d, want 304", url, resp.StatusCode)
		}
	}
	if resp, _ := get(t, srv.URL+playground.AssetsPath+"VERSIONS", nil); resp.StatusCode != 404 {
		t.Errorf("GET VERSIONS: %d, want 404", resp.StatusCode)
	}
	for _, want := range []string{"query SessionTree", "shouldPersistHeaders", "okrgate token create", "Authorization"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(string(page), "Bearer okr_") {
		t.Error("page carries a token without --demo")
	}
}

// TestPlaygroundCDN: the cdn option loads the same pinned files from
// jsDelivr with the embedded copy's integrity, and serves no assets itself.
func TestPlaygroundCDN(t *testing.T) {
	srv := playgroundServer(t, playground.Options{Endpoint: "/graphql", Assets: playground.CDN})
	_, page := get(t, srv.URL+"/", nil)
	refs := scriptRE.FindAllStringSubmatch(string(page), -1)
	if len(refs) != len(playground.Files) {
		t.Fatalf("page references %d assets: %v", len(refs), refs)
	}
	for _, ref := range refs {
		if !regexp.MustCompile(`^https://cdn\.jsdelivr\.net/npm/(graphiql|react|react-dom)@\d+\.\d+\.\d+/`).MatchString(ref[1]) {
			t.Errorf("asset %s: not a pinned jsDelivr URL", ref[1])
		}
	}
	if resp, _ := get(t, srv.URL+playground.AssetsPath+"graphiql.min.js", nil); resp.StatusCode != 404 {
		t.Errorf("cdn mode serves assets itself: %d", resp.StatusCode)
	}
}

// TestPlaygroundDirectory serves the assets from a directory, and refuses
// to start when a file is missing.
func TestPlaygroundDirectory(t *testing.T) {
	dir := t.TempDir()
	for _, f := range playground.Files {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("/* "+f+" */"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := playgroundServer(t, playground.Options{Endpoint: "/graphql", Assets: dir})
	resp, body := get(t, srv.URL+playground.AssetsPath+"graphiql.min.css", http.Header{"Accept-Encoding": {"gzip"}})
	if resp.StatusCode != 200 || string(body) != "/* graphiql.min.css */" || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/css") {
		t.Errorf("GET graphiql.min.css: %d %q %s", resp.StatusCode, body, resp.Header.Get("Content-Type"))
	}
	if err := os.Remove(filepath.Join(dir, "react.production.min.js")); err != nil {
		t.Fatal(err)
	}
	if _, err := playground.Handler(playground.Options{Assets: dir}); err == nil || !strings.Contains(err.Error(), "react.production.min.js") {
		t.Errorf("missing file: err = %v", err)
	}
}

// TestPlaygroundDemoToken: serve --demo prefills the demo token as the
// default headers.
func TestPlaygroundDemoToken(t *testing.T) {
	srv := playgroundServer(t, playground.Options{Endpoint: "/graphql", DemoToken: "okr_demo123"})
	_, page := get(t, srv.URL+"/", nil)
	if !strings.Contains(string(page), `Bearer okr_demo123`) {
		t.Errorf("page lacks the demo token: %.300s", page)
	}
}

// TestPlaygroundExampleValid validates the example against the schema.
func TestPlaygroundExampleValid(t *testing.T) {
	schema := graph.NewExecutableSchema(graph.Config{}).Schema()
	doc, errs := gqlparser.LoadQueryWithRules(schema, playground.ExampleQuery, nil)
	if len(errs) > 0 {
		t.Fatalf("example query: %v", errs)
	}
	if len(doc.Operations) != 1 || doc.Operations[0].Operation != ast.Query {
		t.Fatalf("example: %d operations", len(doc.Operations))
	}
	// The TypeScript client check (.ci/ts-client.sh) runs the same query.
	ts, err := os.ReadFile("../../.ci/clients/ts/src/graphql/sessionTree.graphql")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(string(ts), "\n"+playground.ExampleQuery) {
		t.Error(".ci/clients/ts/src/graphql/sessionTree.graphql differs from playground.ExampleQuery")
	}
}
