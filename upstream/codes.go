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
// that does.
type CodeInfo struct {
	Code    Code
	Status  int
	GraphQL string
}

// codeTable is the error table. Where several codes share a status or a
// GraphQL code, the first row is the one CodeOfStatus and CodeOfGraphQL
// answer: the most general code of that status.
var codeTable = [...]CodeInfo{
	{CodeInvalid, http.StatusBadRequest, "BAD_USER_INPUT"},
	{CodeInvalidFilter, http.StatusBadRequest, "BAD_USER_INPUT"},
	{CodeUnknownParam, http.StatusBadRequest, "BAD_USER_INPUT"},
	{CodeAccountHeader, http.StatusBadRequest, "BAD_USER_INPUT"},
	{CodeLimitExceeded, http.StatusBadRequest, "LIMIT_EXCEEDED"},
	{CodeMalformedRequest, http.StatusBadRequest, "BAD_REQUEST"},
	{CodeUnauthenticated, http.StatusUnauthorized, "UNAUTHENTICATED"},
	{CodePaymentRequired, http.StatusPaymentRequired, "ACCOUNT_SUSPENDED"},
	{CodeForbidden, http.StatusForbidden, "FORBIDDEN"},
	{CodeInsufficientScope, http.StatusForbidden, "INSUFFICIENT_SCOPE"},
	{CodeSessionLocked, http.StatusForbidden, "SESSION_LOCKED"},
	{CodeSessionClosed, http.StatusForbidden, "SESSION_CLOSED"},
	{CodeGoalAbandoned, http.StatusForbidden, "GOAL_ABANDONED"},
	{CodeNotFound, http.StatusNotFound, "NOT_FOUND"},
	{CodeMethodNotAllowed, http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED"},
	{CodeConflict, http.StatusConflict, "CONFLICT"},
	{CodeIdempotencyKeyInUse, http.StatusConflict, "IDEMPOTENCY_KEY_IN_USE"},
	{CodePreconditionFailed, http.StatusPreconditionFailed, "PRECONDITION_FAILED"},
	{CodeRequestTooLarge, http.StatusRequestEntityTooLarge, "REQUEST_TOO_LARGE"},
	{CodeURITooLong, http.StatusRequestURITooLong, "URI_TOO_LONG"},
	{CodeUnsupportedMediaType, http.StatusUnsupportedMediaType, "UNSUPPORTED_MEDIA_TYPE"},
	{CodeExpectationFailed, http.StatusExpectationFailed, "EXPECTATION_FAILED"},
	{CodeIdempotencyKeyReused, http.StatusUnprocessableEntity, "IDEMPOTENCY_KEY_REUSED"},
	{CodeHeadersTooLarge, http.StatusRequestHeaderFieldsTooLarge, "HEADERS_TOO_LARGE"},
	{CodeClientClosed, 499, "CLIENT_CLOSED"}, // nginx's "client closed request" (observe.StatusClientClosed)
	{CodeNotModified, http.StatusNotModified, "NOT_MODIFIED"},
	{CodeInternal, http.StatusInternalServerError, "INTERNAL_SERVER_ERROR"},
	{CodeUnsupportedEncoding, http.StatusNotImplemented, "UNSUPPORTED_TRANSFER_ENCODING"},
	{CodeUnavailable, http.StatusServiceUnavailable, "UPSTREAM_UNAVAILABLE"},
	{CodeTimeout, http.StatusServiceUnavailable, "TIMEOUT"},
	{CodeUnsupportedVersion, http.StatusHTTPVersionNotSupported, "UNSUPPORTED_HTTP_VERSION"},
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
