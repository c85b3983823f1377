// Package limit holds the HTTP middlewares that keep the server answering
// under load and abuse, in front of both the REST facade and /graphql:
//
//   - Admission admits the requests and GraphQL operations that execute
//     at once, reads and writes separately, under an adaptive concurrency
//     limit, queues the excess fairly between accounts, and refuses with
//     503 and a Retry-After from the queue's state only what would wait
//     longer than the queue allows;
//   - RateLimiter limits requests per token and per client address with
//     github.com/go-chi/httprate, and throttles failed authentications per
//     address harder, with 429 and Retry-After.
//
// Refusals are RFC 9457 problem bodies (code overloaded or rate_limited) on
// REST paths and GraphQL error bodies (extensions.code OVERLOADED or
// RATE_LIMITED) on /graphql. Health probes are mounted outside these
// middlewares by the caller, so they never queue behind work.
package limit

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/okrgate/okrgate/upstream"
)

// graphqlPath is where the GraphQL endpoint is served.
const graphqlPath = "/graphql"

// refuse writes a refusal with code (upstream.CodeOverloaded or
// CodeRateLimited) in the style of the endpoint r addresses: its status,
// problem code and extensions.code are the code's row of the error table.
func refuse(w http.ResponseWriter, r *http.Request, code upstream.Code, detail string) {
	status, gqlCode := code.Status(), code.GraphQL()
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	if r.URL.Path == graphqlPath || strings.HasPrefix(r.URL.Path, graphqlPath+"/") {
		h.Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(map[string]any{"errors": []any{
			map[string]any{"message": detail, "extensions": map[string]any{"code": gqlCode}},
		}})
		return
	}
	h.Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"type":   "urn:okrgate:problem:" + code,
		"title":  http.StatusText(status),
		"status": status,
		"detail": detail,
		"code":   string(code),
	})
}
