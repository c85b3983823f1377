package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/okrgate/okrgate/upstream"
)

// problem is the RFC 9457 body of an upstream error answer.
type problem struct {
	Status int                   `json:"status"`
	Detail string                `json:"detail"`
	Code   string                `json:"code"`
	Errors []upstream.FieldError `json:"errors"`
}

// problemError maps an error answer back to the *upstream.Error the
// upstream rendered: its code, detail and field errors. 5xx answers (and
// 429, the upstream shedding load) are upstream.CodeUnavailable: the
// upstream failed, not the caller; their detail is not repeated, except
// for a write whose outcome is unknown and a full database, whose codes
// pass through. A 304
// without a body is upstream.CodeNotModified with the X-Message header. A
// 4xx without a problem body gets the code of its status in the error
// table (upstream.CodeOfStatus).
func problemError(status int, h http.Header, body []byte) error {
	if status == http.StatusServiceUnavailable || status == http.StatusInsufficientStorage {
		// Two failures of the upstream's database say more than that it
		// failed: a write whose outcome is unknown (the client must not
		// take it for one that was not saved) and a full database (a
		// retry does not help).
		var p problem
		if err := json.Unmarshal(body, &p); err == nil && (p.Code == string(upstream.CodeOutcomeUnknown) || p.Code == string(upstream.CodeStorageFull)) {
			return &upstream.Error{Code: upstream.Code(p.Code), Message: p.Detail, Err: errUpstreamStatus{status, retryAfter(h)}}
		}
	}
	if status >= 500 || status == http.StatusTooManyRequests {
		return &upstream.Error{Code: upstream.CodeUnavailable, Message: fmt.Sprintf("the upstream answered %d %s", status, http.StatusText(status)),
			Err: errUpstreamStatus{status, retryAfter(h)}}
	}
	if status == http.StatusNotModified {
		msg := h.Get("X-Message")
		if msg == "" {
			msg = "nothing changed"
		}
		return upstream.Errorf(upstream.CodeNotModified, "%s", msg)
	}
	var p problem
	if err := json.Unmarshal(body, &p); err == nil && p.Code != "" {
		return &upstream.Error{Code: upstream.Code(p.Code), Message: p.Detail, Fields: p.Errors}
	}
	return upstream.Errorf(upstream.CodeOfStatus(status), "the upstream answered %d %s", status, http.StatusText(status))
}

// errUpstreamStatus is the cause of an unavailable error due to a 5xx or
// 429, with the wait its Retry-After asked for (0 without one).
type errUpstreamStatus struct {
	status int
	wait   time.Duration
}

// retryAfter reads a Retry-After header: seconds or an HTTP date; 0 when
// absent or unreadable.
func retryAfter(h http.Header) time.Duration {
	v := h.Get("Retry-After")
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0)
	}
	return 0
}

// RetryAfter returns the wait an upstream's 429 or 5xx answer asked for in
// its Retry-After header, and whether it asked.
func RetryAfter(err error) (time.Duration, bool) {
	var s errUpstreamStatus
	if errors.As(err, &s) && s.wait > 0 {
		return s.wait, true
	}
	return 0, false
}

func (e errUpstreamStatus) Error() string { return fmt.Sprintf("upstream status %d", e.status) }

// errNetwork marks the cause of an unavailable error due to the network (a
// refused connection, a reset, a timeout).
type errNetwork struct{ err error }

func (e errNetwork) Error() string { return e.err.Error() }
func (e errNetwork) Unwrap() error { return e.err }

// unavailable wraps a network failure of what (an operation or a route).
func unavailable(what string, err error) error {
	return &upstream.Error{Code: upstream.CodeUnavailable, Message: fmt.Sprintf("the upstream did not answer %s", what), Err: errNetwork{err}}
}

// retryable reports whether an idempotent read that failed with err may be
// sent again: after a network failure or a 503, and a 429 when the client
// honours Retry-After (Options.MaxRetryAfter).
func retryable(err error, honour bool) bool {
	var n errNetwork
	if errors.As(err, &n) {
		return true
	}
	var s errUpstreamStatus
	return errors.As(err, &s) && (s.status == http.StatusServiceUnavailable || honour && s.status == http.StatusTooManyRequests)
}

// isUpstreamFailure reports whether err counts against the circuit breaker:
// a network failure or a 5xx, not a 4xx answer (the caller's mistake).
func isUpstreamFailure(err error) bool {
	if errors.Is(err, context.Canceled) {
		return false // the caller went away; says nothing of the upstream
	}
	var n errNetwork
	var s errUpstreamStatus
	return errors.As(err, &n) || errors.As(err, &s) && s.status >= 500
}
