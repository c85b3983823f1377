package playground

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
)

// ReferencePath is where the REST API's reference page is served.
const ReferencePath = "/reference"

// referenceFiles are the assets of the reference page.
var referenceFiles = []string{"redoc.standalone.js"}

// referencePage renders the served OpenAPI document with Redoc, read-only.
// Its Content-Security-Policy (referenceCSP) lets it load nothing but the
// document and its own assets: no font, script or image from elsewhere
// (Redoc's menu footer asks for a logo from Redocly's CDN; it is not
// fetched), so it renders the same offline.
var referencePage = template.Must(template.New("reference").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>okrgate REST API reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
  body { margin: 0; font-family: system-ui, sans-serif; }
  #okrgate-bar { padding: 6px 16px; font-size: 14px; border-bottom: 1px solid #ddd; }
  .loading { padding: 2rem; font-size: 1.5rem; }
</style>
<script src="{{.Redoc.URL}}" integrity="{{.Redoc.SRI}}" crossorigin="anonymous"></script>
</head>
<body>
<div id="okrgate-bar">okrgate REST API reference, from <a href="{{.Spec}}">{{.Spec}}</a> ·
  <a href="/">GraphQL playground</a></div>
<div id="redoc"><div class="loading">Loading Redoc {{.RedocVersion}}…</div></div>
<script>{{.Init}}</script>
</body>
</html>
`))

// referenceInit is the page's one inline script: Redoc over the document
// at spec (a JSON string).
const referenceInit = `Redoc.init(%s, {
  expandResponses: '200,201',
  jsonSampleExpandLevel: 3,
  pathInMiddlePanel: true,
  theme: { typography: { fontFamily: 'system-ui, sans-serif', headings: { fontFamily: 'system-ui, sans-serif' } } }
}, document.getElementById('redoc'));`

// renderReferencePage renders the reference page once, at start-up, and
// its Content-Security-Policy.
func renderReferencePage(o Options, assets map[string]*playgroundAsset, versions map[string]string) (page []byte, csp string, err error) {
	spec := o.OpenAPI
	if spec == "" {
		spec = DefaultOpenAPI
	}
	quoted, err := json.Marshal(spec)
	if err != nil {
		return nil, "", fmt.Errorf("reference page: %w", err)
	}
	init := fmt.Sprintf(referenceInit, quoted)
	var buf bytes.Buffer
	err = referencePage.Execute(&buf, map[string]any{
		"Spec":         spec,
		"RedocVersion": versions["redoc"],
		"Redoc":        assetRefOf(o, assets, "redoc.standalone.js"),
		"Init":         template.JS(init),
	})
	if err != nil {
		return nil, "", fmt.Errorf("reference page: %w", err)
	}
	return buf.Bytes(), referenceCSP(o, init), nil
}

// referenceCSP allows the reference page its own origin, the one inline
// script init (by its hash), the inline styles Redoc writes, its search
// worker (a blob), and in CDN mode the pinned script from jsDelivr.
func referenceCSP(o Options, init string) string {
	sum := sha256.Sum256([]byte(init))
	script := "'self' 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
	if o.Assets == CDN {
		script += " https://cdn.jsdelivr.net"
	}
	return "default-src 'none'; script-src " + script + "; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
		"font-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; base-uri 'none'; form-action 'none'"
}
