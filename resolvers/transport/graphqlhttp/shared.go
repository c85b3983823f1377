package graphqlhttp

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/okrgate/okrgate/resolvers"
	"github.com/okrgate/okrgate/resolvers/infra/respcache"
)

// Shared answers (package respcache): a query whose answer depends only
// on what its caller's visibility class may see is answered from the
// cache, computed once for the identical queries in flight, or executed
// and kept. docs/graphql-execution.md ("Shared answers") says which
// queries qualify and why an answer never crosses classes or versions.

// Shared shares answers between callers of one visibility class.
type Shared struct {
	Cache  *respcache.Cache
	Scoper *respcache.Scoper
	// Full executes every shared answer in full, never deriving it from
	// the previous answer of its request and class (derive.go): for
	// comparisons.
	Full bool
}

// sharedFields are the query fields whose answers depend on the caller
// only through the decisions of its visibility class, and on the account's
// data only through what its writes change (each moving the event log).
// Fields about the caller itself (viewer, myTokens, myBadges...) or its
// permissions as such are not among them: an operation selecting any other
// field is executed for its caller alone.
var sharedFields = map[string]bool{
	"goal": true, "metric": true, "task": true, "session": true, "team": true, "user": true,
	"goals": true, "metrics": true, "checkins": true, "tasks": true, "sessions": true, "teams": true, "users": true,
	"node": true, "nodes": true, "__typename": true,
}

// shareable reports whether op's answer may be shared within a class: a
// query of sharedFields only, without @defer or @stream (whose parts are
// written as they resolve).
func shareable(op *ast.OperationDefinition) bool {
	if op == nil || op.Operation != ast.Query {
		return false
	}
	for _, sel := range op.SelectionSet {
		f, ok := sel.(*ast.Field)
		if !ok || !sharedFields[f.Name] {
			return false // a fragment at the top: keep it simple
		}
	}
	return !incrementalIn(op.SelectionSet)
}

// incrementalIn reports whether a selection set (fragments included) uses
// @defer or @stream.
func incrementalIn(set ast.SelectionSet) bool {
	seen := map[*ast.FragmentDefinition]bool{}
	var walk func(ast.SelectionSet) bool
	walk = func(set ast.SelectionSet) bool {
		for _, sel := range set {
			var dirs ast.DirectiveList
			var sub ast.SelectionSet
			switch s := sel.(type) {
			case *ast.Field:
				dirs, sub = s.Directives, s.SelectionSet
			case *ast.InlineFragment:
				dirs, sub = s.Directives, s.SelectionSet
			case *ast.FragmentSpread:
				dirs = s.Directives
				if d := s.Definition; d != nil && !seen[d] {
					seen[d] = true
					sub = d.SelectionSet
				}
			}
			if dirs.ForName("defer") != nil || dirs.ForName("stream") != nil || walk(sub) {
				return true
			}
		}
		return false
	}
	return walk(set)
}

// serveShared answers a shareable query through the cache. It returns
// false, having written nothing, when the request's scope cannot be found
// (the caller then executes it alone).
func (t httpTransport) serveShared(ctx context.Context, w http.ResponseWriter, r *http.Request, params *graphql.RawParams,
	exec graphql.GraphExecutor, opCtx *graphql.OperationContext) bool {
	scope, err := t.shared.Scoper.Scope(ctx)
	if err != nil {
		return false
	}
	vars, err := json.Marshal(opCtx.Variables) // map keys sorted: canonical
	if err != nil {
		return false
	}
	key := respcache.Key{Scope: scope, Request: respcache.RequestDigest(opCtx.RawQuery, opCtx.OperationName, vars)}
	// GET and trusted documents are what an HTTP cache can name again:
	// they carry an entity tag, and If-None-Match is answered 304 when the
	// kept answer has that tag, without executing anything.
	conditional := r.Method == http.MethodGet || params.Extensions["documentId"] != nil
	if conditional {
		if a, ok := t.shared.Cache.Get(key); ok {
			t.writeShared(w, r, a, conditional)
			return true
		}
	}
	var own *graphql.Response // the leader's response, whatever it holds
	a, outcome := t.shared.Cache.Do(key, func(since int64) (respcache.Answer, respcache.Sharing) {
		ctx, d := t.shared.derivation(ctx, key)
		responses, rctx := exec.DispatchOperation(ctx, opCtx)
		own = responses(rctx)
		if own == nil || len(own.Errors) > 0 || (own.HasNext != nil && *own.HasNext) {
			return respcache.Answer{}, respcache.Own
		}
		t.shared.keepBase(key, d)
		bufs, err := encodeResponse(own)
		if err != nil {
			return respcache.Answer{}, respcache.Own
		}
		// The parts (the data among them) are the answer as they are:
		// written to every caller without being joined into a copy.
		own = nil
		a := respcache.Answer{Parts: bufs, ETag: respcache.ETagOf(bufs...)}
		// Kept only when no write moved the version meanwhile: then the
		// class and the answer were both of that version exactly. The
		// requests waiting for it (of versions since and later) share it
		// when only check-ins came after since: it is still decided as
		// for the class and shows the data of their versions or later
		// (under one check-in a second, a tree longer than a second would
		// otherwise be executed by each of them).
		after, err := t.shared.Scoper.Version(ctx)
		switch {
		case err != nil:
			return a, respcache.Own
		case since == after:
			return a, respcache.Keep
		case !t.shared.Scoper.KeptSince(ctx, scope.Account, since, after):
			return a, respcache.Own
		case after == scope.Version:
			return a, respcache.Keep
		}
		return a, respcache.Share
	})
	switch outcome {
	case respcache.Unshared:
		return false // the leader's answer was its own; execute this one alone
	case respcache.Computed:
		if a.Parts == nil { // not an answer to keep: write the leader's as usual
			t.writeResponse(w, responseType(r.Header.Get("Accept")), own)
			return true
		}
		defer t.gc.collectAfter(a.Len())
	}
	t.writeShared(w, r, a, conditional)
	return true
}

// writeShared writes a shared answer: with its entity tag when the
// request is conditional, 304 when If-None-Match names that tag. Its
// length is known, so it is sent with Content-Length rather than in
// chunks: a client can read a tree of megabytes into one buffer of its
// size.
func (t httpTransport) writeShared(w http.ResponseWriter, r *http.Request, a respcache.Answer, conditional bool) {
	h := w.Header()
	if conditional {
		h.Set("ETag", a.ETag)
		h.Set("Cache-Control", "private, no-cache")
		if noneMatch(r.Header.Values("If-None-Match"), a.ETag) {
			h.Del("Content-Type")
			w.WriteHeader(http.StatusNotModified)
			return
		}
	}
	h.Set("Content-Length", strconv.Itoa(a.Len()))
	_, _ = a.WriteTo(w)
}

// writeResponse writes an executed response of media type ct: 503 with
// Retry-After when its one error says the server is busy or overloaded,
// and, under application/graphql-response+json, 503 or 507 without data
// when the infrastructure failed the whole operation (notServed).
func (t httpTransport) writeResponse(w http.ResponseWriter, ct string, resp *graphql.Response) {
	if resp == nil {
		writeRequestErrors(w, http.StatusInternalServerError, gqlerror.List{requestError(resolvers.CodeInternal, "internal error")})
		return
	}
	if ct == mediaGraphQLResponse {
		if status := notServed(resp); status != 0 {
			if ra := retryAfter(resp.Errors); ra > 0 {
				w.Header().Set("Retry-After", strconv.Itoa(ra))
			}
			writeRequestErrors(w, status, resp.Errors)
			return
		}
	}
	body, err := encodeResponse(resp)
	if err != nil {
		writeRequestErrors(w, http.StatusInternalServerError, gqlerror.List{requestError(resolvers.CodeInternal, "internal error")})
		return
	}
	busy(w, resp)
	_, _ = body.WriteTo(w)
	t.gc.collectAfter(len(resp.Data))
}

// noneMatch reports whether If-None-Match values name etag (weak
// comparison, RFC 9110 §13.1.2) or are "*". A malformed header matches
// nothing: the answer is then sent in full.
func noneMatch(values []string, etag string) bool {
	for _, v := range values {
		for t := range strings.SplitSeq(v, ",") {
			t = strings.TrimSpace(t)
			if t == "*" || strings.TrimPrefix(t, "W/") == etag {
				return true
			}
		}
	}
	return false
}
