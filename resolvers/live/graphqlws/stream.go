package graphqlws

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/99designs/gqlgen/graphql"
)

// Stream is a subscription's way to its client. Left alone, the
// transport reads the subscription's responses and sends each; a resolver
// that calls Drive while the subscription is dispatched delivers them
// itself: it renders a response with Render (once for all the
// subscriptions that would render the same), sends the encoded payload
// with Send to each, and writes each connection's queue with Flush.
type Stream struct {
	c   *Conn
	id  string
	qid []byte // id as a JSON string

	mu     sync.Mutex
	driven bool
	ready  chan struct{} // closed once dispatched
	render graphql.ResponseHandler
	rctx   context.Context
	ended  bool
}

// ID returns the operation's id.
func (s *Stream) ID() string { return s.id }

// Conn returns the stream's connection.
func (s *Stream) Conn() *Conn { return s.c }

// Drive takes the delivery of the subscription's responses from the
// transport. Call it from the subscription's resolver.
func (s *Stream) Drive() {
	s.mu.Lock()
	s.driven = true
	s.mu.Unlock()
}

// start is called once the subscription is dispatched; it reports whether
// the stream is driven.
func (s *Stream) start(responses graphql.ResponseHandler, ctx context.Context) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.render, s.rctx = responses, ctx
	close(s.ready)
	return s.driven
}

// Render returns the subscription's next response, made by its handler
// (which reads the next item the resolver's channel holds); nil once the
// subscription has ended. It waits for the dispatch to return. Calls must
// not overlap.
func (s *Stream) Render() *graphql.Response {
	select {
	case <-s.ready:
	case <-s.c.ctx.Done():
		return nil
	}
	if s.rctx.Err() != nil {
		return nil
	}
	return s.render(s.rctx)
}

// Payload encodes a response as a next message's payload.
func Payload(resp *graphql.Response) ([]byte, error) { return json.Marshal(resp) }

// Send queues a next message with payload (an encoded response, shared by
// any number of streams) on the stream's connection without writing it;
// false when the connection has more than Transport.MaxQueued frames per
// subscription unwritten (its client does not read), or the stream ended.
func (s *Stream) Send(payload []byte) bool {
	_, ok := s.SendAll([][]byte{payload})
	return ok
}

// SendAll queues a next message for each of payloads, in order, as Send
// does, taking the connection's lock once: a batch of a subscription's
// updates costs one turn at its connection. It returns how many it queued
// (all of them when the stream has ended: nothing to send) and false as
// Send does, once a message is refused; the ones before it stay queued.
func (s *Stream) SendAll(payloads [][]byte) (int, bool) {
	c := s.c
	typ := `,"type":"next","payload":`
	if c.proto == LegacyWS {
		typ = `,"type":"data","payload":`
	}
	fixed := len(`{"id":`) + len(s.qid) + len(typ) + 1
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closing || c.ops[s.id] == nil || c.ops[s.id].stream != s {
		return len(payloads), !c.closing // ended by its client: nothing to send, nothing wrong
	}
	for i, payload := range payloads {
		if c.t.MaxQueued > 0 && c.queued >= c.t.MaxQueued*max(c.streams, 1) {
			return i, false
		}
		n := fixed + len(payload)
		if c.out == nil {
			c.out = takeOut(2 * (n + maxHeader))
		}
		c.out = appendHeader(c.out, opText, n)
		c.out = append(c.out, `{"id":`...)
		c.out = append(c.out, s.qid...)
		c.out = append(c.out, typ...)
		c.out = append(c.out, payload...)
		c.out = append(c.out, '}')
		c.unsent++
		c.queued++
		c.sent = true
	}
	return len(payloads), true
}

// Flush starts writing what is queued on the stream's connection.
func (s *Stream) Flush() { s.c.flush() }

// End ends the subscription from the server's side: the client is told
// it is complete.
func (s *Stream) End() {
	s.mu.Lock()
	ended := s.ended
	s.ended = true
	s.mu.Unlock()
	if ended {
		return
	}
	c := s.c
	c.mu.Lock()
	o := c.ops[s.id]
	c.mu.Unlock()
	if o == nil || o.stream != s {
		return // ended by its client or its connection
	}
	c.complete(s.id)
	c.finish(s.id, o)
}
