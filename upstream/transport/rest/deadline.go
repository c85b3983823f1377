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

// DefaultWriteTimeout is the deadline of a write (any other method) when
// Options leaves WriteTimeout zero.
const DefaultWriteTimeout = 30 * time.Second

// codeTimeout is the code of a read that ran past its deadline: 503, with
// Retry-After. The store stops at the deadline (SQLite is interrupted,
// PostgreSQL cancels the statement, in-memory filtering checks the
// context), so the work ends with the answer.
const codeTimeout = upstream.CodeTimeout

// retryAfterTimeout is the Retry-After of a timeout answer, in seconds.
const retryAfterTimeout = 1

// deadline gives every read (GET and HEAD) a context that ends after
// read, and every write one that ends after write. A request that fails
// because it ran past it is answered by writeError as 503 timeout.
//
// The store bounds a write's transaction itself (sqlstore.Deadlines), but
// not what a write request reads before it — the caller's token, the
// facts a decision needs — nor its wait for the account's turn: without
// this deadline a database that stops answering (a network partition)
// holds those requests until it comes back. A write cut short before its
// COMMIT rolls back; one cut during it is answered outcome_unknown, which
// its Idempotency-Key makes safe to retry.
func deadline(read, write time.Duration) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			d := write
			if r.Method == http.MethodGet || r.Method == http.MethodHead {
				d = read
			}
			ctx, cancel := context.WithTimeout(r.Context(), d)
			defer cancel()
			next.ServeHTTP(w, r.WithContext(ctx))
		})
	}
}

// writeTimeout answers a request that ran past its deadline. writeError
// calls it for what would otherwise be an internal error once the
// request's context is past its deadline: the work failed because it was
// stopped.
func (s *server) writeTimeout(w http.ResponseWriter, r *http.Request, err error) {
	s.recordError(r, "timeout", err)
	w.Header().Set("Retry-After", strconv.Itoa(retryAfterTimeout))
	detail := "the read ran past its deadline and was stopped; narrow the filter or the page, or retry later"
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		detail = "the write ran past its deadline and was stopped before it was saved; retry later"
	}
	s.writeProblem(w, r, http.StatusServiceUnavailable, codeTimeout, detail, nil)
}
