package rest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/infra/observe"
)

// Codes of the answers that net/http's server gives before any handler
// runs, as Listener rewrites them.
const (
	codeMalformedRequest    = upstream.CodeMalformedRequest    // 400: request line or header fields that do not parse
	codeUnsupportedEncoding = upstream.CodeUnsupportedEncoding // 501
	codeUnsupportedVersion  = upstream.CodeUnsupportedVersion  // 505
	codeExpectationFailed   = upstream.CodeExpectationFailed   // 417: an Expect other than 100-continue
)

// ListenerOptions configures Listener.
type ListenerOptions struct {
	// MaxHeaderBytes is the http.Server's MaxHeaderBytes, named in the
	// detail of a 431.
	MaxHeaderBytes int
	// Logger gets one line per rewritten answer, with its request id; nil
	// discards.
	Logger *slog.Logger
}

// Listener wraps ln, the listener of an http.Server serving plain HTTP/1.1,
// so that the answers the server gives by itself, before any handler runs,
// are problem bodies with a request id like every other answer:
//
//   - 431 for a request line and header fields over MaxHeaderBytes (a
//     1 MB query string),
//   - 400 for a request line or header that does not parse (a NUL byte or
//     a space in the target, a missing Host, a bad header name),
//   - 501 for an unknown Transfer-Encoding, 505 for an unknown HTTP
//     version, 417 for an Expect other than 100-continue.
//
// net/http offers no hook for these: it writes them itself, as text/plain
// (code "400 Bad Request"), straight to the connection, and closes it. A
// front that parsed requests itself would have to track every request's
// framing (bodies, chunked encoding, upgrades) to find the next one on a
// kept-alive connection; instead each connection's writes are watched, and
// a write that is one of those answers — exactly the status line, the
// fixed text/plain header block and the short text the server uses for
// them — is replaced by the problem answer. Every other write, the
// answers of the handlers and the bytes of hijacked connections
// (WebSockets), passes through untouched. The replacement keeps the
// server's "Connection: close"; before the connection is closed the
// client's unread request is drained for a bounded time (a lingering
// close), so that the client reads the answer instead of a reset.
//
// ln must not be a TLS listener's inner listener: the watched bytes are
// the server's plaintext.
func Listener(ln net.Listener, opts ListenerOptions) net.Listener {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return &problemListener{Listener: ln, opts: opts}
}

type problemListener struct {
	net.Listener
	opts ListenerOptions
}

func (l *problemListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &problemConn{Conn: c, opts: &l.opts}, nil
}

// Bounds of the lingering close after a rewritten answer.
const (
	lingerFor   = time.Second
	lingerBytes = 4 << 20
)

// problemConn is a server connection whose own error answers are rewritten.
type problemConn struct {
	net.Conn
	opts     *ListenerOptions
	answered atomic.Bool // an answer was rewritten: linger on Close
}

func (c *problemConn) Write(p []byte) (int, error) {
	if len(p) < 12 || p[0] != 'H' { // not a status line: the common case
		return c.Conn.Write(p)
	}
	status, text, ok := serverAnswer(p)
	if !ok {
		return c.Conn.Write(p)
	}
	c.answered.Store(true)
	if _, err := c.Conn.Write(c.problem(status, text)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// SyscallConn returns the socket's raw connection when there is one: a
// hijacked connection's writer of its own frames (a websocket's) may write
// to the socket without waiting on it, bytes this type never rewrites.
func (c *problemConn) SyscallConn() (syscall.RawConn, error) {
	sc, ok := c.Conn.(syscall.Conn)
	if !ok {
		return nil, errors.ErrUnsupported
	}
	return sc.SyscallConn()
}

// CloseWrite half-closes the connection as net/http does after a 431.
func (c *problemConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// Close closes the connection; after a rewritten answer it first reads
// and discards what the client is still sending, within lingerFor and
// lingerBytes, so that closing with unread data does not reset the
// connection before the client has read the answer.
func (c *problemConn) Close() error {
	if c.answered.Load() {
		_ = c.Conn.SetReadDeadline(time.Now().Add(lingerFor))
		_, _ = io.CopyN(io.Discard, c.Conn, lingerBytes)
	}
	return c.Conn.Close()
}

// The header block net/http writes with the answers it gives itself.
const serverErrorHeaders = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"

// maxServerText bounds the text of such an answer; the server's are short.
const maxServerText = 200

// serverAnswer recognises a write that is one of net/http's own answers
// and returns its status and the server's text for it ("missing required
// Host header"), which names no client input. It recognises the
// "HTTP/1.1 NNN reason" + serverErrorHeaders + text form of the request
// parsing errors, and the 417 the server sends for an unknown Expect (a
// response without the request id every handler answer carries).
func serverAnswer(p []byte) (status int, text string, ok bool) {
	if !bytes.HasPrefix(p, []byte("HTTP/1.1 ")) && !bytes.HasPrefix(p, []byte("HTTP/1.0 ")) {
		return 0, "", false
	}
	status, err := strconv.Atoi(string(p[9:12]))
	if err != nil || status < 400 || status > 599 || p[12] != ' ' {
		return 0, "", false
	}
	if status == http.StatusExpectationFailed {
		head, _, found := bytes.Cut(p, []byte("\r\n\r\n"))
		if !found || bytes.Contains(bytes.ToLower(head), []byte("\r\nx-request-id:")) {
			return 0, "", false
		}
		return status, "", true
	}
	line, body, found := bytes.Cut(p, []byte(serverErrorHeaders))
	if !found || len(body) > maxServerText || bytes.ContainsAny(line, "\n") {
		return 0, "", false
	}
	// A statusError's reason is "Bad Request: <text>"; other answers
	// carry their text as the body only.
	if _, after, cut := bytes.Cut(line[13:], []byte(": ")); cut {
		text = string(after)
	}
	return status, text, true
}

// problem renders the answer to a request net/http refused itself.
func (c *problemConn) problem(status int, text string) []byte {
	var code upstream.Code
	var detail string
	switch status {
	case http.StatusRequestHeaderFieldsTooLarge:
		code = codeHeadersTooLarge
		detail = fmt.Sprintf("the request line and header fields are larger than %d bytes", c.opts.MaxHeaderBytes)
	case http.StatusNotImplemented:
		code = codeUnsupportedEncoding
		detail = "the request's Transfer-Encoding is not supported; send a Content-Length or chunked"
	case http.StatusHTTPVersionNotSupported:
		code = codeUnsupportedVersion
		detail = "the request's HTTP version is not supported; use HTTP/1.1"
	case http.StatusExpectationFailed:
		code = codeExpectationFailed
		detail = "the Expect header names an expectation other than 100-continue"
	default:
		code = codeMalformedRequest
		detail = "the request line or header fields could not be parsed (a control character or space in the target, a bad header name or value, a missing Host)"
		if text != "" {
			detail = "the request could not be parsed: " + text
		}
	}
	id := observe.NewRequestID()
	body, _ := json.Marshal(Problem{
		Type: "urn:okrgate:problem:" + string(code), Title: http.StatusText(status), Status: status,
		Detail: detail, Code: string(code), RequestID: id,
	})
	body = append(body, '\n')
	c.opts.Logger.LogAttrs(context.Background(), slog.LevelInfo, "request refused by the HTTP parser",
		slog.String("request_id", id), slog.Int("status", status), slog.String("code", string(code)),
		slog.String("remote", c.RemoteAddr().String()))
	var b bytes.Buffer
	fmt.Fprintf(&b, "HTTP/1.1 %d %s\r\n", status, http.StatusText(status))
	b.WriteString("Content-Type: application/problem+json\r\n")
	b.WriteString("Cache-Control: no-store\r\n")
	b.WriteString("X-Request-Id: " + id + "\r\n")
	b.WriteString("Date: " + time.Now().UTC().Format(http.TimeFormat) + "\r\n")
	b.WriteString("Content-Length: " + strconv.Itoa(len(body)) + "\r\n")
	b.WriteString("Connection: close\r\n\r\n")
	b.Write(body)
	return b.Bytes()
}
