// Package rest is the REST facade: it serves any Backend at the paths of
// the OKR REST API the Quantive (Gtmhub) platform documents, with the
// conventions of docs/rest.md — bearer authentication, the service-accountId
// header (or the real platform's gtmhub-accountId), RFC 9457 problem bodies, strict list parameters, JSON-only bodies.
//
// Handlers are thin: they parse the request, call the API and encode the
// result. Business rules live behind the Backend (in the store); this
// package never touches SQL.
//
// Choices where the contract leaves room:
//   - A path id that is not 24 lowercase hex characters is 404 not_found: such
//     an id cannot name anything, and answering as for an unknown (or another
//     account's) id reveals nothing about the id space.
//   - A request body is JSON: application/json (or a +json type), or no
//     Content-Type, text/plain or application/x-www-form-urlencoded — what
//     clients send by default for a string body — when it is a JSON object;
//     anything else is 415 (code unsupported_media_type). A body over 1 MiB
//     is 413 (code request_too_large).
//   - 304 Not Modified (a goal that already carries the tag) has no body, as
//     HTTP requires; the contract's "message string" goes in the X-Message
//     response header.
//   - Errors of the filter, sort and fields parameters all carry code
//     invalid_filter (upstream.CodeInvalidFilter covers all three
//     expressions); errors[0].field names the query parameter and the
//     message names the offending field.
package rest

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/infra/authn"
	"github.com/okrgate/okrgate/upstream/infra/observe"
)

// Options configures the facade.
type Options struct {
	// Logger receives errors that happen after the answer was written (an
	// idempotency record that could not be kept), and internal errors when
	// the facade is served without the observe stack. Nil discards.
	// The access line, the request id and panic recovery are the
	// observe.Stack's, in front of the facade.
	Logger *slog.Logger
	// NoGatewayRoutes leaves out the designed operations marked Gateway
	// (gateway.go): a facade of the documented operations only, to test a
	// gateway's fallback against.
	NoGatewayRoutes bool
	// Webhooks serves /api/v1/webhooks (webhooks.go); when nil, those
	// routes answer 404. Capabilities beyond the Backend are given
	// here, never found by type assertion on it.
	Webhooks upstream.WebhookService
	// ReadTimeout is the deadline of a GET (deadline.go): past it the
	// work is stopped and the answer is 503 timeout. Zero means
	// DefaultReadTimeout.
	ReadTimeout time.Duration
	// WriteTimeout is the deadline of any other request (deadline.go):
	// past it the work is stopped and the answer is 503 timeout, or
	// outcome_unknown for a write cut during its COMMIT. Zero means
	// DefaultWriteTimeout.
	WriteTimeout time.Duration
	// Events serves the event feed, GET /api/v2/events (events.go); when
	// nil, it answers 404.
	Events upstream.EventLog
	// Authn authenticates every operation (the binary builds one for both
	// facades). When nil, Auth's tokens do (authn.New(Auth, nil)).
	Authn *authn.Authenticator
	// Auth turns an API token into a caller (usually the store the
	// facade serves) when Authn is nil. With neither, every operation but
	// the OpenAPI document and the pictures is 401.
	Auth upstream.AuthService
}

// Backend is what the facade serves: the services of every operation of
// the contract, the versions behind its ETags (Versions), the record of
// its Idempotency-Keys (Idempotency) and the views that bind a request's
// precondition and key to its writes (Writable). Authentication is not the
// Backend's: it is Options.Authn's. A store, the HTTP client or the
// instrumented decorator of either is one.
type Backend interface {
	upstream.TokenService
	upstream.GoalService
	upstream.MetricService
	upstream.TaskService
	upstream.SessionService
	upstream.UserService
	upstream.AvatarService
	upstream.TeamService
	upstream.AccountService
	upstream.EmployeeService
	upstream.RoleService
	upstream.PermissionService
	upstream.TagService
	upstream.BadgeService
	upstream.DashboardService
	upstream.KPIService
	upstream.ListService
	upstream.AnnouncementService
	upstream.CommentService
	upstream.Versions
	upstream.Idempotency
	upstream.Writable
}

// Route is one operation of the facade, as data. The router is built from
// this table, so tests can compare it with the contract's endpoint list and
// generate an authorization matrix from it without drifting from what is
// served.
type Route struct {
	Method  string
	Pattern string // chi pattern, exactly the contract's path ("/api/v1/goals/{id}")
	// Operation names the upstream method the route serves one to one,
	// when it does: its path parameters are the method's first string
	// arguments after the context, in order, its body the one argument
	// after them (none: no body), its answer the method's result. The HTTP
	// client's method of it is generated from this (upstream/backend/client/gen).
	Operation string
	// Account is true when the contract lists the service-accountId header
	// (Acct) for the operation: the header (or its alias gtmhub-accountId,
	// AccountHeader) is then required. Elsewhere it is optional but, when
	// sent, must still name the caller's account.
	Account bool
	// Deprecated operations answer normally and add the RFC 9745
	// Deprecation header and a Link to Successor.
	Deprecated bool
	Successor  string
	// Params are the query parameters the operation accepts; any other is a
	// 400 unknown_parameter.
	Params []string
	// Success is the status of a successful answer.
	Success int
	// Designed is true for operations the contract does not show but
	// DESIGN.md designs in the same style (goal CRUD, check-ins, ...).
	Designed bool
	// Versioned names the kind of resource (upstream.KindGoal, ...) whose
	// version the route's last path parameter addresses: a GET answers its
	// ETag and honours If-None-Match, a PATCH or DELETE honours If-Match.
	Versioned string
	// Idempotent is true for operations that honour Idempotency-Key: every
	// POST except those whose answer holds a credential (Secret).
	Idempotent bool
	// Secret is true for operations whose answer holds a credential (a new
	// token): it is never recorded, so they take no Idempotency-Key.
	Secret bool
	// Gateway is true for the designed operations a GraphQL gateway needs
	// to load the graph one call per level (gateway.go).
	Gateway bool
	// Enriched is true for the listings that compute enrichments
	// (assignee, tags, the caller's allowed actions, embedded key results
	// and tasks) which include= selects: the HTTP client sends include for
	// a projection where the upstream takes it (Capabilities.Include).
	Enriched bool
}

// deprecatedAt is the date of the contract's deprecations: the announcements
// are deprecated as of 2022-03-15, and no other deprecation is dated, so the
// same date is used for all.
var deprecatedAt = time.Date(2022, time.March, 15, 0, 0, 0, 0, time.UTC)

// Routes returns the operations the facade serves, in registration order.
func Routes() []Route {
	t := table()
	out := make([]Route, len(t))
	for i, e := range t {
		out[i] = e.Route
		out[i].Params = append([]string(nil), e.Params...)
	}
	return out
}

// New returns an http.Handler serving api at the documented paths.
func New(api Backend, opts Options) http.Handler {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &server{api: api, log: log, hooks: opts.Webhooks, feed: opts.Events, authn: opts.Authn}
	if s.authn == nil {
		auth := opts.Auth
		if auth == nil {
			auth = noTokens{}
		}
		s.authn = authn.New(auth, nil)
	}

	r := chi.NewRouter()
	readTimeout := opts.ReadTimeout
	if readTimeout <= 0 {
		readTimeout = DefaultReadTimeout
	}
	writeTimeout := opts.WriteTimeout
	if writeTimeout <= 0 {
		writeTimeout = DefaultWriteTimeout
	}
	r.Use(recordRoute, s.limits, noStore, deadline(readTimeout, writeTimeout))
	r.NotFound(func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, r, upstream.Errorf(upstream.CodeNotFound, "no operation at %s %s", r.Method, r.URL.Path))
	})
	r.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, r, &upstream.Error{Code: codeMethodNotAllowed, Message: fmt.Sprintf("method %s is not allowed on %s", r.Method, r.URL.Path)})
	})
	// The OpenAPI document needs no credentials.
	if opts.NoGatewayRoutes {
		doc := documentWithoutGateway()
		r.Get(OpenAPIPath, func(w http.ResponseWriter, r *http.Request) { serveDocument(w, doc) })
	} else {
		r.Get(OpenAPIPath, serveOpenAPI)
	}
	// Uploaded pictures need no credentials either (avatars.go).
	r.Get(upstream.AvatarPathPrefix+"{accountId}/{file}", s.serveAvatar)
	r.Head(upstream.AvatarPathPrefix+"{accountId}/{file}", s.serveAvatar)
	for _, e := range table() {
		if opts.NoGatewayRoutes {
			if e.Gateway {
				continue
			}
			e = withoutGatewayParams(e)
		}
		var h http.Handler = s.endpoint(e)
		if e.Deprecated {
			// A retired feature (announcements) has no successor: its Link
			// is RFC 9745's rel="deprecation", to the document marking it so.
			link := fmt.Sprintf("<%s>; rel=\"deprecation\"", OpenAPIPath)
			if e.Successor != "" {
				link = fmt.Sprintf("<%s>; rel=\"successor-version\"", e.Successor)
			}
			h = middleware.Deprecation(deprecatedAt, link)(h)
		}
		r.Method(e.Method, e.Pattern, h)
	}
	return r
}

// server holds what the handlers share.
type server struct {
	api   Backend
	log   *slog.Logger
	hooks upstream.WebhookService // webhooks.go
	feed  upstream.EventLog       // events.go
	authn *authn.Authenticator
}

// handlerFunc is the shape of an operation's handler: it returns the value to
// encode with the route's success status, or an error to render as a problem.
type handlerFunc func(s *server, w http.ResponseWriter, r *http.Request) (any, error)

// entry binds a Route to its handler.
type entry struct {
	Route
	h handlerFunc
}

// endpoint wraps an operation's handler with the per-route checks:
// authentication (package authn's middleware), the account header where
// the route requires it, the allowed query parameters, the Idempotency-Key
// of a POST (idempotent.go), and then run.
func (s *server) endpoint(e entry) http.Handler {
	allowed := make(map[string]bool, len(e.Params))
	for _, p := range e.Params {
		allowed[p] = true
	}
	return s.authn.Middleware(s.writeError)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if e.Account && authn.Account(r) == "" {
			s.writeError(w, r, upstream.Errorf(upstream.CodeAccountHeader, "the %s header is required for this operation", authn.AccountHeader))
			return
		}
		if err := checkParams(r, allowed); err != nil {
			s.writeError(w, r, err)
			return
		}
		key, hasKey, err := idempotencyKey(r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		if !hasKey {
			s.run(e, w, r, nil)
			return
		}
		if !e.Idempotent {
			s.writeError(w, r, upstream.Invalid("Idempotency-Key", "this operation does not take an Idempotency-Key; it is honoured on POST operations"))
			return
		}
		s.idempotent(w, r, s.api, key, func(w http.ResponseWriter, r *http.Request, k *upstream.IdempotencyKey) { s.run(e, w, r, k) })
	}))
}

// run calls an operation's handler — conditionally on a versioned route
// (conditional.go), under the reserved Idempotency-Key key when not nil
// (idempotent.go) — and encodes its result.
func (s *server) run(e entry, w http.ResponseWriter, r *http.Request, key *upstream.IdempotencyKey) {
	var v any
	var err error
	switch {
	case r.Header.Get("If-Match") != "" && (e.Versioned == "" || e.Method == http.MethodGet):
		err = upstream.Invalid("If-Match", "this operation does not take If-Match; it is honoured on PATCH and DELETE of goals, key results, tasks and sessions")
	case e.Versioned != "" && e.Method == http.MethodGet:
		var etag string
		var match bool
		v, etag, match, err = s.conditionalGet(r.Context(), r, e.Versioned, urlParam(r, idParam(e.Pattern)), func() (any, error) { return e.h(s, w, r) })
		if err == nil && etag != "" {
			w.Header().Set("ETag", etag)
		}
		if err == nil && match {
			w.WriteHeader(http.StatusNotModified)
			return
		}
	case e.Versioned != "":
		var p *upstream.Precondition
		if p, err = ifMatch(r, e.Versioned, urlParam(r, idParam(e.Pattern))); err != nil {
			break
		}
		v, err = e.h(s.writing(upstream.WriteOptions{Precondition: p, Idempotency: key}), w, r)
		if err == nil && p.ETag != "" && e.Method != http.MethodDelete {
			w.Header().Set("ETag", p.ETag)
		}
	default:
		v, err = e.h(s.writing(upstream.WriteOptions{Idempotency: key}), w, r)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	switch x := v.(type) {
	case notModified:
		w.Header().Set("X-Message", string(x))
		w.WriteHeader(http.StatusNotModified)
	case nil:
		w.WriteHeader(e.Success)
	case withStatus:
		s.writeJSON(w, r, x.status, x.v)
	case shaped:
		if len(x.view.ignored) > 0 {
			w.Header().Set(IgnoredFieldsHeader, strings.Join(x.view.ignored, ", "))
		}
		out, err := render(x.v, x.view, x.list)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		s.writeJSON(w, r, e.Success, out)
	default:
		s.writeJSON(w, r, e.Success, v)
	}
}

// writing returns s with its Backend's writes bound to o (upstream.Writable),
// for one request's handler; s itself when o holds no option.
func (s *server) writing(o upstream.WriteOptions) *server {
	if o.IsZero() {
		return s
	}
	v := *s
	v.api = s.api.Writing(o)
	return &v
}

// notModified is a handler result meaning 304 with the given message.
type notModified string

// recordRoute names the route pattern that served the request in its
// observe.Record, for the access line and the metrics.
func recordRoute(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		observe.FromContext(r.Context()).SetFacade("rest")
		next.ServeHTTP(w, r)
		pattern := chi.RouteContext(r.Context()).RoutePattern()
		if pattern == "" || pattern == "/*" {
			pattern = "unmatched"
		}
		observe.FromContext(r.Context()).SetRoute(pattern)
	})
}

// noStore marks every API response as not cacheable: answers are per caller.
func noStore(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}

// noTokens is the token service of a facade given neither Options.Authn nor
// Options.Auth: it accepts no token.
type noTokens struct{}

func (noTokens) Authenticate(context.Context, string) (upstream.Caller, error) {
	return upstream.Caller{}, upstream.Errorf(upstream.CodeUnauthenticated, "this server accepts no API token")
}

func (noTokens) AuthenticateMany(_ context.Context, tokens []string) ([]upstream.Authentication, error) {
	out := make([]upstream.Authentication, len(tokens))
	for i := range out {
		_, out[i].Err = noTokens{}.Authenticate(context.Background(), tokens[i])
	}
	return out, nil
}
