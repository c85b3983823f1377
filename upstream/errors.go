package upstream

import "fmt"

// Code is a stable, snake_case machine code for a class of failure. Clients
// may switch on it; the REST facade maps it to an HTTP status and GraphQL to
// extensions.code.
type Code string

// The error codes of the API.
const (
	CodeInvalid         Code = "invalid_input"     // malformed or semantically wrong input
	CodeInvalidFilter   Code = "invalid_filter"    // a filter, sort or fields expression that does not validate
	CodeUnknownParam    Code = "unknown_parameter" // a query parameter the operation does not take
	CodeUnauthenticated Code = "unauthenticated"   // missing, malformed or unknown credentials
	CodeAccountHeader   Code = "account_header_missing"
	CodePaymentRequired Code = "account_suspended" // the account is inactive
	CodeForbidden       Code = "forbidden"         // the caller may not do this
	CodeNotFound        Code = "not_found"
	CodeConflict        Code = "conflict"
	CodeNotModified     Code = "not_modified" // nothing changed (tag activation)
	CodeSessionLocked   Code = "session_locked"
	CodeSessionClosed   Code = "session_closed"
	CodeGoalAbandoned   Code = "goal_abandoned"
	CodeLimitExceeded   Code = "limit_exceeded"
	// CodePreconditionFailed: an If-Match precondition names a version
	// that is no longer the stored one (a concurrent write came first).
	CodePreconditionFailed Code = "precondition_failed"
	CodeInternal           Code = "internal"
)

// FieldError names one offending input field.
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// Error is a failure the caller can act on. Its Message is safe to show to
// clients; it never carries SQL, stack traces or another account's data.
type Error struct {
	Code    Code
	Message string
	Fields  []FieldError
	// Err is an underlying cause, kept for logs; it is never shown to clients.
	Err error
}

// Error returns "code: message", with the wrapped error when there is one.
func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

// Unwrap returns the wrapped error, so errors.Is and errors.As see it.
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error with code c and a formatted message.
func Errorf(c Code, format string, args ...any) *Error {
	return &Error{Code: c, Message: fmt.Sprintf(format, args...)}
}

// Invalid returns a CodeInvalid error naming the offending field.
func Invalid(field, format string, args ...any) *Error {
	msg := fmt.Sprintf(format, args...)
	return &Error{Code: CodeInvalid, Message: fmt.Sprintf("%s: %s", field, msg), Fields: []FieldError{{Field: field, Message: msg}}}
}

// NotFound returns a CodeNotFound error for the resource kind and id.
func NotFound(kind, id string) *Error {
	return Errorf(CodeNotFound, "%s %q not found", kind, id)
}

// ErrorCode returns the code of err: the Code of the first *Error in its
// chain, that of an infrastructure failure (Classify), or CodeInternal for
// any other non-nil error.
func ErrorCode(err error) Code {
	if err == nil {
		return ""
	}
	if e := Classify(err); e != nil {
		return e.Code
	}
	return CodeInternal
}

// ErrorMessage returns the client-safe message of err (Classify); other
// errors are internal and say only "internal error".
func ErrorMessage(err error) string {
	if e := Classify(err); e != nil {
		return e.Message
	}
	return "internal error"
}
