package resolvers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"mime"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/okrgate/okrgate/graph"
	"github.com/okrgate/okrgate/resolvers/trusted"
	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/authn"
	"github.com/okrgate/okrgate/upstream/observe"
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
	API upstream.API
	// Authn authenticates every request (the binary builds one for both
	// facades). When nil, Auth's tokens do (authn.New(Auth, nil)).
	Authn *authn.Authenticator
	// Auth turns an API token into a caller (usually the same store), when
	// Authn is nil.
	Auth upstream.AuthService
	// Metrics, when not nil, records requests and latency per operation.
	Metrics *Metrics
	Logger  *slog.Logger
	// Live, when not nil, serves subscriptions (live.go) over websockets
	// and server-sent events; its Auth defaults to Config.Auth.
	Live *Live
	// MaxConnLifetime is how long a websocket may stay open before the
	// server closes it (CloseLifetime) for the client to reconnect;
	// DefaultMaxConnLifetime.
	MaxConnLifetime time.Duration

	MaxDepth         int // DefaultMaxDepth
	MaxComplexity    int // DefaultMaxComplexity
	ParserTokenLimit int // DefaultParserTokenLimit
	// Limits of the document checked before validation (DocumentLimits),
	// fragments expanded.
	MaxFields     int // DefaultMaxFields
	MaxAliases    int // DefaultMaxAliases
	MaxDirectives int // DefaultMaxDirectives
	MaxOperations int // DefaultMaxOperations
	MaxFragments  int // DefaultMaxFragments
	MaxVariables  int // JSON values in variables; DefaultMaxVariables
	// Budget of one operation while it executes (Budget).
	MaxNodes         int           // DefaultMaxNodes
	MaxNodesInFlight int           // of all operations at once; DefaultMaxNodesInFlight
	MaxResponseBytes int           // DefaultMaxResponseBytes
	MaxBodyBytes     int64         // request body; DefaultMaxBodyBytes
	Timeout          time.Duration // per request; DefaultTimeout
	// Admission, when not nil, admits every query and mutation (over any
	// transport) before it executes; CostClass names the class of an
	// estimated cost for it (admission.go).
	Admission Admitter
	CostClass CostClass
	// Trusted, when not nil, resolves registered documents sent by id and,
	// in its Only mode, refuses the documents that are not registered
	// (trusted.Extension).
	Trusted *trusted.Extension
	// DisableIntrospection turns introspection off (it is on by default),
	// and with it Federation's _service.
	DisableIntrospection bool
	// Federation serves the schema as an Apollo Federation v2 subgraph
	// (FederatedSchema): _service and _entities. Off, they are unknown
	// fields. docs/graphql.md ("Federation").
	Federation bool
	// NoFastPath serves every field through gqlgen's executor instead of
	// the breadth-first fast path (graph.Fast), which answers the same
	// bytes: for comparisons in tests and benchmarks.
	NoFastPath bool
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
	if c.Live != nil {
		if c.Live.Auth == nil && c.Authn != nil {
			// Streams re-authenticate their token as requests are.
			c.Live.Auth = c.Authn
		}
		c.Live.defaults()
	}
}

// NewServer returns the gqlgen server: one HTTP transport (POST JSON and GET
// for queries only; no form or multipart transports, which browsers can send
// cross-site), the cheap document limits before validation, the cost limit
// after it, the node and response-size budget during execution, APQ, and
// error masking. Use NewHandler for the HTTP handler with auth and loaders
// around it.
func NewServer(cfg Config) *handler.Server {
	cfg.defaults()
	serve := ServedSchema
	if cfg.Federation {
		serve = FederatedSchema
	}
	schema, err := serve()
	if err != nil { // the schema files are embedded and parsed at init: unreachable
		panic(err)
	}
	gcfg := graph.Config{Resolvers: &Resolver{API: cfg.API, Live: cfg.Live}, Schema: schema}
	SetComplexity(&gcfg)
	es := graph.NewExecutableSchema(gcfg)
	srv := handler.New(es)
	if cfg.Live != nil {
		// Before the HTTP transport, which would take an SSE request (a
		// JSON POST) as a plain one.
		srv.AddTransport(websocketTransport(cfg.Live, cfg.API, cfg.MaxConnLifetime))
		srv.AddTransport(sseTransport(cfg.Live))
		srv.AroundOperations(cfg.Live.operations)
		srv.AroundResponses(liveResponses(cfg.Live, cfg.API))
	}
	srv.AddTransport(httpTransport{maxBody: cfg.MaxBodyBytes, gc: &collector{}})
	queries := lru.New[*ast.QueryDocument](DefaultQueryCacheSize)
	srv.SetQueryCache(queries)
	srv.SetParserTokenLimit(cfg.ParserTokenLimit)
	if !cfg.DisableIntrospection {
		srv.Use(extension.Introspection{})
	}
	// Parameter mutators run in this order: APQ fills in the query text,
	// then the document limits check it before the executor validates it.
	if cfg.Trusted != nil { // before APQ: it fills in the text of a registered id
		srv.Use(*cfg.Trusted)
	}
	srv.Use(extension.AutomaticPersistedQuery{Cache: lru.New[string](DefaultAPQCacheSize)})
	srv.Use(DocumentLimits{
		Tokens: cfg.ParserTokenLimit, Fields: cfg.MaxFields, Aliases: cfg.MaxAliases, Directives: cfg.MaxDirectives,
		Operations: cfg.MaxOperations, Fragments: cfg.MaxFragments, Depth: cfg.MaxDepth, Variables: cfg.MaxVariables,
		Cache: queries,
	})
	srv.Use(extension.FixedComplexityLimit(cfg.MaxComplexity))
	budget := Budget{Nodes: cfg.MaxNodes, Bytes: cfg.MaxResponseBytes, InFlight: NewInFlight(cfg.MaxNodesInFlight)}
	fast := fastPath{budget: budget, metrics: cfg.Metrics}
	if !cfg.NoFastPath {
		fast.fast = graph.NewFast(es)
	}
	fast.present = errorPresenter(cfg.Logger)
	fast.recover = func(ctx context.Context, p any) error {
		err := observe.Panic(p, debug.Stack())
		if rec := observe.FromContext(ctx); rec != nil {
			rec.SetError(err) // on the access line, with its stack
		} else {
			cfg.Logger.ErrorContext(ctx, "graphql: panic", "request_id", RequestID(ctx), "panic", p, "stack", string(debug.Stack()))
		}
		return fmt.Errorf("panic: %v", p) // masked by the error presenter
	}
	srv.AroundFields(textLimits) // textlimits.go
	srv.AroundFields(fast.aroundFields)
	srv.AroundResponses(budget.aroundResponses)
	srv.AroundResponses(fast.aroundResponses) // inside the budget: deferred payloads are charged to it
	srv.SetErrorPresenter(fast.present)
	srv.SetRecoverFunc(fast.recover)
	srv.AroundOperations(admission{admit: cfg.Admission, class: cfg.CostClass, timeout: cfg.Timeout}.aroundOperations)
	srv.AroundOperations(traceOperation)
	srv.AroundOperations(deferOnlyIncremental) // incremental.go
	if m := cfg.Metrics; m != nil {
		srv.AroundResponses(func(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
			start := time.Now()
			resp := next(ctx)
			op := m.opLabel(operationName(ctx))
			outcome := "ok"
			if resp == nil || len(resp.Errors) > 0 {
				outcome = "error"
			}
			m.requests.WithLabelValues(op, outcome).Inc()
			m.latency.WithLabelValues(op).Observe(time.Since(start).Seconds())
			return resp
		})
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
	h = LoaderMiddleware(cfg.API, cfg.Metrics, h)
	// websocket: authenticated by connection_init; each operation gets
	// its loaders from its session, not one set for the connection.
	live := liveHandler(srv)
	authenticated := cfg.Authn.Middleware(refuse(cfg.Logger))
	h = authenticated(h)
	sse := authenticated(liveHandler(LoaderMiddleware(cfg.API, cfg.Metrics, srv)))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		observe.FromContext(ctx).SetFacade("graphql")
		if cfg.Live != nil && IsLive(r) {
			// No request timeout: a subscription lasts as long as its
			// connection. Websockets check the origin (same origin only).
			if r.Method == http.MethodGet {
				live.ServeHTTP(w, r)
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
				writeError(w, http.StatusUnsupportedMediaType, CodeUnsupportedMedia,
					"POST bodies must be application/json (form, multipart and text/plain bodies are refused as a CSRF protection)")
				return
			}
			// A declared size over the limit is refused before anything
			// else, without reading the body or authenticating.
			if r.ContentLength > cfg.MaxBodyBytes {
				writeError(w, http.StatusRequestEntityTooLarge, CodeRequestTooLarge,
					fmt.Sprintf("the request body exceeds the limit of %d bytes", cfg.MaxBodyBytes))
				return
			}
		default:
			w.Header().Set("Allow", "GET, POST")
			writeError(w, http.StatusMethodNotAllowed, CodeBadRequest, "use GET (queries only) or POST")
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
				logError(r.Context(), log, slog.LevelInfo, "graphql: client closed", err, "status", StatusClientClosed)
				return
			}
			logError(r.Context(), log, slog.LevelError, "graphql: authenticate", err)
			writeError(w, http.StatusInternalServerError, CodeInternal, "internal error")
			return
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
