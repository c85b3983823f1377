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
	"github.com/okrgate/okrgate/resolvers/transport/playground"
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

// pageRefs gets the page at path and returns the assets it loads.
func pageRefs(t *testing.T, srv *httptest.Server, path string) ([]byte, [][]string) {
	t.Helper()
	resp, page := get(t, srv.URL+path, nil)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("GET %s: %d %s", path, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	return page, scriptRE.FindAllStringSubmatch(string(page), -1)
}

// TestPlaygroundEmbedded: by default the pages (the playground and the
// reference) load only their own /playground/assets/ URLs, each answered
// (gzipped or plain) with content whose SHA-256 is the page's integrity
// attribute.
func TestPlaygroundEmbedded(t *testing.T) {
	srv := playgroundServer(t, playground.Options{Endpoint: "/graphql"})
	page, refs := pageRefs(t, srv, "/")
	_, refRefs := pageRefs(t, srv, playground.ReferencePath)
	if len(refs) != 4 || len(refRefs) != 1 || len(refs)+len(refRefs) != len(playground.Files) {
		t.Fatalf("the pages reference %d and %d assets, want 4 and 1 of %d: %v %v", len(refs), len(refRefs), len(playground.Files), refs, refRefs)
	}
	refs = append(refs, refRefs...)
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
	_, refs := pageRefs(t, srv, "/")
	_, refRefs := pageRefs(t, srv, playground.ReferencePath)
	refs = append(refs, refRefs...)
	if len(refs) != len(playground.Files) {
		t.Fatalf("the pages reference %d assets: %v", len(refs), refs)
	}
	for _, ref := range refs {
		if !regexp.MustCompile(`^https://cdn\.jsdelivr\.net/npm/(graphiql|react|react-dom|redoc)@\d+\.\d+\.\d+/`).MatchString(ref[1]) {
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
	ts, err := os.ReadFile("../../../.ci/clients/ts/src/graphql/sessionTree.graphql")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(string(ts), "\n"+playground.ExampleQuery) {
		t.Error(".ci/clients/ts/src/graphql/sessionTree.graphql differs from playground.ExampleQuery")
	}
}

// TestReferencePage: the reference page renders the served OpenAPI document
// (Options.OpenAPI, DefaultOpenAPI by default) with the pinned Redoc, and
// links back to the playground; the playground links to it.
func TestReferencePage(t *testing.T) {
	for _, tc := range []struct{ spec, want string }{{"", playground.DefaultOpenAPI}, {"/v2/openapi.json", "/v2/openapi.json"}} {
		srv := playgroundServer(t, playground.Options{Endpoint: "/graphql", OpenAPI: tc.spec})
		page, refs := pageRefs(t, srv, playground.ReferencePath)
		if len(refs) != 1 || refs[0][1] != playground.AssetsPath+"redoc.standalone.js" {
			t.Fatalf("reference page loads %v", refs)
		}
		for _, want := range []string{`Redoc.init("` + tc.want + `"`, `href="` + tc.want + `"`, `href="/"`, "Redoc 2."} {
			if !strings.Contains(string(page), want) {
				t.Errorf("reference page (OpenAPI %q) lacks %q:\n%s", tc.spec, want, page)
			}
		}
		// The policy lets the page load nothing from elsewhere, and allows
		// its one inline script by hash.
		resp, _ := get(t, srv.URL+playground.ReferencePath, nil)
		csp := resp.Header.Get("Content-Security-Policy")
		inline := regexp.MustCompile(`(?s)<script>(.*?)</script>`).FindAllSubmatch(page, -1)
		if len(inline) != 1 {
			t.Fatalf("reference page has %d inline scripts", len(inline))
		}
		sum := sha256.Sum256(inline[0][1])
		for _, want := range []string{"default-src 'none'", "connect-src 'self'", "img-src 'self' data:", "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("Content-Security-Policy %q lacks %q", csp, want)
			}
		}
		if strings.Contains(csp, "https:") || strings.Contains(csp, "unsafe-eval") {
			t.Errorf("Content-Security-Policy %q allows more than the page's own origin", csp)
		}
		if _, pg := get(t, srv.URL+"/", nil); !strings.Contains(string(pg), playground.ReferencePath) {
			t.Error("the playground does not link to the reference page")
		}
	}
}
