package graphqlhttp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"mime"
	"net/http"
	"strconv"
	"time"

	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/okrgate/okrgate/resolvers"
	"github.com/okrgate/okrgate/resolvers/infra/limits"
	"github.com/okrgate/okrgate/resolvers/infra/trusted"
	"github.com/okrgate/okrgate/resolvers/live"
	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/infra/authn"
	"github.com/okrgate/okrgate/upstream/infra/observe"
)

// Defaults of Config. docs/graphql.md ("Limits") says why each is what it is.
const (
	DefaultMaxDepth         = 15
	DefaultMaxComplexity    = 1_000_000
	DefaultParserTokenLimit = 10_000
	DefaultMaxFields        = 1_000
	DefaultMaxAliases       = 100
	DefaultMaxDirectives    = 50
	DefaultMaxOperations    = 20
	DefaultMaxFragments     = 200
	DefaultMaxVariables     = 10_000
	DefaultMaxNodes         = 2_000_000
	DefaultMaxNodesInFlight = 4_000_000
	DefaultMaxResponseBytes = 64 << 20
	DefaultTimeout          = 30 * time.Second
	DefaultMaxBodyBytes     = 1 << 20
	DefaultAPQCacheSize     = 1000
	DefaultQueryCacheSize   = 1000
)

// Config configures the GraphQL handler. Zero values mean the defaults.
type Config struct {
	// API serves every resolver and loader; wrap it with instrument.New to
	// count and trace its calls.
	API resolvers.Backend
	// Authn authenticates every request (the binary builds one for both
	// facades). When nil, Auth's tokens do (authn.New(Auth, nil)).
	Authn *authn.Authenticator
	// Auth turns an API token into a caller (usually the same store), when
	// Authn is nil.
	Auth upstream.AuthService
	// Metrics, when not nil, records requests and latency per operation.
	Metrics *Metrics
	Logger  *slog.Logger
	// Live, when not nil, serves subscriptions (package live) over
	// websockets and server-sent events; its Auth defaults to Config.Auth.
	Live *live.Hub
	// MaxConnLifetime is how long a websocket may stay open before the
	// server closes it (live.CloseLifetime) for the client to reconnect;
	// live.DefaultMaxConnLifetime.
	MaxConnLifetime time.Duration

	MaxDepth         int // DefaultMaxDepth
	MaxComplexity    int // DefaultMaxComplexity
	ParserTokenLimit int // DefaultParserTokenLimit
	// Limits of the document checked before validation
	// (limits.DocumentLimits), fragments expanded.
	MaxFields     int // DefaultMaxFields
	MaxAliases    int // DefaultMaxAliases
	MaxDirectives int // DefaultMaxDirectives
	MaxOperations int // DefaultMaxOperations
	MaxFragments  int // DefaultMaxFragments
	MaxVariables  int // JSON values in variables; DefaultMaxVariables
	// Budget of one operation while it executes (limits.Budget).
	MaxNodes         int           // DefaultMaxNodes
	MaxNodesInFlight int           // of all operations at once; DefaultMaxNodesInFlight
	MaxResponseBytes int           // DefaultMaxResponseBytes
	MaxBodyBytes     int64         // request body; DefaultMaxBodyBytes
	Timeout          time.Duration // per request; DefaultTimeout
	// Admission, when not nil, admits every query and mutation (over any
	// transport) before it executes; CostClass names the class of an
	// estimated cost for it (limits.Admission).
	Admission limits.Admitter
	CostClass limits.CostClass
	// Trusted, when not nil, resolves registered documents sent by id and,
	// in its Only mode, refuses the documents that are not registered
	// (trusted.Extension); nil: no document is registered.
	Trusted *trusted.Extension
	// DisableIntrospection turns introspection off (it is on by default),
	// and with it Federation's _service.
	DisableIntrospection bool
	// Federation serves the schema as an Apollo Federation v2 subgraph
	// (resolvers.FederatedSchema): _service and _entities. Off, they are unknown
	// fields. docs/graphql-federation.md ("Federation").
	Federation bool
	// NoFastPath serves every field through gqlgen's executor instead of
	// the breadth-first fast path (fastpath.Executor), which answers the same
	// bytes: for comparisons in tests and benchmarks.
	NoFastPath bool
	// Shared, when not nil, shares the answers of queries between callers
	// of one visibility class (shared.go, package respcache): computed
	// once for identical queries in flight, kept until a write moves the
	// account's data version, with entity tags on GET and trusted-document
	// requests. Nil executes every request for its caller alone.
	Shared *Shared
}

func (c *Config) defaults() {
	if c.MaxDepth <= 0 {
		c.MaxDepth = DefaultMaxDepth
	}
	if c.MaxComplexity <= 0 {
		c.MaxComplexity = DefaultMaxComplexity
	}
	if c.ParserTokenLimit <= 0 {
		c.ParserTokenLimit = DefaultParserTokenLimit
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	for _, d := range []struct {
		v   *int
		def int
	}{
		{&c.MaxFields, DefaultMaxFields}, {&c.MaxAliases, DefaultMaxAliases}, {&c.MaxDirectives, DefaultMaxDirectives},
		{&c.MaxOperations, DefaultMaxOperations}, {&c.MaxFragments, DefaultMaxFragments}, {&c.MaxVariables, DefaultMaxVariables},
		{&c.MaxNodes, DefaultMaxNodes}, {&c.MaxNodesInFlight, DefaultMaxNodesInFlight}, {&c.MaxResponseBytes, DefaultMaxResponseBytes},
	} {
		if *d.v <= 0 {
			*d.v = d.def
		}
	}
	if c.MaxBodyBytes <= 0 {
		c.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Authn == nil && c.Auth != nil {
		c.Authn = authn.New(c.Auth, nil)
	}
}

// counters returns Metrics as the resolvers' counters: nil (not a nil
// *Metrics) when there are none.
func (c *Config) counters() resolvers.Counters {
	if c.Metrics == nil {
		return nil
	}
	return c.Metrics
}

// NewServer returns the gqlgen server: one HTTP transport (POST JSON and GET
// for queries only; no form or multipart transports, which browsers can send
// cross-site), the cheap document limits before validation, the cost limit
// after it, the node and response-size budget during execution, APQ, and
// error masking. Use NewHandler for the HTTP handler with auth and loaders
// around it.
func NewServer(cfg Config) *handler.Server {
	cfg.defaults()
	es, err := resolvers.NewExecutableSchema(cfg.API, cfg.Live, cfg.Federation)
	if err != nil { // the schema files are embedded and parsed at init: unreachable
		panic(err)
	}
	srv := handler.New(es)
	if cfg.Live != nil {
		// Before the HTTP transport, which would take an SSE request (a
		// JSON POST) as a plain one. Streams re-authenticate their token
		// as requests are.
		var auth upstream.CredentialAuth
		if cfg.Authn != nil {
			auth = cfg.Authn
		}
		cfg.Live.Install(srv, auth, func() live.Scope {
			lo := resolvers.NewLoaders(cfg.API)
			return func(ctx context.Context) context.Context { return resolvers.WithLoaders(ctx, lo) }
		}, cfg.MaxConnLifetime)
	}
	srv.AddTransport(httpTransport{maxBody: cfg.MaxBodyBytes, gc: &collector{}, shared: cfg.Shared})
	queries := lru.New[*ast.QueryDocument](DefaultQueryCacheSize)
	srv.SetQueryCache(queries)
	srv.SetParserTokenLimit(cfg.ParserTokenLimit)
	if !cfg.DisableIntrospection {
		srv.Use(extension.Introspection{})
	}
	// Parameter mutators run in this order: APQ fills in the query text,
	// then the document limits check it before the executor validates it.
	// Before APQ: it fills in the text of a registered id. Without a
	// registry it holds no document: a documentId is answered as unknown.
	docs := trusted.Extension{}
	if cfg.Trusted != nil {
		docs = *cfg.Trusted
	}
	srv.Use(docs)
	srv.Use(extension.AutomaticPersistedQuery{Cache: lru.New[string](DefaultAPQCacheSize)})
	srv.Use(limits.DocumentLimits{
		Tokens: cfg.ParserTokenLimit, Fields: cfg.MaxFields, Aliases: cfg.MaxAliases, Directives: cfg.MaxDirectives,
		Operations: cfg.MaxOperations, Fragments: cfg.MaxFragments, Depth: cfg.MaxDepth, Variables: cfg.MaxVariables,
		Cache: queries,
	})
	srv.Use(extension.FixedComplexityLimit(cfg.MaxComplexity))
	budget := limits.Budget{Nodes: cfg.MaxNodes, Bytes: cfg.MaxResponseBytes, InFlight: limits.NewInFlight(cfg.MaxNodesInFlight)}
	fcfg := resolvers.FastPathConfig{
		Budget:  budget,
		Present: resolvers.ErrorPresenter(cfg.Logger),
		Recover: resolvers.RecoverFunc(cfg.Logger),
	}
	if !cfg.NoFastPath {
		fcfg.Schema = es
	}
	fcfg.Counters = cfg.counters()
	fast := resolvers.NewFastPath(fcfg)
	srv.AroundFields(limits.MutationText)
	if cfg.Federation {
		srv.AroundFields(resolvers.CheckRepresentations(es.Schema())) // malformed _entities input: BAD_USER_INPUT
	}
	srv.AroundFields(fast.AroundFields)
	srv.AroundResponses(budget.AroundResponses)
	srv.AroundResponses(fast.AroundResponses) // inside the budget: deferred payloads are charged to it
	srv.SetErrorPresenter(fcfg.Present)
	srv.SetRecoverFunc(fcfg.Recover)
	srv.AroundOperations(limits.Admission{Admitter: cfg.Admission, Class: cfg.CostClass, Timeout: cfg.Timeout}.AroundOperations)
	srv.AroundOperations(traceOperation)       // tracing.go
	srv.AroundOperations(deferOnlyIncremental) // incremental.go
	if m := cfg.Metrics; m != nil {
		srv.AroundResponses(m.aroundResponses)
	}
	return srv
}

// NewHandler returns the /graphql endpoint: CSRF and method checks, body
// limit, per-request timeout, bearer auth, fresh loaders, then the gqlgen
// server. The request id, the access line, the metrics, the trace and
// panic recovery are observe.Stack's, in front of it.
func NewHandler(cfg Config) http.Handler {
	cfg.defaults()
	srv := NewServer(cfg)
	var h http.Handler = srv
	h = resolvers.LoaderMiddleware(cfg.API, cfg.counters(), h)
	// websocket: authenticated by connection_init; each operation gets
	// its loaders from its session, not one set for the connection.
	ws := live.Handler(srv)
	authenticated := cfg.Authn.Middleware(refuse(cfg.Logger))
	h = authenticated(h)
	sse := authenticated(live.Handler(resolvers.LoaderMiddleware(cfg.API, cfg.counters(), srv)))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		observe.FromContext(ctx).SetFacade("graphql")
		if cfg.Live != nil && live.IsRequest(r) {
			// No request timeout: a subscription lasts as long as its
			// connection. Websockets check the origin
			// (live.Hub.AllowOrigin), SSE is a POST under CORS.
			if r.Method == http.MethodGet {
				ws.ServeHTTP(w, r)
			} else {
				sse.ServeHTTP(w, r)
			}
			return
		}
		switch r.Method {
		case http.MethodGet:
		case http.MethodPost:
			// CSRF: only JSON bodies. Browsers send form and text/plain
			// bodies cross-site without a preflight; JSON needs one.
			mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
			if mt != "application/json" {
				writeError(w, http.StatusUnsupportedMediaType, resolvers.CodeUnsupportedMedia,
					"POST bodies must be application/json (form, multipart and text/plain bodies are refused as a CSRF protection)")
				return
			}
			// A declared size over the limit is refused before anything
			// else, without reading the body or authenticating.
			if r.ContentLength > cfg.MaxBodyBytes {
				writeError(w, http.StatusRequestEntityTooLarge, resolvers.CodeRequestTooLarge,
					fmt.Sprintf("the request body exceeds the limit of %d bytes", cfg.MaxBodyBytes))
				return
			}
		default:
			w.Header().Set("Allow", "GET, POST")
			writeError(w, http.StatusMethodNotAllowed, resolvers.CodeBadRequest, "use GET (queries only) or POST")
			return
		}
		ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
		defer cancel()
		h.ServeHTTP(w, r.WithContext(ctx))
	})
}

// refuse renders a refusal of the authentication middleware (package
// authn) as a GraphQL error with the status and extensions.code of its
// code in the error table; an internal error is logged and masked, and a
// request whose client went away is only logged.
func refuse(log *slog.Logger) authn.Refuse {
	return func(w http.ResponseWriter, r *http.Request, err error) {
		code := upstream.ErrorCode(err)
		if _, known := code.Info(); !known || code == upstream.CodeInternal {
			if errors.Is(r.Context().Err(), context.Canceled) {
				observe.FromContext(r.Context()).SetClientClosed()
				resolvers.LogError(r.Context(), log, slog.LevelInfo, "graphql: client closed", err, "status", resolvers.StatusClientClosed)
				return
			}
			resolvers.LogError(r.Context(), log, slog.LevelError, "graphql: authenticate", err)
			writeError(w, http.StatusInternalServerError, resolvers.CodeInternal, "internal error")
			return
		}
		if code.Infrastructure() {
			// The store could not check the token (the database is
			// down): the cause on the access line, when to retry.
			resolvers.LogError(r.Context(), log, slog.LevelWarn, "graphql: authenticate", err)
			if ra := code.RetryAfter(); ra > 0 {
				w.Header().Set("Retry-After", strconv.Itoa(ra))
			}
		}
		writeError(w, code.Status(), code.GraphQL(), upstream.ErrorMessage(err))
	}
}

// writeError writes a GraphQL response with one error.
func writeError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(struct {
		Errors gqlerror.List `json:"errors"`
	}{gqlerror.List{{Message: msg, Extensions: map[string]any{"code": code}}}})
}
