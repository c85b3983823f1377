package sqlstore

import (
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// userTimeout returns a dial Control that sets TCP_USER_TIMEOUT to d: data
// (and keepalive probes) unacknowledged for d end the connection with an
// error, where Linux would otherwise retransmit for about 15 minutes.
func userTimeout(d time.Duration) func(network, address string, c syscall.RawConn) error {
	return func(_, _ string, c syscall.RawConn) error {
		var serr error
		err := c.Control(func(fd uintptr) {
			serr = unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_USER_TIMEOUT, int(d.Milliseconds()))
		})
		if err != nil {
			return err
		}
		return serr
	}
}
