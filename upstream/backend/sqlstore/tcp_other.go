//go:build !linux

package sqlstore

import (
	"syscall"
	"time"
)

// userTimeout sets nothing where TCP_USER_TIMEOUT is Linux's alone: the
// keepalive probes detect a vanished peer, later.
func userTimeout(time.Duration) func(network, address string, c syscall.RawConn) error {
	return nil
}
