package resolvers

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"os"
	"path/filepath"

	"github.com/99designs/gqlgen/graphql/playground"
)

// PlaygroundAssetsPath is where the playground's local assets are served.
const PlaygroundAssetsPath = "/playground/assets/"

// PlaygroundFiles are the files a local assets directory must hold (see
// .ci/playground-assets.sh, which installs them from the npm registry):
// graphiql 4.1.2 and react/react-dom 18.2.0, the versions gqlgen's CDN page
// uses.
var PlaygroundFiles = []string{"graphiql.min.js", "graphiql.min.css", "react.production.min.js", "react-dom.production.min.js"}

// Playground returns the GraphiQL page for endpoint. With assetsDir "" it
// loads GraphiQL and React from the jsDelivr CDN (with subresource
// integrity); otherwise it serves them from assetsDir at
// PlaygroundAssetsPath, so the playground works without internet access.
// Mount the handler at "/" and at PlaygroundAssetsPath.
func Playground(endpoint, assetsDir string) (http.Handler, error) {
	const title = "okrgate GraphiQL"
	if assetsDir == "" {
		return playground.Handler(title, endpoint), nil
	}
	sri := map[string]string{}
	for _, f := range PlaygroundFiles {
		b, err := os.ReadFile(filepath.Join(assetsDir, f))
		if err != nil {
			return nil, fmt.Errorf("playground assets: %w (run .ci/playground-assets.sh %s)", err, assetsDir)
		}
		sum := sha256.Sum256(b)
		sri[f] = "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
	}
	p := PlaygroundAssetsPath
	page := playground.Handler(title, endpoint,
		playground.WithGraphiqlVersion(p+"graphiql.min.js", p+"graphiql.min.css", sri["graphiql.min.js"], sri["graphiql.min.css"]),
		playground.WithGraphiqlReactVersion(p+"react.production.min.js", p+"react-dom.production.min.js",
			sri["react.production.min.js"], sri["react-dom.production.min.js"]),
		playground.WithGraphiqlEnablePluginExplorer(false),
	)
	files := http.StripPrefix(p, http.FileServer(http.Dir(assetsDir)))
	allowed := map[string]bool{}
	for _, f := range PlaygroundFiles {
		allowed[p+f] = true
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/":
			page.ServeHTTP(w, r)
		case allowed[r.URL.Path]:
			w.Header().Set("Cache-Control", "public, max-age=86400")
			files.ServeHTTP(w, r)
		default:
			http.NotFound(w, r)
		}
	}), nil
}
