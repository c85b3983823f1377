//go:build unix

package sqlstore

import (
	"errors"
	"syscall"
)

// peekQuiet looks at rc's receive queue without taking anything from it
// and without blocking: quiet when it is empty (EAGAIN); not when it holds
// bytes, the peer's close (a read of 0 bytes) or an error.
//
// It goes through Control, not Read: Read takes the descriptor's read
// lock, which pgconn's background reader may hold while it waits for the
// server, and the peek then waited as long — a request hung for a minute.
// MSG_DONTWAIT makes the call itself never wait.
func peekQuiet(rc syscall.RawConn) bool {
	var perr error
	var b [1]byte
	err := rc.Control(func(fd uintptr) {
		_, _, perr = syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
	})
	if err != nil {
		return true // the descriptor is gone: the statement's own error will say so
	}
	return errors.Is(perr, syscall.EAGAIN) || errors.Is(perr, syscall.EWOULDBLOCK) || errors.Is(perr, syscall.EINTR)
}
