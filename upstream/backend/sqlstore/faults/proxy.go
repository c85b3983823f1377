// Package faults holds the fault-injection tests of the database path:
// a real PostgreSQL reached through a TCP proxy the test controls (Proxy),
// and a size-limited SQLite file. They check what clients are told while
// the database is gone, partitioned, slow or full, that nothing
// acknowledged is lost, and that the store recovers without a restart
// (docs/failures.md, "Failures").
package faults

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Proxy forwards TCP connections from a listener on 127.0.0.1 to a target
// address, and injects faults on command: Cut closes every connection and
// refuses new ones (the database went away), Blackhole keeps them open
// but forwards nothing (a database that answers nothing), Partition drops
// their packets (a partition, with nftables), Delay adds latency to each chunk in
// either direction (a database farther away), Heal ends the fault. A
// hand-written proxy rather than toxiproxy: these faults need about two
// hundred lines, and no server process; neither can make a partition in
// user space (toxiproxy's timeout toxic is Blackhole's), hence nftables.
type Proxy struct {
	ln     net.Listener
	target string

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	cut    bool
	hole   bool
	delay  time.Duration
	after  []byte        // CutAfter's pattern
	table  string        // Partition's nftables table; "" when none
	healed chan struct{} // closed by Heal; a blackholed copy waits on it
	closed bool
}

// NewProxy listens on 127.0.0.1 and forwards to target.
func NewProxy(target string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}, healed: make(chan struct{})}
	go p.accept()
	return p, nil
}

// Addr is the proxy's address (host:port).
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Cut closes every connection and refuses new ones until Heal.
func (p *Proxy) Cut() {
	p.mu.Lock()
	p.cut = true
	p.mu.Unlock()
	p.closeAll()
}

// Blackhole stops forwarding bytes (and accepts new connections without
// forwarding theirs) until Heal: the connections stay open.
func (p *Proxy) Blackhole() {
	p.mu.Lock()
	p.hole = true
	p.mu.Unlock()
}

// CutAfter forwards the first chunk from a client that contains pattern
// (a COMMIT) to the server, then closes that connection at both ends
// before any answer comes back: the client cannot know whether the
// server acted on it.
func (p *Proxy) CutAfter(pattern []byte) {
	p.mu.Lock()
	p.after = pattern
	p.mu.Unlock()
}

// Delay adds d to every chunk forwarded, in both directions, until Heal:
// a round trip through the proxy takes 2d longer.
func (p *Proxy) Delay(d time.Duration) {
	p.mu.Lock()
	p.delay = d
	p.mu.Unlock()
}

// Partition drops every packet between the proxy and its clients, in
// both directions, until Heal: a network partition as the clients' kernel
// sees it. Unlike Blackhole, whose bytes the proxy's own socket still
// acknowledges (so that to a client it looks like a database that
// answers nothing, a slow query), nothing sent is acknowledged: data
// sent, keepalive probes and new connections' SYNs go unanswered, and
// TCP_USER_TIMEOUT, keepalives and connect timeouts end the waits as
// they would on a real network. It installs an nftables table of its own
// (the nft command, CAP_NET_ADMIN): CanPartition says whether it can.
func (p *Proxy) Partition() error {
	port := p.ln.Addr().(*net.TCPAddr).Port
	table := fmt.Sprintf("okrgate_faults_%d", port)
	rules := fmt.Sprintf(`table inet %s {
	chain input {
		type filter hook input priority -10; policy accept;
		tcp dport %d drop
		tcp sport %d drop
	}
}
`, table, port, port)
	cmd := exec.Command("nft", "-f", "-")
	cmd.Stdin = strings.NewReader(rules)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("faults: nft: %w: %s", err, bytes.TrimSpace(out))
	}
	p.mu.Lock()
	p.table = table
	p.mu.Unlock()
	return nil
}

// CanPartition returns nil when Partition can drop packets here (the nft
// command and the right to change the firewall, root's), or why not.
func CanPartition() error {
	if _, err := exec.LookPath("nft"); err != nil {
		return errors.New("no nft command (Debian's nftables package) to drop packets with")
	}
	if out, err := exec.Command("nft", "list", "tables").CombinedOutput(); err != nil {
		return fmt.Errorf("nft cannot read the firewall (CAP_NET_ADMIN, root's, is needed): %v: %s", err, bytes.TrimSpace(out))
	}
	return nil
}

// Heal ends the fault. Connections that lived through a blackhole or a
// partition are closed: their clients have given up on them, or will,
// and PostgreSQL would end their sessions (idle_in_transaction_session_timeout,
// its own keepalives) where the proxy did not.
func (p *Proxy) Heal() {
	p.mu.Lock()
	wasHole, table := p.hole, p.table
	p.cut, p.hole, p.delay, p.after, p.table = false, false, 0, nil, ""
	close(p.healed)
	p.healed = make(chan struct{})
	p.mu.Unlock()
	if table != "" {
		// Best effort: a table left behind drops only this proxy's port.
		_ = exec.Command("nft", "delete", "table", "inet", table).Run()
	}
	if wasHole || table != "" {
		p.closeAll()
	}
}

// ServerPorts are the local ports of the proxy's open connections to the
// target: what PostgreSQL's pg_stat_activity shows as their client_port.
func (p *Proxy) ServerPorts() []int {
	p.mu.Lock()
	defer p.mu.Unlock()
	var ports []int
	for c := range p.conns {
		if a, ok := c.LocalAddr().(*net.TCPAddr); ok && c.RemoteAddr().String() == p.target {
			ports = append(ports, a.Port)
		}
	}
	return ports
}

// Close stops the proxy and closes its connections.
func (p *Proxy) Close() error {
	p.mu.Lock()
	p.closed = true
	table := p.table
	p.mu.Unlock()
	if table != "" {
		_ = exec.Command("nft", "delete", "table", "inet", table).Run()
	}
	err := p.ln.Close()
	p.closeAll()
	return err
}

func (p *Proxy) closeAll() {
	p.mu.Lock()
	conns := p.conns
	p.conns = map[net.Conn]struct{}{}
	p.mu.Unlock()
	for c := range conns {
		c.Close()
	}
}

func (p *Proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *Proxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		cut := p.cut
		p.mu.Unlock()
		if cut || !p.track(c) {
			c.Close() // refused: the server is gone
			continue
		}
		go p.serve(c)
	}
}

func (p *Proxy) serve(c net.Conn) {
	up, err := net.DialTimeout("tcp", p.target, 5*time.Second)
	if err != nil || !p.track(up) {
		c.Close()
		if up != nil {
			up.Close()
		}
		return
	}
	done := make(chan struct{}, 2)
	go p.copy(up, c, true, done)
	go p.copy(c, up, false, done)
	<-done
	c.Close()
	up.Close()
}

// copy forwards src to dst chunk by chunk, holding each chunk while the
// proxy is blackholed and until the delay after it was read; toServer is
// the client's direction, where CutAfter looks for its pattern. Chunks
// read while earlier ones wait are held for their own delay, not behind
// the others': the delay is latency, not a bandwidth limit.
func (p *Proxy) copy(dst, src net.Conn, toServer bool, done chan<- struct{}) {
	defer func() { done <- struct{}{} }()
	chunks := make(chan chunk, 64)
	stop := make(chan struct{})
	defer close(stop)
	go p.read(src, chunks, stop)
	for c := range chunks {
		if !p.hold(c.due) {
			return
		}
		if _, err := dst.Write(c.data); err != nil {
			return
		}
		if toServer && p.cutAfter(c.data) {
			// Give the server the chunk, then end both sides without
			// letting an answer through.
			src.Close()
			time.Sleep(50 * time.Millisecond)
			dst.Close()
			return
		}
	}
}

// chunk is what one read returned, and when it is due at the other end.
type chunk struct {
	data []byte
	due  time.Time
}

// read reads src into chunks until it fails (EOF or a closed
// connection) or stop is closed.
func (p *Proxy) read(src net.Conn, chunks chan<- chunk, stop <-chan struct{}) {
	defer close(chunks)
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.mu.Lock()
			due := time.Now().Add(p.delay)
			p.mu.Unlock()
			select {
			case chunks <- chunk{data: bytes.Clone(buf[:n]), due: due}:
			case <-stop:
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// cutAfter reports whether chunk holds CutAfter's pattern, and disarms
// it when so.
func (p *Proxy) cutAfter(chunk []byte) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.after == nil || !bytes.Contains(chunk, p.after) {
		return false
	}
	p.after = nil
	return true
}

// hold waits while the proxy is blackholed and then until due; false
// when the chunk must be dropped (the hole was healed by closing).
func (p *Proxy) hold(due time.Time) bool {
	p.mu.Lock()
	hole, healed := p.hole, p.healed
	p.mu.Unlock()
	if hole {
		<-healed
		return false // Heal closes the connections that lived through it
	}
	time.Sleep(time.Until(due))
	return true
}
