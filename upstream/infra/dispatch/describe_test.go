package dispatch

import (
	"context"
	"errors"
	"net"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"
)

// TestDescribeNamesNoAddress checks each kind of failed request: the
// record names the kind, never the addresses in the error (the target's
// resolved address, the resolver's), while Unwrap keeps them for the log.
func TestDescribeNamesNoAddress(t *testing.T) {
	target := &net.TCPAddr{IP: net.ParseIP("10.20.30.40"), Port: 443}
	wrap := func(err error) error { return &url.Error{Op: "Post", URL: "https://hooks.example.com/x", Err: err} }
	dial := func(err error) error { return wrap(&net.OpError{Op: "dial", Net: "tcp", Addr: target, Err: err}) }
	for want, err := range map[string]error{
		"the host name does not resolve":             wrap(&net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "hooks.example.com", Server: "10.0.0.53:53", IsNotFound: true}}),
		"the host name lookup failed":                wrap(&net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "server misbehaving", Name: "hooks.example.com", Server: "10.0.0.53:53"}}),
		"connection refused":                         dial(os.NewSyscallError("connect", syscall.ECONNREFUSED)),
		"the receiver is unreachable":                dial(os.NewSyscallError("connect", syscall.EHOSTUNREACH)),
		"timed out":                                  wrap(context.DeadlineExceeded),
		"could not connect":                          dial(errors.New("something else at 10.20.30.40")),
		"the connection was closed before an answer": wrap(&net.OpError{Op: "read", Net: "tcp", Addr: target, Err: os.NewSyscallError("read", syscall.ECONNRESET)}),
	} {
		got := describe(err)
		if got.Error() != want {
			t.Errorf("describe(%v) = %q, want %q", err, got, want)
		}
		if s := got.Error(); strings.Contains(s, "10.") {
			t.Errorf("describe(%v) = %q names an address", err, s)
		}
		if !errors.Is(got, err) {
			t.Errorf("describe(%v) lost the error for the log", err)
		}
	}
}
