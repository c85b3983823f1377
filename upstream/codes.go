package upstream

import "net/http"

// Codes of failures that only the HTTP layer produces (the REST facade,
// the GraphQL endpoint and the listener in front of both). They are here,
// beside the API's own, so that one table (Codes) holds every code.
const (
	CodeMalformedRequest     Code = "malformed_request"             // request line or header fields that do not parse
	CodeMethodNotAllowed     Code = "method_not_allowed"            // no such method on the path
	CodeRequestTooLarge      Code = "request_too_large"             // a body over the limit
	CodeURITooLong           Code = "uri_too_long"                  // a request target over the limit
	CodeUnsupportedMediaType Code = "unsupported_media_type"        // a body that is not JSON
	CodeExpectationFailed    Code = "expectation_failed"            // an Expect other than 100-continue
	CodeHeadersTooLarge      Code = "headers_too_large"             // header fields over the limit
	CodeClientClosed         Code = "client_closed"                 // the client went away before its answer
	CodeTimeout              Code = "timeout"                       // the request ran past its deadline and was stopped
	CodeUnsupportedEncoding  Code = "unsupported_transfer_encoding" // a Transfer-Encoding other than chunked
	CodeUnsupportedVersion   Code = "unsupported_http_version"      // an HTTP version other than 1.x
)

// CodeInfo is one row of the error table: a code with the HTTP status of a
// problem body that carries it and the extensions.code of a GraphQL error
// that does, and, where retrying soon helps, the seconds a client should
// wait first: the Retry-After of the answer (and GraphQL's
// extensions.retryAfter).
type CodeInfo struct {
	Code       Code
	Status     int
	GraphQL    string
	RetryAfter int
}

// codeTable is the error table. Where several codes share a status or a
// GraphQL code, the first row is the one CodeOfStatus and CodeOfGraphQL
// answer: the most general code of that status.
var codeTable = [...]CodeInfo{
	{CodeInvalid, http.StatusBadRequest, "BAD_USER_INPUT", 0},
	{CodeInvalidFilter, http.StatusBadRequest, "BAD_USER_INPUT", 0},
	{CodeUnknownParam, http.StatusBadRequest, "BAD_USER_INPUT", 0},
	{CodeAccountHeader, http.StatusBadRequest, "BAD_USER_INPUT", 0},
	{CodeLimitExceeded, http.StatusBadRequest, "LIMIT_EXCEEDED", 0},
	{CodeMalformedRequest, http.StatusBadRequest, "BAD_REQUEST", 0},
	{CodeUnauthenticated, http.StatusUnauthorized, "UNAUTHENTICATED", 0},
	{CodePaymentRequired, http.StatusPaymentRequired, "ACCOUNT_SUSPENDED", 0},
	{CodeForbidden, http.StatusForbidden, "FORBIDDEN", 0},
	{CodeInsufficientScope, http.StatusForbidden, "INSUFFICIENT_SCOPE", 0},
	{CodeSessionLocked, http.StatusForbidden, "SESSION_LOCKED", 0},
	{CodeSessionClosed, http.StatusForbidden, "SESSION_CLOSED", 0},
	{CodeGoalAbandoned, http.StatusForbidden, "GOAL_ABANDONED", 0},
	{CodeNotFound, http.StatusNotFound, "NOT_FOUND", 0},
	{CodeMethodNotAllowed, http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED", 0},
	{CodeConflict, http.StatusConflict, "CONFLICT", 0},
	{CodeIdempotencyKeyInUse, http.StatusConflict, "IDEMPOTENCY_KEY_IN_USE", 0},
	{CodePreconditionFailed, http.StatusPreconditionFailed, "PRECONDITION_FAILED", 0},
	{CodeRequestTooLarge, http.StatusRequestEntityTooLarge, "REQUEST_TOO_LARGE", 0},
	{CodeURITooLong, http.StatusRequestURITooLong, "URI_TOO_LONG", 0},
	{CodeUnsupportedMediaType, http.StatusUnsupportedMediaType, "UNSUPPORTED_MEDIA_TYPE", 0},
	{CodeExpectationFailed, http.StatusExpectationFailed, "EXPECTATION_FAILED", 0},
	{CodeIdempotencyKeyReused, http.StatusUnprocessableEntity, "IDEMPOTENCY_KEY_REUSED", 0},
	{CodeHeadersTooLarge, http.StatusRequestHeaderFieldsTooLarge, "HEADERS_TOO_LARGE", 0},
	{CodeClientClosed, 499, "CLIENT_CLOSED", 0}, // nginx's "client closed request" (observe.StatusClientClosed)
	{CodeNotModified, http.StatusNotModified, "NOT_MODIFIED", 0},
	{CodeInternal, http.StatusInternalServerError, "INTERNAL_SERVER_ERROR", 0},
	{CodeUnsupportedEncoding, http.StatusNotImplemented, "UNSUPPORTED_TRANSFER_ENCODING", 0},
	{CodeUnavailable, http.StatusServiceUnavailable, "UPSTREAM_UNAVAILABLE", 2},
	{CodeDatabaseUnavailable, http.StatusServiceUnavailable, "UNAVAILABLE", 2},
	{CodeTimeout, http.StatusServiceUnavailable, "TIMEOUT", 1},
	{CodeOutcomeUnknown, http.StatusServiceUnavailable, "OUTCOME_UNKNOWN", 1},
	{CodeStorageFull, http.StatusInsufficientStorage, "STORAGE_FULL", 0},
	{CodeUnsupportedVersion, http.StatusHTTPVersionNotSupported, "UNSUPPORTED_HTTP_VERSION", 0},
}

// Codes returns the error table: every code with its HTTP status and
// GraphQL code.
func Codes() []CodeInfo { return append([]CodeInfo(nil), codeTable[:]...) }

// Info returns the row of c, and false for a code not in the table (which
// is treated as CodeInternal). The table is short: a scan is as fast as a
// map and needs no state built at start.
func (c Code) Info() (CodeInfo, bool) {
	for _, row := range codeTable {
		if row.Code == c {
			return row, true
		}
	}
	internal, _ := CodeInternal.Info()
	return internal, false
}

// Status returns the HTTP status of c: 500 for a code not in the table.
func (c Code) Status() int {
	row, _ := c.Info()
	return row.Status
}

// RetryAfter returns the seconds a client should wait before it retries a
// request that failed with c, 0 when retrying soon does not help.
func (c Code) RetryAfter() int {
	row, _ := c.Info()
	return row.RetryAfter
}

// GraphQL returns the extensions.code of c: INTERNAL_SERVER_ERROR for a
// code not in the table.
func (c Code) GraphQL() string {
	row, _ := c.Info()
	return row.GraphQL
}

// CodeOfStatus returns the code of an HTTP answer that carries none (an
// error answer without a problem body): the first code of the table with
// that status, CodeInvalid for another 4xx and CodeInternal for another 5xx.
func CodeOfStatus(status int) Code {
	for _, row := range codeTable {
		if row.Status == status {
			return row.Code
		}
	}
	if status >= 500 {
		return CodeInternal
	}
	return CodeInvalid
}

// CodeOfGraphQL returns the code of a GraphQL error's extensions.code: the
// first code of the table with it, CodeInternal for one not in the table.
func CodeOfGraphQL(code string) Code {
	for _, row := range codeTable {
		if row.GraphQL == code {
			return row.Code
		}
	}
	return CodeInternal
}
