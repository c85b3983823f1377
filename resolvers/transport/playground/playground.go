// Package playground serves okrgate's pages for people in a browser and
// their pinned assets (compiled in, gzipped; or from jsDelivr or a
// directory), both working offline: the GraphiQL page at "/", token-aware,
// opening on the session tree query; and the REST API's reference at
// ReferencePath, Redoc over the served OpenAPI document.
package playground

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// AssetsPath is where the playground's assets are served.
const AssetsPath = "/playground/assets/"

// Where the playground's assets come from (Options.Assets).
const (
	// Embedded serves the copy compiled into the binary: the
	// playground works without internet access. The default.
	Embedded = "embedded"
	// CDN loads the same files, same versions, from jsDelivr,
	// checked with subresource integrity.
	CDN = "cdn"
)

// playgroundFS holds the pinned GraphiQL, React and Redoc builds, gzipped,
// and the VERSIONS file naming them (refreshed by .ci/playground-assets.sh).
//
//go:embed VERSIONS *.gz
var playgroundFS embed.FS

// playgroundFiles are the assets of the GraphiQL page.
var playgroundFiles = []string{"graphiql.min.js", "graphiql.min.css", "react.production.min.js", "react-dom.production.min.js"}

// Files are the assets of both pages: the files a directory given as
// Options.Assets must hold.
var Files = append(slices.Clip(playgroundFiles), referenceFiles...)

// DefaultOpenAPI is the OpenAPI document's path the reference page renders
// when Options.OpenAPI is empty: where the REST facade serves it.
const DefaultOpenAPI = "/api/openapi.json"

// Options configure the GraphiQL page.
type Options struct {
	// Endpoint is the GraphQL endpoint's path, e.g. "/graphql".
	Endpoint string
	// Assets is Embedded (or ""), CDN, or a directory
	// holding Files (.ci/playground-assets.sh DIR fills one).
	Assets string
	// DemoToken, when set (serve --demo on a fresh database), is prefilled
	// as the Authorization header of a browser that has none saved.
	DemoToken string
	// OpenAPI is the path of the OpenAPI document the reference page
	// renders; DefaultOpenAPI when empty.
	OpenAPI string
}

// playgroundAsset is one file of the playground as served.
type playgroundAsset struct {
	gz  string // the embedded file of the gzip-compressed content, read when served: not held in the heap
	raw []byte // plain content (directory copy)
	sri string // subresource integrity of the plain content
	cdn string // jsDelivr URL of the same file
}

// Handler returns the GraphiQL page, the reference page and their assets.
// Mount it at "/", ReferencePath and AssetsPath.
//
// The page is token-aware: headers typed in the Headers tab are kept in the
// browser (shouldPersistHeaders) and the page's fetcher sends the saved ones
// with every request, the schema introspection included, also right after a
// reload. A browser with no token saved sees how to get one; the editor
// opens on the session tree query.
func Handler(o Options) (http.Handler, error) {
	assets, versions, err := loadPlaygroundAssets(o.Assets)
	if err != nil {
		return nil, err
	}
	page, err := renderPlaygroundPage(o, assets, versions)
	if err != nil {
		return nil, err
	}
	reference, referenceCSP, err := renderReferencePage(o, assets, versions)
	if err != nil {
		return nil, err
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var html []byte
		switch r.URL.Path {
		case "/":
			html = page
		case ReferencePath:
			html = reference
			w.Header().Set("Content-Security-Policy", referenceCSP)
		}
		if html != nil {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Cache-Control", "no-cache")
			_, _ = w.Write(html)
			return
		}
		name, ok := strings.CutPrefix(r.URL.Path, AssetsPath)
		a := assets[name]
		if !ok || a == nil || o.Assets == CDN {
			http.NotFound(w, r)
			return
		}
		serveAsset(w, r, name, a)
	}), nil
}

// serveAsset answers one asset: the stored gzip stream to clients that
// accept it, decompressed otherwise. The integrity hash is its ETag.
func serveAsset(w http.ResponseWriter, r *http.Request, name string, a *playgroundAsset) {
	h := w.Header()
	if strings.HasSuffix(name, ".css") {
		h.Set("Content-Type", "text/css; charset=utf-8")
	} else {
		h.Set("Content-Type", "text/javascript; charset=utf-8")
	}
	h.Set("Cache-Control", "public, max-age=86400")
	h.Set("Vary", "Accept-Encoding")
	etag := `"` + a.sri + `"`
	h.Set("ETag", etag)
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	if a.raw != nil {
		_, _ = w.Write(a.raw)
		return
	}
	f, err := playgroundFS.Open(a.gz)
	if err != nil {
		http.Error(w, "missing embedded asset", http.StatusInternalServerError)
		return
	}
	defer f.Close()
	if acceptsGzip(r) {
		h.Set("Content-Encoding", "gzip")
		_, _ = io.Copy(w, f)
		return
	}
	zr, err := gzip.NewReader(f)
	if err != nil {
		http.Error(w, "corrupt embedded asset", http.StatusInternalServerError)
		return
	}
	_, _ = io.Copy(w, zr)
}

func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		enc, q, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(enc), "gzip") && strings.ReplaceAll(q, " ", "") != "q=0" {
			return true
		}
	}
	return false
}

// loadPlaygroundAssets reads the assets (embedded, or from a directory) and
// computes their integrity hashes, and reads the pinned versions.
func loadPlaygroundAssets(source string) (map[string]*playgroundAsset, map[string]string, error) {
	versions, cdn, err := playgroundVersions()
	if err != nil {
		return nil, nil, err
	}
	assets := map[string]*playgroundAsset{}
	for _, f := range Files {
		a := &playgroundAsset{cdn: cdn[f]}
		var plain []byte
		switch source {
		case "", Embedded, CDN:
			a.gz = f + ".gz"
			gz, err := playgroundFS.ReadFile(a.gz)
			if err != nil {
				return nil, nil, fmt.Errorf("playground: embedded %s: %w", f, err)
			}
			zr, err := gzip.NewReader(bytes.NewReader(gz))
			if err != nil {
				return nil, nil, fmt.Errorf("playground: embedded %s: %w", f, err)
			}
			if plain, err = io.ReadAll(zr); err != nil {
				return nil, nil, fmt.Errorf("playground: embedded %s: %w", f, err)
			}
		default:
			if plain, err = os.ReadFile(filepath.Join(source, f)); err != nil {
				return nil, nil, fmt.Errorf("playground assets: %w (run .ci/playground-assets.sh %s)", err, source)
			}
			a.raw = plain
		}
		sum := sha256.Sum256(plain)
		a.sri = "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
		assets[f] = a
	}
	return assets, versions, nil
}

// playgroundVersions parses playground/VERSIONS: the package versions
// ("graphiql" → "4.1.2") and each file's jsDelivr URL.
func playgroundVersions() (versions, cdn map[string]string, err error) {
	b, err := playgroundFS.ReadFile("VERSIONS")
	if err != nil {
		return nil, nil, fmt.Errorf("playground: %w", err)
	}
	versions, cdn = map[string]string{}, map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		if len(fields) < 4 {
			return nil, nil, fmt.Errorf("playground: VERSIONS: malformed line %q", sc.Text())
		}
		pkg, version := fields[0], fields[1]
		versions[pkg] = version
		for _, f := range fields[3:] {
			cdn[filepath.Base(f)] = "https://cdn.jsdelivr.net/npm/" + pkg + "@" + version + "/" + f
		}
	}
	for _, f := range Files {
		if cdn[f] == "" {
			return nil, nil, fmt.Errorf("playground: VERSIONS names no package for %s", f)
		}
	}
	return versions, cdn, nil
}
