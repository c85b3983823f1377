package graphqlws

import (
	"sync"
	"time"
)

// Pinger sends the keep-alives of many connections from one goroutine,
// which runs only while there are connections: graphql-transport-ws's
// ping message, or the legacy protocol's ka. A client need not answer
// (a pong is not awaited): the pings keep proxies from closing an idle
// connection, and a connection whose peer is gone fails its next write.
// A connection sent a subscription's update since the last round is not
// idle and is not pinged in this one.
type Pinger struct {
	interval time.Duration

	mu      sync.Mutex
	conns   map[*Conn]struct{}
	running bool
}

// NewPinger returns a Pinger that pings every interval.
func NewPinger(interval time.Duration) *Pinger {
	return &Pinger{interval: interval, conns: map[*Conn]struct{}{}}
}

func (p *Pinger) add(c *Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.conns[c] = struct{}{}
	if !p.running {
		p.running = true
		go p.run()
	}
}

func (p *Pinger) remove(c *Conn) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
}

// run pings every connection each interval until there are none.
func (p *Pinger) run() {
	t := time.NewTicker(p.interval)
	defer t.Stop()
	var conns []*Conn
	for range t.C {
		p.mu.Lock()
		if len(p.conns) == 0 {
			p.running = false
			p.mu.Unlock()
			return
		}
		conns = conns[:0]
		for c := range p.conns {
			conns = append(conns, c)
		}
		p.mu.Unlock()
		for _, c := range conns {
			if c.sentSince() {
				continue
			}
			typ := "ping"
			if c.proto == LegacyWS {
				typ = "ka"
			}
			c.queue(c.message("", typ, nil), 0)
		}
		clear(conns)
	}
}

// sentSince reports whether a subscription's update was queued on c since
// the last call.
func (c *Conn) sentSince() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	sent := c.sent
	c.sent = false
	return sent
}
