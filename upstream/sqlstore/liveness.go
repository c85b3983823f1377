package sqlstore

import (
	"context"
	"crypto/tls"
	"net"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// shouldPing tells the pool to check a connection with a round trip before
// lending it (pgxpool's ShouldPing): when it has been idle for a second or
// more (pgxpool's own rule), and when its socket says the server closed it
// or sent something unasked — the FATAL message and close of a restart,
// a shutdown or pg_terminate_backend. pgxpool's rule alone lent such a
// connection when it had been used within the second (under load, always),
// and the statement sent on it failed: after a restart, every pooled
// connection failed one request. A failed check drops the connection and
// the pool lends another. Looking at the socket costs a system call, no
// round trip.
func shouldPing(_ context.Context, p pgxpool.ShouldPingParams) bool {
	return p.IdleDuration > time.Second || !quiet(p.Conn.PgConn().Conn())
}

// quiet reports whether c has nothing to read and is not closed by its
// peer, as far as the system can tell without waiting; true where it cannot
// tell.
func quiet(c net.Conn) bool {
	if t, ok := c.(*tls.Conn); ok {
		c = t.NetConn()
	}
	sc, ok := c.(syscall.Conn)
	if !ok {
		return true
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return true
	}
	return peekQuiet(rc) // liveness_unix.go
}
