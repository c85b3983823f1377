//go:build !unix

package sqlstore

import "syscall"

// peekQuiet cannot look at a socket's receive queue here: the pool's
// idle rule alone decides.
func peekQuiet(syscall.RawConn) bool { return true }
