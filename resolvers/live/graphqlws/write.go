package graphqlws

import (
	"encoding/binary"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"
)

// Opcodes of the frames the server writes (RFC 6455, 5.2).
const (
	opText  = 0x1
	opClose = 0x8
	opPing  = 0x9
	opPong  = 0xA
)

// maxHeader is the longest header of an unmasked frame.
const maxHeader = 10

// maxCloseReason is the longest close reason a close frame carries
// (RFC 6455: 125 bytes of payload, 2 of them the code).
const maxCloseReason = 123

// appendHeader appends the header of a final, unmasked frame of n bytes
// (a server's frames are never masked).
func appendHeader(b []byte, op byte, n int) []byte {
	b = append(b, 0x80|op)
	switch {
	case n < 126:
		return append(b, byte(n))
	case n <= 0xFFFF:
		return binary.BigEndian.AppendUint16(append(b, 126), uint16(n))
	default:
		return binary.BigEndian.AppendUint64(append(b, 127), uint64(n))
	}
}

// appendFrame appends a frame of op carrying payload.
func appendFrame(b []byte, op byte, payload []byte) []byte {
	return append(appendHeader(b, op, len(payload)), payload...)
}

// closePayload is a close frame's payload: code, then reason cut at a rune
// boundary to what the frame holds.
func closePayload(code int, reason string) []byte {
	if len(reason) > maxCloseReason {
		cut := maxCloseReason
		for cut > 0 && !utf8.RuneStart(reason[cut]) {
			cut--
		}
		reason = reason[:cut]
	}
	return append(binary.BigEndian.AppendUint16(nil, uint16(code)), reason...)
}

// queue appends frames (data of them counted as data frames, which
// Transport.MaxQueued bounds) and starts writing them. Nothing is queued
// after the close frame.
func (c *Conn) queue(frames []byte, data int) {
	c.mu.Lock()
	if c.closing {
		c.mu.Unlock()
		return
	}
	c.out = append(c.out, frames...)
	c.unsent += data
	c.queued += data
	c.mu.Unlock()
	c.flush()
}

// flush writes what is queued unless a writer is running: at once, on
// the caller's goroutine, when the socket takes all of it without waiting
// (the common case: a fan-out flushing thousands of connections after a
// batch starts no goroutine for each), else by a writer goroutine, which
// runs only while there is something to write and waits for the socket.
func (c *Conn) flush() {
	c.mu.Lock()
	if c.writing || len(c.out) == 0 {
		c.mu.Unlock()
		return
	}
	c.writing = true
	if c.raw == nil || c.closing { // the writer sends a close frame and its aftermath
		c.mu.Unlock()
		go c.write()
		return
	}
	buf, n := c.out, c.unsent
	c.out, c.unsent = nil, 0
	c.mu.Unlock()
	w, err := writeNow(c.raw, buf)
	if err != nil {
		c.mu.Lock()
		c.writing = false
		c.mu.Unlock()
		c.abort()
		return
	}
	c.mu.Lock()
	if w < len(buf) {
		// The socket is full: the writer writes the rest, before what was
		// queued since, once the socket takes it.
		c.out = append(buf[w:], c.out...)
		c.unsent += n
		c.mu.Unlock()
		go c.write()
		return
	}
	c.queued -= n
	more := len(c.out) > 0
	if !more {
		c.writing = false
	}
	c.mu.Unlock()
	releaseOut(buf)
	if more { // queued while this was written
		go c.write()
	}
}

// writeNow writes b to the socket in one attempt that never waits for it,
// and returns how much it took: less than len(b) when its buffer is full
// (a client that does not read, or reads slowly).
func writeNow(raw syscall.RawConn, b []byte) (int, error) {
	var n int
	var err error
	werr := raw.Write(func(fd uintptr) bool {
		for {
			n, err = syscall.Write(int(fd), b)
			if err != syscall.EINTR {
				return true // done, written or not: never wait here
			}
		}
	})
	switch {
	case werr != nil:
		return 0, werr
	case err == syscall.EAGAIN:
		return 0, nil
	case err != nil:
		return 0, err
	}
	return n, nil
}

// outPool holds the write buffers of connections between batches: an idle
// connection holds none, and a fan-out's batch does not allocate one per
// connection.
var outPool = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledOut is the largest write buffer kept for reuse.
const maxPooledOut = 64 << 10

// takeOut returns an empty write buffer of at least n bytes.
func takeOut(n int) []byte {
	b := *outPool.Get().(*[]byte)
	if cap(b) < n {
		return make([]byte, 0, max(n, 4096))
	}
	return b[:0]
}

// releaseOut keeps b, written, for another connection's batch.
func releaseOut(b []byte) {
	if cap(b) == 0 || cap(b) > maxPooledOut {
		return
	}
	b = b[:0]
	outPool.Put(&b)
}

// write writes what is queued, in one write per turn, until nothing is;
// after the close frame it lets the reader wait a moment for the client's
// close frame, then the connection closes.
func (c *Conn) write() {
	for {
		c.mu.Lock()
		buf, n, closing := c.out, c.unsent, c.closing
		c.out, c.unsent = nil, 0
		if len(buf) == 0 {
			c.writing = false
			c.mu.Unlock()
			return
		}
		c.mu.Unlock()
		_, err := c.nc.Write(buf)
		if err == nil && !closing {
			releaseOut(buf)
		}
		c.mu.Lock()
		c.queued -= n
		ended := c.ended
		if err == nil && closing {
			c.closeSent = true
		}
		c.mu.Unlock()
		if err != nil {
			c.mu.Lock()
			c.writing = false
			c.mu.Unlock()
			c.abort()
			return
		}
		if closing { // the close frame was the last of buf
			if ended {
				c.abort()
			} else {
				_ = c.nc.SetReadDeadline(time.Now().Add(time.Second))
			}
		}
	}
}
