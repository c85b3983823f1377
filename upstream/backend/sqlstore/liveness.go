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
// lending it (pgxpool's ShouldPing): when its socket says the server
// closed it or sent something unasked — the FATAL message and close of a
// restart, a shutdown or pg_terminate_backend — and when it has been idle
// for idlePing. pgxpool's own rule, a round trip for every connection idle
// for a second, lent such a connection when it had been used within the
// second (under load, always), and the statement sent on it failed: after
// a restart, every pooled connection failed one request. And it cost a
// round trip whenever a connection had rested a second, which with a
// database 500 ms away was a fifth of a check-in's time. A connection that
// dies silently (a partition, a firewall forgetting it) is ended by the
// kernel's keepalive probes and TCP_USER_TIMEOUT (deadlines.go), after
// which its socket says so. A failed check drops the connection and the
// pool lends another. Looking at the socket costs a system call, no round
// trip.
func shouldPing(_ context.Context, p pgxpool.ShouldPingParams) bool {
	return p.IdleDuration > idlePing || !quiet(p.Conn.PgConn().Conn())
}

// idlePing is how long a connection may rest before the pool checks it
// with a round trip whatever its socket says.
const idlePing = time.Minute

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
