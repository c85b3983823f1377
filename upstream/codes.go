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
	CodeOverloaded           Code = "overloaded"                    // the admission queue is full (its Retry-After comes from the queue)
	CodeRateLimited          Code = "rate_limited"                  // over a rate limit (its Retry-After comes from the limiter)
)

// CodeInfo is one row of the error table: a code with the HTTP status of a
// problem body that carries it and the extensions.code of a GraphQL error
// that does, and, where retrying soon helps, the seconds a client should
// wait first: the Retry-After of the answer (and GraphQL's
// extensions.retryAfter). For overloaded and rate_limited it is the least
// wait: the admission queue and the rate limiter answer their own.
//
// A GraphQLOnly code is one only the GraphQL endpoint answers (a document
// that does not parse, a limit of the executor, a subscription's failure):
// REST and the HTTP client never carry it. Its Status is 0 unless the
// endpoint answers it with a status of its own (SERVER_BUSY is 503): the
// transport decides (200 under application/json, 400 for a request error
// under application/graphql-response+json).
type CodeInfo struct {
	Code        Code
	Status      int
	GraphQL     string
	RetryAfter  int
	GraphQLOnly bool
}

// codeTable is the error table. Where several codes share a status or a
// GraphQL code, the first row is the one CodeOfStatus and CodeOfGraphQL
// answer: the most general code of that status.
var codeTable = [...]CodeInfo{
	{CodeInvalid, http.StatusBadRequest, "BAD_USER_INPUT", 0, false},
	{CodeInvalidFilter, http.StatusBadRequest, "BAD_USER_INPUT", 0, false},
	{CodeUnknownParam, http.StatusBadRequest, "BAD_USER_INPUT", 0, false},
	{CodeAccountHeader, http.StatusBadRequest, "BAD_USER_INPUT", 0, false},
	{CodeLimitExceeded, http.StatusBadRequest, "LIMIT_EXCEEDED", 0, false},
	{CodeMalformedRequest, http.StatusBadRequest, "BAD_REQUEST", 0, false},
	{CodeUnauthenticated, http.StatusUnauthorized, "UNAUTHENTICATED", 0, false},
	{CodePaymentRequired, http.StatusPaymentRequired, "ACCOUNT_SUSPENDED", 0, false},
	{CodeForbidden, http.StatusForbidden, "FORBIDDEN", 0, false},
	{CodeInsufficientScope, http.StatusForbidden, "INSUFFICIENT_SCOPE", 0, false},
	{CodeSessionLocked, http.StatusForbidden, "SESSION_LOCKED", 0, false},
	{CodeSessionClosed, http.StatusForbidden, "SESSION_CLOSED", 0, false},
	{CodeGoalAbandoned, http.StatusForbidden, "GOAL_ABANDONED", 0, false},
	{CodeNotFound, http.StatusNotFound, "NOT_FOUND", 0, false},
	{CodeMethodNotAllowed, http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED", 0, false},
	{CodeConflict, http.StatusConflict, "CONFLICT", 0, false},
	{CodeIdempotencyKeyInUse, http.StatusConflict, "IDEMPOTENCY_KEY_IN_USE", 0, false},
	{CodePreconditionFailed, http.StatusPreconditionFailed, "PRECONDITION_FAILED", 0, false},
	{CodeRequestTooLarge, http.StatusRequestEntityTooLarge, "REQUEST_TOO_LARGE", 0, false},
	{CodeURITooLong, http.StatusRequestURITooLong, "URI_TOO_LONG", 0, false},
	{CodeUnsupportedMediaType, http.StatusUnsupportedMediaType, "UNSUPPORTED_MEDIA_TYPE", 0, false},
	{CodeExpectationFailed, http.StatusExpectationFailed, "EXPECTATION_FAILED", 0, false},
	{CodeIdempotencyKeyReused, http.StatusUnprocessableEntity, "IDEMPOTENCY_KEY_REUSED", 0, false},
	{CodeHeadersTooLarge, http.StatusRequestHeaderFieldsTooLarge, "HEADERS_TOO_LARGE", 0, false},
	{CodeClientClosed, 499, "CLIENT_CLOSED", 0, false}, // nginx's "client closed request" (observe.StatusClientClosed)
	{CodeNotModified, http.StatusNotModified, "NOT_MODIFIED", 0, false},
	{CodeInternal, http.StatusInternalServerError, "INTERNAL_SERVER_ERROR", 0, false},
	{CodeUnsupportedEncoding, http.StatusNotImplemented, "UNSUPPORTED_TRANSFER_ENCODING", 0, false},
	{CodeUnavailable, http.StatusServiceUnavailable, "UPSTREAM_UNAVAILABLE", 2, false},
	{CodeDatabaseUnavailable, http.StatusServiceUnavailable, "UNAVAILABLE", 2, false},
	{CodeTimeout, http.StatusServiceUnavailable, "TIMEOUT", 1, false},
	{CodeOutcomeUnknown, http.StatusServiceUnavailable, "OUTCOME_UNKNOWN", 1, false},
	{CodeStorageFull, http.StatusInsufficientStorage, "STORAGE_FULL", 0, false},
	{CodeUnsupportedVersion, http.StatusHTTPVersionNotSupported, "UNSUPPORTED_HTTP_VERSION", 0, false},
	{CodeRateLimited, http.StatusTooManyRequests, "RATE_LIMITED", 1, false},
	{CodeOverloaded, http.StatusServiceUnavailable, "OVERLOADED", 1, false},
	{CodeServerBusy, http.StatusServiceUnavailable, "SERVER_BUSY", 1, true},
	{CodeGraphQLParseFailed, 0, "GRAPHQL_PARSE_FAILED", 0, true},
	{CodeGraphQLValidationFailed, 0, "GRAPHQL_VALIDATION_FAILED", 0, true},
	{CodePersistedQueryNotFound, 0, "PERSISTED_QUERY_NOT_FOUND", 0, true},
	{CodeIntrospectionDisabled, 0, "INTROSPECTION_DISABLED", 0, true},
	{CodeDocumentNotTrusted, 0, "DOCUMENT_NOT_TRUSTED", 0, true},
	{CodeUnknownDocument, 0, "UNKNOWN_DOCUMENT", 0, true},
	{CodeComplexityLimit, 0, "COMPLEXITY_LIMIT_EXCEEDED", 0, true},
	{CodeDepthLimit, 0, "DEPTH_LIMIT_EXCEEDED", 0, true},
	{CodeFieldLimit, 0, "FIELD_LIMIT_EXCEEDED", 0, true},
	{CodeAliasLimit, 0, "ALIAS_LIMIT_EXCEEDED", 0, true},
	{CodeDirectiveLimit, 0, "DIRECTIVE_LIMIT_EXCEEDED", 0, true},
	{CodeOperationLimit, 0, "OPERATION_LIMIT_EXCEEDED", 0, true},
	{CodeFragmentLimit, 0, "FRAGMENT_LIMIT_EXCEEDED", 0, true},
	{CodeVariablesLimit, 0, "VARIABLES_LIMIT_EXCEEDED", 0, true},
	{CodeNodeLimit, 0, "NODE_LIMIT_EXCEEDED", 0, true},
	{CodeResponseTooLarge, 0, "RESPONSE_TOO_LARGE", 0, true},
	{CodeTooManySubscriptions, 0, "TOO_MANY_SUBSCRIPTIONS", 0, true},
	{CodeSlowConsumer, 0, "SLOW_CONSUMER", 0, true},
}

// Codes returns the error table: every code with its HTTP status and
// GraphQL code. TestCodesComeFromTheTable fails on a code restated
// elsewhere (a string constant named Code…, a literal "code" of an error
// body) or declared in this package without a row.
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
		if row.Status == status && !row.GraphQLOnly {
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
