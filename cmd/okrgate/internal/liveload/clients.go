package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	gojson "github.com/goccy/go-json"

	"github.com/okrgate/okrgate/cmd/okrgate/internal/binary"
)

const subscription = `subscription($s: ID) { goalChanged(sessionId: $s) { id name attainment } }`

// maxRounds bounds the check-ins one run tells apart (by attainment).
const maxRounds = 64

// subscriber is one connection with its subscription.
type subscriber struct {
	u    user
	conn *websocket.Conn

	mu    sync.Mutex
	got   [maxRounds]uint8       // per check-in, a bit per goal of the chain received
	times [maxRounds][]time.Time // per check-in, when each update arrived
}

// subscribers are all the connections and what they received.
type subscribers struct {
	all       []*subscriber
	delivered [maxRounds]atomic.Int64
	leaked    atomic.Int64
	wg        sync.WaitGroup
}

func (s *subscribers) leaks() int64 { return s.leaked.Load() }

func (s *subscribers) close() {
	for _, x := range s.all {
		x.conn.CloseNow()
	}
	s.wg.Wait()
}

// connect opens conns connections per user, spread over the servers in
// turn, each subscribed to the chain's session, and reads them until close.
func connect(ctx context.Context, w *world, servers []*binary.Server, conns int) (*subscribers, error) {
	s := &subscribers{}
	n := len(w.users) * conns
	s.all = make([]*subscriber, n)
	index := map[string]int{}
	for i, id := range w.chain {
		index[id] = i
	}
	jobs := make(chan int)
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				sub, err := dial(ctx, servers[i%len(servers)].Base, w.users[i/conns], w.session)
				if err != nil {
					errs <- fmt.Errorf("connection %d: %w", i, err)
					continue
				}
				s.all[i] = sub
				s.wg.Add(1)
				go func() {
					defer s.wg.Done()
					s.read(sub, w, index)
				}()
			}
		}()
	}
	for i := range n {
		if i > 0 && i%2000 == 0 {
			fmt.Fprintf(w.progress(), "  %d connections open\n", i)
		}
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		for _, x := range s.all {
			if x != nil {
				x.conn.CloseNow()
			}
		}
		return nil, err
	}
	return s, nil
}

// dial opens a graphql-transport-ws connection as u and subscribes.
func dial(ctx context.Context, base string, u user, session string) (*subscriber, error) {
	dctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	conn, _, err := websocket.Dial(dctx, "ws"+strings.TrimPrefix(base, "http")+"/graphql", &websocket.DialOptions{
		Subprotocols: []string{"graphql-transport-ws"}, HTTPHeader: http.Header{"Origin": {base}},
	})
	if err != nil {
		return nil, err
	}
	conn.SetReadLimit(1 << 20)
	send := func(v any) error {
		b, _ := json.Marshal(v)
		return conn.Write(dctx, websocket.MessageText, b)
	}
	if err := send(map[string]any{"type": "connection_init", "payload": map[string]any{"Authorization": "Bearer " + u.token}}); err != nil {
		conn.CloseNow()
		return nil, err
	}
	_, b, err := conn.Read(dctx)
	if err != nil || !strings.Contains(string(b), "connection_ack") {
		conn.CloseNow()
		return nil, fmt.Errorf("connection_init: %s %v", b, err)
	}
	if err := send(map[string]any{"id": "1", "type": "subscribe", "payload": map[string]any{"query": subscription, "variables": map[string]any{"s": session}}}); err != nil {
		conn.CloseNow()
		return nil, err
	}
	return &subscriber{u: u, conn: conn}, nil
}

// read records each update of sub until its connection ends.
func (s *subscribers) read(sub *subscriber, w *world, index map[string]int) {
	var m struct {
		Type    string `json:"type"`
		Payload struct {
			Data struct {
				GoalChanged struct {
					ID         string  `json:"id"`
					Attainment float64 `json:"attainment"`
				} `json:"goalChanged"`
			} `json:"data"`
		} `json:"payload"`
	}
	// The tool shares the machine with the servers it measures: it reads
	// each message into one reused buffer, decodes it with goccy/go-json,
	// and reads without a cancellable context (a read with one registers
	// with the context's parent, shared by every connection); close ends
	// the reads by closing the connections.
	rctx := context.Background()
	var buf bytes.Buffer
	for {
		_, r, err := sub.conn.Reader(rctx)
		if err != nil {
			return
		}
		buf.Reset()
		if _, err := buf.ReadFrom(r); err != nil {
			return
		}
		at := time.Now()
		m.Type = ""
		m.Payload.Data.GoalChanged.ID = ""
		if gojson.Unmarshal(buf.Bytes(), &m) != nil || m.Type != "next" {
			continue
		}
		g := m.Payload.Data.GoalChanged
		if g.ID == w.private && !sub.u.member {
			s.leaked.Add(1)
			continue
		}
		i, ok := index[g.ID]
		k := int(math.Round(g.Attainment*100)) - 1 // check-in k sets the leaf to (k+1)% of its target
		if !ok || k < 0 || k >= maxRounds {
			continue
		}
		sub.mu.Lock()
		fresh := sub.got[k]&(1<<i) == 0
		if fresh {
			sub.got[k] |= 1 << i
			sub.times[k] = append(sub.times[k], at)
		}
		sub.mu.Unlock()
		if fresh {
			s.delivered[k].Add(1)
		}
	}
}

// round is the outcome of one check-in.
type round struct {
	k                   int
	delivered, expected int64
	latencies           []time.Duration // sorted
	load                string
	cpu                 time.Duration // the servers' CPU time over the check-in and its deliveries
	clientCPU           time.Duration // this tool's own CPU time over the same
}

func (r round) p(q float64) time.Duration {
	if len(r.latencies) == 0 {
		return 0
	}
	return r.latencies[min(len(r.latencies)-1, int(q*float64(len(r.latencies))))]
}

// checkIn checks in (k+1)% at the leaf's key result and waits until every
// subscriber has what it may read of it, or wait has passed.
func (w *world) checkIn(ctx context.Context, subs *subscribers, k int, wait time.Duration) round {
	r := round{k: k}
	for _, x := range subs.all {
		r.expected += int64(w.expected(x.u))
	}
	err := w.call(ctx, w.admin, "POST", "/api/v1/metrics/"+w.kr+"/checkin", map[string]any{"actual": 10 * (k + 1)}, nil, 201)
	ack := time.Now()
	if err != nil {
		fmt.Fprintln(w.progress(), "check-in:", err)
		return r
	}
	deadline := time.Now().Add(wait)
	for subs.delivered[k].Load() < r.expected && time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(10 * time.Millisecond)
	}
	r.delivered = subs.delivered[k].Load()
	for _, x := range subs.all {
		x.mu.Lock()
		for _, t := range x.times[k] {
			r.latencies = append(r.latencies, max(t.Sub(ack), 0))
		}
		x.mu.Unlock()
	}
	sortDurations(r.latencies)
	return r
}
