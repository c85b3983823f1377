package rest

import (
	"net/http"

	"github.com/okrgate/okrgate/upstream"
)

// Limits on the request line and header fields. They are checked before
// authentication, so an oversized request costs nothing but its read.
const (
	// MaxURLBytes bounds the request target (path and query): a longer one
	// is 414 (code uri_too_long). Filters travel in the query string; 16 KiB
	// holds any filter a person writes.
	MaxURLBytes = 16 << 10
	// MaxHeaderBytes bounds the header fields of a request (names, values
	// and separators): more is 431 (code headers_too_large). The
	// http.Server's own MaxHeaderBytes must be larger, or Go answers first
	// with its own 431 — which Listener turns into the same problem, but
	// without the facade's detail (see docs/decisions/rest-api.md).
	MaxHeaderBytes = 32 << 10
)

// Codes of the request limits.
const (
	codeURITooLong      = upstream.CodeURITooLong      // 414
	codeHeadersTooLarge = upstream.CodeHeadersTooLarge // 431
)

// limits refuses, with a problem body and before any other work, a request
// whose target is over MaxURLBytes (414), whose header fields are over
// MaxHeaderBytes (431) or whose declared Content-Length is over MaxBodyBytes
// (413; MaxAvatarRequestBytes for a picture's upload, avatars.go). The last answers at once instead of waiting for a body that will be
// refused anyway; a chunked body of unknown length is still cut at
// MaxBodyBytes while it is read (decodeBody).
func (s *server) limits(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var err error
		switch {
		case len(r.RequestURI) > MaxURLBytes:
			err = upstream.Errorf(codeURITooLong, "the request target is longer than %d bytes", MaxURLBytes)
		case headerBytes(r.Header) > MaxHeaderBytes:
			err = upstream.Errorf(codeHeadersTooLarge, "the request header fields are larger than %d bytes", MaxHeaderBytes)
		case r.ContentLength > bodyLimit(r):
			err = upstream.Errorf(codeTooLarge, "the request body is larger than %d bytes", bodyLimit(r))
		default:
			next.ServeHTTP(w, r)
			return
		}
		// The body is not read: the connection is closed rather than
		// drained, and the answer says so.
		w.Header().Set("Connection", "close")
		s.writeError(w, r, err)
	})
}

// headerBytes is the size of header fields as sent: "Name: value\r\n" each.
func headerBytes(h http.Header) int {
	n := 0
	for name, vs := range h {
		for _, v := range vs {
			n += len(name) + len(v) + 4
		}
	}
	return n
}
