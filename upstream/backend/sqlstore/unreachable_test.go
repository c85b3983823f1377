package sqlstore

import (
	"context"
	"database/sql/driver"
	"fmt"
	"io"
	"net"
	"os"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/okrgate/okrgate/upstream"
)

// TestUnreachableIsNotRerun: a write whose connection the kernel ended for
// want of acknowledgements (ETIMEDOUT, a partition), whose connect failed,
// or that got no connection within the acquire deadline, says the
// database is unreachable: it is not run again (another try would wait as
// long), and the writes queued behind it are answered with it. A
// connection the server closed or reset (a restart, pg_terminate_backend)
// is lost, not unreachable: the write runs again on another.
func TestUnreachableIsNotRerun(t *testing.T) {
	ctx := context.Background()
	// A real failure to connect: nothing listens on the port.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	_, connectErr := pgconn.Connect(ctx, "postgres://x@"+addr+"/x?connect_timeout=5")
	if connectErr == nil {
		t.Fatal("connected to a closed port")
	}
	// A real acquire timeout of the pool's connector.
	var timeouts atomic.Int64
	_, acquireErr := acquireConnector{Connector: hangingConnector{}, timeout: time.Millisecond, timeouts: &timeouts}.Connect(ctx)
	if acquireErr == nil || timeouts.Load() != 1 {
		t.Fatalf("acquire past its deadline: %v (%d timeouts)", acquireErr, timeouts.Load())
	}
	read := func(errno syscall.Errno) error {
		return fmt.Errorf("failed to receive message: %w", &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", errno)})
	}
	for _, c := range []struct {
		what              string
		err               error
		unreachable, lost bool
	}{
		{"a read the kernel timed out (TCP_USER_TIMEOUT)", read(syscall.ETIMEDOUT), true, false},
		{"a failed connect", fmt.Errorf("sqlstore: begin: %w", connectErr), true, false},
		{"an acquire timeout", fmt.Errorf("sqlstore: begin: %w", acquireErr), true, false},
		{"a connection reset", read(syscall.ECONNRESET), false, true},
		{"a connection closed mid-message", fmt.Errorf("receive: %w", io.ErrUnexpectedEOF), false, true},
		{"pg_terminate_backend", &pgconn.PgError{Severity: "FATAL", Code: "57P01"}, false, true},
		{"a statement's error", &pgconn.PgError{Severity: "ERROR", Code: "23505"}, false, false},
		{"a rule's decision", upstream.Errorf(upstream.CodeInvalid, "no"), false, false},
	} {
		if got := unreachable(c.err); got != c.unreachable {
			t.Errorf("%s: unreachable %v, want %v (%v)", c.what, got, c.unreachable, c.err)
		}
		if got := connectionLost(ctx, c.err); got != c.lost {
			t.Errorf("%s: connectionLost %v, want %v (%v)", c.what, got, c.lost, c.err)
		}
	}
}

// hangingConnector's connections never come.
type hangingConnector struct{ driver.Connector }

func (hangingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}
