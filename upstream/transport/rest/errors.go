package rest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/infra/observe"
	"github.com/okrgate/okrgate/upstream/query"
)

// Codes that only the HTTP layer produces; their statuses are in the
// error table (upstream.Codes) with every other code's.
const (
	codeUnsupportedMediaType = upstream.CodeUnsupportedMediaType // 415: a body that is not JSON
	codeTooLarge             = upstream.CodeRequestTooLarge      // 413: a body over MaxBodyBytes
	codeMethodNotAllowed     = upstream.CodeMethodNotAllowed     // 405
)

// maxDetail bounds the length of a problem's detail and field messages.
const maxDetail = 512

// MaxBodyBytes is the largest request body accepted (1 MiB); a larger one is 413.
const MaxBodyBytes = 1 << 20

// Problem is an RFC 9457 problem-details body, the shape of every error
// answer of the facade.
type Problem struct {
	Type   string `json:"type"`
	Title  string `json:"title"`
	Status int    `json:"status"`
	Detail string `json:"detail"`
	// Code is the stable machine code (upstream.Code), e.g. "not_found".
	Code      string                `json:"code"`
	Errors    []upstream.FieldError `json:"errors,omitempty"`
	RequestID string                `json:"requestId,omitempty"`
}

// StatusOf returns the HTTP status of an error code, from the error table
// (upstream.Codes). Unknown codes are 500.
func StatusOf(c upstream.Code) int { return c.Status() }

// ProblemOf returns the status, code, client-safe detail and field errors of
// err. Anything that is neither an *upstream.Error with a known code, an
// infrastructure failure (upstream.Classify) nor a *query.Error is
// internal: its text is never shown.
func ProblemOf(err error) (status int, code upstream.Code, detail string, fields []upstream.FieldError) {
	var qe *query.Error
	if errors.As(err, &qe) {
		msg := qe.Message
		if qe.Field != "" && !strings.Contains(msg, strconv.Quote(qe.Field)) {
			msg = fmt.Sprintf("field %q: %s", qe.Field, qe.Message)
		}
		param := qe.Param
		if param == "" {
			param = "filter"
		}
		return http.StatusBadRequest, upstream.CodeInvalidFilter, fmt.Sprintf("invalid %s: %s", param, msg),
			[]upstream.FieldError{{Field: param, Message: msg}}
	}
	if ue := upstream.Classify(err); ue != nil {
		status := StatusOf(ue.Code)
		if status == http.StatusInternalServerError {
			return status, upstream.CodeInternal, "internal error", nil
		}
		return status, ue.Code, ue.Message, ue.Fields
	}
	return http.StatusInternalServerError, upstream.CodeInternal, "internal error", nil
}

// StatusClientClosed is the status logged (and written, to nobody) when the
// client went away before its answer: nginx's 499 "client closed request".
// Such a request is not a server failure and is not logged as one.
const StatusClientClosed = observe.StatusClientClosed

// codeClientClosed is the code of a request whose client went away.
const codeClientClosed = upstream.CodeClientClosed

// writeError renders err as a problem. The cause of an internal error goes
// on the request's access line (observe.Record.SetError), whose request id
// the body carries: one line per error. An error that only says the client
// went away (its request context is canceled) is a 499, logged at Info.
//
// An infrastructure failure (the database unavailable, slow or full) is
// logged with its cause on the access line too, and carries the
// Retry-After of its code (upstream.CodeInfo).
func (s *server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	status, code, detail, fields := ProblemOf(err)
	infra := status >= http.StatusInternalServerError && status != http.StatusNotImplemented
	if infra && errors.Is(r.Context().Err(), context.Canceled) {
		observe.FromContext(r.Context()).SetClientClosed()
		s.recordError(r, "client closed", err)
		s.writeProblem(w, r, StatusClientClosed, codeClientClosed, "the client closed the request before its answer", nil)
		return
	}
	// A write cut during its COMMIT keeps its outcome_unknown: the
	// deadline stopped it, but it may have been saved.
	if infra && code != upstream.CodeOutcomeUnknown && errors.Is(r.Context().Err(), context.DeadlineExceeded) {
		s.writeTimeout(w, r, err) // deadline.go
		return
	}
	if infra {
		s.recordError(r, string(code), err)
	}
	if ra := code.RetryAfter(); ra > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(ra))
	}
	s.writeProblem(w, r, status, code, detail, fields)
}

// recordError puts err on the request's access line, or, when the facade
// is served without the observe stack, logs it on a line of its own.
func (s *server) recordError(r *http.Request, msg string, err error) {
	if rec := observe.FromContext(r.Context()); rec != nil {
		rec.SetError(err)
		return
	}
	s.logInternal(r, msg, err)
}

// logInternal logs an internal error of the request r on a line of its own.
func (s *server) logInternal(r *http.Request, msg string, err error) {
	s.log.LogAttrs(r.Context(), slog.LevelError, msg,
		slog.String("request_id", requestIDFrom(r.Context())),
		slog.String("method", r.Method),
		slog.String("path", r.URL.Path),
		slog.String("error", err.Error()),
	)
}

// writeProblem writes an application/problem+json body. A 304 has no body
// (HTTP forbids one); its detail goes in the X-Message header.
func (s *server) writeProblem(w http.ResponseWriter, r *http.Request, status int, code upstream.Code, detail string, fields []upstream.FieldError) {
	if status == http.StatusNotModified {
		w.Header().Set("X-Message", detail)
		w.WriteHeader(status)
		return
	}
	// A detail repeats at most a short prefix of what the client sent
	// (a query parameter can be 16 KiB).
	detail = truncate(detail, maxDetail)
	for i := range fields {
		fields[i].Field = truncate(fields[i].Field, maxFieldName)
		fields[i].Message = truncate(fields[i].Message, maxDetail)
	}
	p := Problem{
		Type:      "urn:okrgate:problem:" + string(code),
		Title:     statusText(status),
		Status:    status,
		Detail:    detail,
		Code:      string(code),
		Errors:    fields,
		RequestID: requestIDFrom(r.Context()),
	}
	body, err := json.Marshal(p)
	if err != nil { // cannot happen: Problem has only strings and ints
		body = []byte(`{"type":"about:blank","title":"Internal Server Error","status":500,"detail":"internal error","code":"internal"}`)
	}
	h := w.Header()
	h.Set("Content-Type", "application/problem+json")
	h.Del("Content-Length")
	w.WriteHeader(status)
	_, _ = w.Write(append(body, '\n'))
}

// statusText is http.StatusText, with a title for 499 too.
func statusText(status int) string {
	if status == StatusClientClosed {
		return "Client Closed Request"
	}
	return http.StatusText(status)
}

// writeJSON writes v as application/json with the given status.
func (s *server) writeJSON(w http.ResponseWriter, r *http.Request, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		s.writeError(w, r, fmt.Errorf("encode response: %w", err))
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// RequestIDFrom returns the request id the observe stack gave the request
// of ctx, for handlers and APIs that want to log it.
func RequestIDFrom(ctx context.Context) string { return observe.RequestID(ctx) }

func requestIDFrom(ctx context.Context) string { return observe.RequestID(ctx) }
