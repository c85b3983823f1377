package playground

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
)

// ExampleQuery is the query the playground's editor opens on: the
// session tree a frontend loads in one request (sessions → root objectives
// → owners, key results → check-ins, child objectives → key results).
const ExampleQuery = `query SessionTree {
  sessions(first: 3) {
    totalCount
    nodes {
      id
      title
      status
      goals(roots: true) {
        id
        name
        attainment
        owners {
          __typename
          ... on User { id name email }
          ... on Team { id name }
        }
        metrics {
          id
          name
          actual
          target
          attainment
          checkins { id actual checkInDate }
        }
        children {
          id
          name
          attainment
          metrics {
            id
            name
            actual
            target
            attainment
            checkins { id actual checkInDate }
          }
        }
      }
    }
  }
}
`

// playgroundIntro is the comment above the example: three lines, so that
// the query stays in view; the banner above the editor explains
// authentication on a first visit without a token.
const playgroundIntro = `# okrgate GraphQL playground. A token goes in the Headers tab below:
# {"Authorization": "Bearer <token>"} (okrgate token create; README).
# Run with Ctrl-Enter. The session tree: sessions, objectives, key results, check-ins.
`

var playgroundPage = template.Must(template.New("playground").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>okrgate GraphiQL</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
  html, body { margin: 0; height: 100%; }
  body { display: flex; flex-direction: column; font-family: system-ui, sans-serif; }
  #graphiql { flex: 1; min-height: 0; }
  #okrgate-auth { display: none; padding: 8px 16px; background: #fff7d6; border-bottom: 1px solid #e6d48a; font-size: 14px; }
  #okrgate-auth code { background: #fff; padding: 1px 4px; border-radius: 3px; }
  #okrgate-auth button { float: right; }
  .loading { height: 100%; display: flex; align-items: center; justify-content: center; font-size: 2rem; }
</style>
<link rel="stylesheet" href="{{.CSS.URL}}" integrity="{{.CSS.SRI}}" crossorigin="anonymous">
<script src="{{.React.URL}}" integrity="{{.React.SRI}}" crossorigin="anonymous"></script>
<script src="{{.ReactDOM.URL}}" integrity="{{.ReactDOM.SRI}}" crossorigin="anonymous"></script>
<script src="{{.JS.URL}}" integrity="{{.JS.SRI}}" crossorigin="anonymous"></script>
</head>
<body>
<div id="okrgate-auth" role="note">
  <button type="button" id="okrgate-auth-close" aria-label="dismiss">×</button>
  <strong>No API token yet.</strong> Open the <em>Headers</em> tab below and enter
  <code>{"Authorization": "Bearer &lt;token&gt;"}</code>, then refresh the schema (Shift-Ctrl-R).
  Create a token with <code>okrgate token create --db okrgate.db --account &lt;accountId&gt;</code>;
  <code>okrgate serve --demo</code> on a new database prefills one. With <code>--oidc-issuer</code>, an access
  token of the company's identity provider works in the same header.
</div>
<div id="graphiql"><div class="loading">Loading GraphiQL {{.GraphiQLVersion}}…</div></div>
<script>
(function () {
  var endpoint = location.protocol + '//' + location.host + {{.Endpoint}};
  // The page keeps the Headers tab's text itself, under its own key,
  // written on every edit. GraphiQL's own copy (graphiql:headers) is written
  // 500 ms after the last keystroke and, on every page load, overwritten with
  // the header editor's text before that editor exists, that is with
  // nothing: a token typed and then reloaded came back once, or not at all.
  var storageKey = 'okrgate:headers';
  var graphiqlKey = 'graphiql:headers';
  var demoHeaders = {{.DemoHeaders}};
  var defaultQuery = {{.DefaultQuery}};
  // The text the Headers tab opens with: the page's saved text, else the
  // text an earlier page version left in GraphiQL's key, else the demo
  // token on a first visit to a demo server.
  var initialHeaders = localStorage.getItem(storageKey);
  if (initialHeaders === null && localStorage.getItem(graphiqlKey)) {
    initialHeaders = localStorage.getItem(graphiqlKey);
    localStorage.setItem(storageKey, initialHeaders);
  }

  function parse(text) {
    try {
      var h = JSON.parse(text || '{}');
      return h && typeof h === 'object' && !Array.isArray(h) ? h : {};
    } catch (e) {
      return {};
    }
  }
  // The headers the browser keeps, or the demo token on a first visit to a
  // demo server.
  function savedHeaders() {
    var saved = localStorage.getItem(storageKey);
    return parse(saved !== null ? saved : demoHeaders);
  }
  function hasToken(h) {
    return Object.keys(h).some(function (k) { return k.toLowerCase() === 'authorization' && String(h[k]).trim() !== ''; });
  }

  // operationNames lists the operations a document defines, in order: a
  // name, or null for an anonymous one. A small scanner, not a parser: it
  // skips comments, strings, directives and what stands in parentheses,
  // and reads the words before each top-level brace, where an operation
  // (query|mutation|subscription [Name]), a fragment or the shorthand
  // anonymous query ({ ... } alone) begins.
  function operationNames(doc) {
    var names = [], words = [], depth = 0, parens = 0, directive = false, i = 0, n = doc.length;
    var word = /[_A-Za-z][_0-9A-Za-z]*/y;
    while (i < n) {
      var c = doc[i];
      if (c === '#') {
        while (i < n && doc[i] !== '\n' && doc[i] !== '\r') i++;
      } else if (doc.startsWith('"""', i)) {
        i += 3;
        while (i < n && !doc.startsWith('"""', i)) i += doc.startsWith('\\"""', i) ? 4 : 1;
        i += 3;
      } else if (c === '"') {
        i++;
        while (i < n && doc[i] !== '"' && doc[i] !== '\n') i += doc[i] === '\\' ? 2 : 1;
        i++;
      } else if (c === '(' || c === ')') {
        parens = Math.max(0, parens + (c === '(' ? 1 : -1));
        i++;
      } else if (c === '@') {
        directive = true;
        i++;
      } else if (c === '{' || c === '}') {
        if (c === '{' && depth === 0) {
          if (words.length === 0) names.push(null);
          else if (/^(query|mutation|subscription)$/.test(words[0])) names.push(words[1] || null);
          words = [];
        }
        depth = Math.max(0, depth + (c === '{' ? 1 : -1));
        i++;
      } else {
        word.lastIndex = i;
        var m = word.exec(doc);
        if (!m) { i++; continue; }
        if (depth === 0 && parens === 0 && !directive) words.push(m[0]);
        directive = false;
        i += m[0].length;
      }
    }
    return names;
  }
  // GraphiQL keeps the operation name it last saw; a document edited or
  // pasted since may no longer hold it (the example's SessionTree replaced
  // by an anonymous query). The name is sent only when the document defines
  // it; a document of one operation is sent with that operation's name, or
  // none.
  function liveOperation(params) {
    if (!params || typeof params.query !== 'string' || !params.operationName) return params;
    var names = operationNames(params.query);
    if (names.indexOf(params.operationName) >= 0) return params;
    var p = Object.assign({}, params);
    if (names.length === 1 && names[0]) p.operationName = names[0];
    else delete p.operationName;
    return p;
  }

  var base = GraphiQL.createFetcher({ url: endpoint });
  // Every request, the schema introspection included, carries the saved
  // headers; the Headers tab's current text, when GraphiQL passes it, wins.
  function fetcher(params, opts) {
    var headers = Object.assign({}, savedHeaders(), (opts && opts.headers) || {});
    return base(liveOperation(params), Object.assign({}, opts || {}, { headers: headers }));
  }

  var banner = document.getElementById('okrgate-auth');
  function showBanner() {
    banner.style.display = hasToken(savedHeaders()) ? 'none' : 'block';
  }
  document.getElementById('okrgate-auth-close').onclick = function () { banner.style.display = 'none'; };
  showBanner();

  var firstVisit = initialHeaders === null;
  ReactDOM.createRoot(document.getElementById('graphiql')).render(
    React.createElement(GraphiQL, {
      fetcher: fetcher,
      defaultQuery: defaultQuery,
      headers: initialHeaders !== null ? initialHeaders : undefined,
      defaultHeaders: demoHeaders || undefined,
      shouldPersistHeaders: true,
      isHeadersEditorEnabled: true,
      defaultEditorToolsVisibility: firstVisit && !demoHeaders ? 'headers' : undefined,
      onEditHeaders: function (text) {
        localStorage.setItem(storageKey, text);
        banner.style.display = hasToken(parse(text)) ? 'none' : 'block';
      },
      inputValueDeprecation: true
    },
    // The logo's place names the other page: the REST API's reference.
    React.createElement(GraphiQL.Logo, null, 'okrgate ',
      React.createElement('a', { href: {{.Reference}}, id: 'okrgate-reference', style: { fontSize: '14px' } }, 'REST reference')))
  );
})();
</script>
</body>
</html>
`))

// assetRef is how the page loads one asset.
type assetRef struct {
	URL template.URL
	SRI string
}

// assetRefOf says how a page loads the asset name: from AssetsPath, or
// from jsDelivr in CDN mode, with its integrity either way.
func assetRefOf(o Options, assets map[string]*playgroundAsset, name string) assetRef {
	a := assets[name]
	if o.Assets == CDN {
		return assetRef{URL: template.URL(a.cdn), SRI: a.sri}
	}
	return assetRef{URL: template.URL(AssetsPath + name), SRI: a.sri}
}

// renderPlaygroundPage renders the page once, at start-up.
func renderPlaygroundPage(o Options, assets map[string]*playgroundAsset, versions map[string]string) ([]byte, error) {
	ref := func(name string) assetRef { return assetRefOf(o, assets, name) }
	demoHeaders := ""
	if o.DemoToken != "" {
		b, err := json.MarshalIndent(map[string]string{"Authorization": "Bearer " + o.DemoToken}, "", "  ")
		if err != nil {
			return nil, err
		}
		demoHeaders = string(b)
	}
	endpoint := o.Endpoint
	if endpoint == "" {
		endpoint = "/graphql"
	}
	var buf bytes.Buffer
	err := playgroundPage.Execute(&buf, map[string]any{
		"Endpoint":        endpoint,
		"Reference":       ReferencePath,
		"DemoHeaders":     demoHeaders,
		"DefaultQuery":    playgroundIntro + ExampleQuery,
		"GraphiQLVersion": versions["graphiql"],
		"JS":              ref("graphiql.min.js"),
		"CSS":             ref("graphiql.min.css"),
		"React":           ref("react.production.min.js"),
		"ReactDOM":        ref("react-dom.production.min.js"),
	})
	if err != nil {
		return nil, fmt.Errorf("playground page: %w", err)
	}
	return buf.Bytes(), nil
}
