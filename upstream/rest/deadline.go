package rest

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/okrgate/okrgate/upstream"
)

// DefaultReadTimeout is the deadline of a read (GET) when Options leaves
// ReadTimeout zero; it matches the GraphQL handler's per-request timeout.
const DefaultReadTimeout = 30 * time.Second

// codeTimeout is the code of a read that ran past its deadline: 503, with
// Retry-After. The store stops at the deadline (SQLite is interrupted,
// PostgreSQL cancels the statement, in-memory filtering checks the
// context), so the work ends with the answer.
const codeTimeout = upstream.CodeTimeout

// retryAfterTimeout is the Retry-After of a timeout answer, in seconds.
const retryAfterTimeout = 1

// deadline gives every read (GET and HEAD) a context that ends after d. A
// read that fails because it ran past it is answered by writeError as 503
// timeout. Writes keep the request's own context: a write either commits
// or rolls back as a whole, and one that is cut short is retried by its
// client anyway, so the deadline would add nothing but doubt.
func deadline(d time.Duration) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodGet && r.Method != http.MethodHead {
				next.ServeHTTP(w, r)
				return
			}
			ctx, cancel := context.WithTimeout(r.Context(), d)
			defer cancel()
			next.ServeHTTP(w, r.WithContext(ctx))
		})
	}
}

// writeTimeout answers a read that ran past its deadline. writeError calls
// it for what would otherwise be an internal error once the request's
// context is past its deadline: the work failed because it was stopped.
func (s *server) writeTimeout(w http.ResponseWriter, r *http.Request, err error) {
	s.recordError(r, "timeout", err)
	w.Header().Set("Retry-After", strconv.Itoa(retryAfterTimeout))
	s.writeProblem(w, r, http.StatusServiceUnavailable, codeTimeout,
		"the read ran past its deadline and was stopped; narrow the filter or the page, or retry later", nil)
}
