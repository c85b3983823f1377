package graphqlws

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"testing"
	"time"
)

// tcpPair returns both ends of a TCP connection on 127.0.0.1.
func tcpPair(t *testing.T) (server, client *net.TCPConn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			close(accepted)
			return
		}
		accepted <- c
	}()
	cc, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	sc, ok := <-accepted
	if !ok {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { cc.Close(); sc.Close() })
	return sc.(*net.TCPConn), cc.(*net.TCPConn)
}

// TestFlushNeverWaitsForTheSocket: frames queued on a connection whose
// client reads nothing are written as far as the socket takes them on the
// queuing goroutine, the rest by a writer goroutine once the client reads;
// queuing never blocks, and the client receives every byte in order.
func TestFlushNeverWaitsForTheSocket(t *testing.T) {
	sc, cc := tcpPair(t)
	// Small socket buffers on both sides, so that a few hundred KB fill them.
	if err := sc.SetWriteBuffer(8 << 10); err != nil {
		t.Fatal(err)
	}
	if err := cc.SetReadBuffer(8 << 10); err != nil {
		t.Fatal(err)
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := &Conn{nc: sc, raw: raw, ctx: ctx, cancel: cancel, ops: map[string]*opState{}}

	var want bytes.Buffer
	queued := make(chan struct{})
	go func() {
		defer close(queued)
		for i := range 400 {
			frame := appendFrame(nil, opText, fmt.Appendf(nil, "%06d%s", i, bytes.Repeat([]byte{'x'}, 500)))
			want.Write(frame)
			c.queue(frame, 0)
		}
	}()
	select {
	case <-queued: // nothing was read yet: the queuing did not wait for the socket
	case <-time.After(30 * time.Second):
		t.Fatal("queuing blocked on a client that does not read")
	}
	c.mu.Lock()
	pending := c.writing
	c.mu.Unlock()
	if !pending {
		t.Fatalf("a writer should be waiting for the socket: %d bytes cannot all fit in its buffers", want.Len())
	}
	got := make([]byte, want.Len())
	if err := cc.SetReadDeadline(time.Now().Add(30 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(cc, got); err != nil {
		t.Fatalf("read %d bytes: %v", want.Len(), err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatal("the client received the frames out of order or altered")
	}
	// Once drained, the next frame goes out at once on the queuing goroutine.
	deadline := time.Now().Add(10 * time.Second)
	for {
		c.mu.Lock()
		writing := c.writing
		c.mu.Unlock()
		if !writing {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the writer did not finish after the client read everything")
		}
		time.Sleep(time.Millisecond)
	}
	last := appendFrame(nil, opText, []byte("last"))
	c.queue(last, 0)
	c.mu.Lock()
	writing, left := c.writing, len(c.out)
	c.mu.Unlock()
	if writing || left != 0 {
		t.Fatalf("a frame to an empty socket was left to a writer (writing %v, %d bytes queued)", writing, left)
	}
	if _, err := io.ReadFull(cc, got[:len(last)]); err != nil || !bytes.Equal(got[:len(last)], last) {
		t.Fatalf("last frame: %q, %v", got[:len(last)], err)
	}
}

// TestWriteNowReportsAFullSocket: a full socket takes nothing and does not
// make the writer wait; a closed connection is an error.
func TestWriteNowReportsAFullSocket(t *testing.T) {
	sc, _ := tcpPair(t)
	if err := sc.SetWriteBuffer(4 << 10); err != nil {
		t.Fatal(err)
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	// The client reads nothing: its buffers and the socket's fill, and a
	// write then takes nothing, at once.
	b := make([]byte, 64<<10)
	full := false
	for range 10000 {
		n, err := writeNow(raw, b)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			full = true
			break
		}
	}
	if !full {
		t.Fatal("the socket never filled: the client reads nothing")
	}
	sc.Close()
	if _, err := writeNow(raw, b); err == nil {
		t.Fatal("a write to a closed connection succeeded")
	}
}
