package upstream

import (
	"context"
	"time"
)

// IdempotencyTTL is how long a recorded answer is kept for replay: a retry
// with the same Idempotency-Key within 24 hours gets the first answer again.
const IdempotencyTTL = 24 * time.Hour

// IdempotencyLease bounds how long a request holding a key may run. A
// reservation older than this whose write never committed belongs to a
// request that died; the key is then free again.
const IdempotencyLease = 2 * time.Minute

// Error codes of idempotent requests.
const (
	// CodeIdempotencyKeyReused: the key was used before with another
	// request body (HTTP 422).
	CodeIdempotencyKeyReused Code = "idempotency_key_reused"
	// CodeIdempotencyKeyInUse: a request with the key is still running, or
	// ran and was applied but its answer was lost (HTTP 409).
	CodeIdempotencyKeyInUse Code = "idempotency_key_in_use"
)

// IdempotencyKey names one logical request: the client's key, scoped to
// the caller (account and user) and the operation (method and path), with a
// digest of the request (Hash) to tell a retry from a different request
// reusing the key.
type IdempotencyKey struct {
	AccountID, UserID string
	Method, Path      string
	Key               string
	Hash              string
	// Replayed is set by a backend that forwards the key to a server of
	// the REST API (a gateway's client) when that server answered with its
	// recorded answer: the HTTP layer then marks its own answer replayed.
	Replayed bool
}

// IdempotentResponse is a recorded answer, replayed as it was.
type IdempotentResponse struct {
	Status      int    `json:"status"`
	ContentType string `json:"contentType,omitempty"`
	Location    string `json:"location,omitempty"`
	ETag        string `json:"etag,omitempty"`
	Body        []byte `json:"body"`
}

// Idempotency is implemented by backends that record answers for replay.
// The HTTP layer reserves the key before running the request, and completes
// (or releases) it after; the backend marks the reservation applied inside
// the transaction of the request's write, so that a key is applied at most
// once even when the process dies between the write and the record.
type Idempotency interface {
	// ReserveIdempotencyKey reserves k for a new request and returns nil,
	// or returns the recorded answer of the earlier request with k. It fails
	// with CodeIdempotencyKeyReused when the earlier request had another
	// Hash, and CodeIdempotencyKeyInUse while it is still running.
	ReserveIdempotencyKey(ctx context.Context, k IdempotencyKey) (*IdempotentResponse, error)
	// CompleteIdempotencyKey records the answer of the request holding k.
	CompleteIdempotencyKey(ctx context.Context, k IdempotencyKey, resp IdempotentResponse) error
	// ReleaseIdempotencyKey drops the reservation of k, after a request
	// that applied nothing (a server error, a client gone), so a retry runs.
	ReleaseIdempotencyKey(ctx context.Context, k IdempotencyKey) error
}
