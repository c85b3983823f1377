package graphqlws

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"syscall"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/gorilla/websocket"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// Conn is one websocket connection.
type Conn struct {
	t  Transport
	ws *websocket.Conn
	nc net.Conn
	// raw is nc's socket, written without waiting by flush; nil when nc
	// has none (TLS, or a connection in memory): a writer goroutine writes.
	raw   syscall.RawConn
	r     *http.Request // the upgrade request, until connection_init
	hdr   http.Header   // its header, which operations see
	exec  graphql.GraphExecutor
	proto string // TransportWS or LegacyWS
	// ctx ends when the connection ends; every operation's derives from it.
	ctx    context.Context
	cancel context.CancelFunc

	session   Session // set by connection_init, read by the reader
	initTimer *time.Timer
	abortOnce sync.Once

	mu      sync.Mutex
	inited  bool // connection_init received
	acked   bool // connection_ack sent
	ops     map[string]*opState
	streams int // open subscriptions
	// out holds the frames queued and not yet taken by the writer; nil
	// while there are none, so an idle connection holds no write buffer.
	out       []byte
	unsent    int  // data frames in out
	queued    int  // data frames in out or being written
	writing   bool // a writer is running (flush or a writer goroutine)
	sent      bool // a subscription's update was queued since the Pinger's last round
	closing   bool // a close frame is queued: nothing follows it
	closeSent bool // the close frame is written
	ended     bool // the reader has returned
}

// opState is an operation running on the connection.
type opState struct {
	cancel context.CancelFunc
	stream *Stream
}

func newConn(t Transport, ws *websocket.Conn, r *http.Request, exec graphql.GraphExecutor) *Conn {
	ctx, cancel := context.WithCancel(context.WithoutCancel(r.Context()))
	c := &Conn{t: t, ws: ws, nc: ws.NetConn(), r: r, hdr: r.Header, exec: exec, proto: ws.Subprotocol(), ctx: ctx, cancel: cancel,
		ops: map[string]*opState{}}
	if c.proto == "" {
		c.proto = LegacyWS
	}
	if sc, ok := c.nc.(syscall.Conn); ok {
		if raw, err := sc.SyscallConn(); err == nil {
			c.raw = raw
		}
	}
	return c
}

// Subprotocol returns the connection's protocol: TransportWS or LegacyWS.
func (c *Conn) Subprotocol() string { return c.proto }

// serve reads the client's messages until the connection ends. It runs
// on a goroutine of its own, not the HTTP handler's: the handler returns
// at once, and with it what net/http holds for a request (its buffers,
// the handler's stack).
func (c *Conn) serve() {
	defer c.end()
	c.ws.SetReadLimit(c.t.ReadLimit)
	c.ws.SetPingHandler(func(data string) error {
		c.queue(appendFrame(nil, opPong, []byte(data)), 0)
		return nil
	})
	c.ws.SetCloseHandler(func(code int, _ string) error {
		if code == closeNoStatusPayload {
			code = CloseNormal
		}
		c.Close(code, "")
		return nil
	})
	c.initTimer = time.AfterFunc(c.t.InitTimeout, func() {
		c.mu.Lock()
		inited := c.inited
		c.mu.Unlock()
		if !inited {
			c.Close(CloseInitTimeout, "Connection initialisation timeout")
		}
	})
	for {
		_, data, err := c.ws.ReadMessage()
		if err != nil {
			var ce *websocket.CloseError
			if !errors.As(err, &ce) {
				code := CloseNormal
				if errors.Is(err, websocket.ErrReadLimit) {
					code = websocket.CloseMessageTooBig
				}
				c.Close(code, "")
			}
			return
		}
		c.handle(data)
	}
}

// end is the reader's end: every operation ends and the connection
// closes once its close frame is written (within WriteGrace).
func (c *Conn) end() {
	c.initTimer.Stop()
	if c.t.Pinger != nil {
		c.t.Pinger.remove(c)
	}
	c.cancel()
	c.Close(CloseNormal, "")
	c.mu.Lock()
	c.ended = true
	sent := c.closeSent
	c.mu.Unlock()
	if sent {
		c.abort()
	}
	if c.session != nil {
		c.session.Close()
	}
}

// abort closes the network connection at once.
func (c *Conn) abort() {
	c.abortOnce.Do(func() {
		c.cancel()
		_ = c.nc.Close()
	})
}

// Close queues a close frame with code and reason (cut to what a close
// frame holds) after what is queued, ends the connection's operations,
// and closes the connection once the frame is written, or after
// WriteGrace. The first Close chooses the code.
func (c *Conn) Close(code int, reason string) {
	c.mu.Lock()
	if c.closing {
		c.mu.Unlock()
		return
	}
	c.closing = true
	c.out = appendFrame(c.out, opClose, closePayload(code, reason))
	c.mu.Unlock()
	c.cancel()
	c.flush()
	time.AfterFunc(c.t.WriteGrace, c.abort)
}

// message is a client's message of either protocol.
type message struct {
	ID      *string         `json:"id"`
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload"`
}

// handle acts on one message of the client.
func (c *Conn) handle(data []byte) {
	var m message
	if err := json.Unmarshal(data, &m); err != nil || m.Type == "" {
		c.invalid("Invalid message received")
		return
	}
	switch m.Type {
	case "connection_init":
		c.init(m.Payload)
	case "ping":
		if c.proto != TransportWS {
			break
		}
		c.queue(c.message("", "pong", m.Payload), 0)
	case "pong":
	case "subscribe", "start":
		if (m.Type == "subscribe") != (c.proto == TransportWS) {
			c.invalid("Invalid message received: " + m.Type)
			return
		}
		c.mu.Lock()
		acked := c.acked
		c.mu.Unlock()
		if !acked {
			c.Close(CloseUnauthorized, "Unauthorized")
			return
		}
		if m.ID == nil || *m.ID == "" {
			c.invalid("Invalid message received: an operation needs an id")
			return
		}
		c.start(*m.ID, m.Payload)
	case "complete", "stop":
		if m.ID == nil {
			c.invalid("Invalid message received: complete needs an id")
			return
		}
		c.mu.Lock()
		o := c.ops[*m.ID]
		c.mu.Unlock()
		if o != nil {
			// Forgotten now, not when its goroutine notices: nothing
			// is sent for it once its complete has been read.
			c.finish(*m.ID, o)
		}
	case "connection_terminate":
		c.Close(CloseNormal, "")
	default:
		c.invalid("Invalid message received: " + m.Type)
	}
}

// invalid ends the connection on a message the protocol does not allow.
func (c *Conn) invalid(reason string) {
	if c.proto == LegacyWS {
		c.queue(c.message("", "connection_error", errorJSON(reason)), 0)
		c.Close(CloseProtocolError, reason)
		return
	}
	c.Close(CloseBadRequest, reason)
}

// init authenticates connection_init and acknowledges it.
func (c *Conn) init(payload json.RawMessage) {
	c.mu.Lock()
	again := c.inited
	c.inited = true
	c.mu.Unlock()
	if again {
		c.Close(CloseTooManyInits, "Too many initialisation requests")
		return
	}
	c.initTimer.Stop()
	if len(payload) == 0 || bytes.Equal(payload, []byte("null")) {
		payload = json.RawMessage("{}")
	}
	s, err := c.t.Init(c.ctx, c.r, payload, c)
	c.r = nil
	if err != nil {
		if c.proto == LegacyWS {
			c.queue(c.message("", "connection_error", errorJSON(err.Error())), 0)
		}
		c.Close(CloseForbidden, err.Error())
		return
	}
	c.session = s
	c.mu.Lock()
	c.acked = true
	c.mu.Unlock()
	ack := c.message("", "connection_ack", nil)
	if c.proto == LegacyWS {
		ack = append(ack, c.message("", "ka", nil)...)
	}
	c.queue(ack, 0)
	if c.t.Pinger != nil {
		c.t.Pinger.add(c)
	}
}

// start starts the operation id.
func (c *Conn) start(id string, payload json.RawMessage) {
	c.mu.Lock()
	_, dup := c.ops[id]
	c.mu.Unlock()
	if dup {
		if c.proto == TransportWS {
			c.Close(CloseDuplicateID, fmt.Sprintf("Subscriber for %s already exists", id))
		} else {
			c.sendErrors(id, gqlerror.List{{Message: "an operation with id " + id + " is running"}})
		}
		return
	}
	begin := graphql.Now()
	params := &graphql.RawParams{}
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.UseNumber()
	if err := dec.Decode(params); err != nil {
		c.sendErrors(id, gqlerror.List{{Message: "invalid json"}})
		c.complete(id)
		return
	}
	params.Headers = c.hdr
	params.ReadTime = graphql.TraceTiming{Start: begin, End: graphql.Now()}
	ctx, cancel := context.WithCancel(graphql.StartOperationTrace(c.ctx))
	rc, gerr := c.exec.CreateOperationContext(ctx, params)
	if gerr != nil {
		resp := c.exec.DispatchError(graphql.WithOperationContext(ctx, rc), gerr)
		if errcode.GetErrorKind(gerr) == errcode.KindProtocol {
			c.sendErrors(id, resp.Errors)
		} else {
			c.next(id, &graphql.Response{Errors: gerr})
		}
		c.complete(id)
		cancel()
		return
	}
	ctx = graphql.WithOperationContext(ctx, rc)
	op := &Operation{ID: id, OC: rc}
	o := &opState{cancel: cancel}
	if rc.Operation != nil && rc.Operation.Operation == ast.Subscription {
		qid, _ := json.Marshal(id)
		op.Stream = &Stream{c: c, id: id, qid: qid, ready: make(chan struct{})}
		o.stream = op.Stream
	}
	c.mu.Lock()
	c.ops[id] = o
	if o.stream != nil {
		c.streams++
	}
	c.mu.Unlock()
	go c.run(ctx, op, o)
}

// run runs an operation: dispatched, then either its responses are read
// and sent here, or (a driven subscription) they are sent by the Stream's
// driver until it ends.
func (c *Conn) run(ctx context.Context, op *Operation, o *opState) {
	driven := false
	defer func() {
		if p := recover(); p != nil {
			err := op.OC.Recover(ctx, p)
			var ge *gqlerror.Error
			if !errors.As(err, &ge) {
				ge = &gqlerror.Error{Message: fmt.Sprint(err)}
			}
			c.sendErrors(op.ID, gqlerror.List{ge})
			c.finish(op.ID, o)
			return
		}
		if !driven {
			c.finish(op.ID, o)
		}
	}()
	octx, done, err := c.session.Operation(ctx, op)
	if err != nil {
		if ctx.Err() != nil {
			return // completed by its client (or its connection ended) meanwhile
		}
		var ge *gqlerror.Error
		if !errors.As(err, &ge) {
			ge = &gqlerror.Error{Message: err.Error()}
		}
		c.sendErrors(op.ID, gqlerror.List{ge})
		return
	}
	responses, dctx := c.exec.DispatchOperation(octx, op.OC)
	if done != nil {
		done()
	}
	if st := op.Stream; st != nil && st.start(responses, dctx) {
		driven = true
		context.AfterFunc(ctx, func() { c.finish(op.ID, o) })
		return
	}
	for {
		resp := responses(dctx)
		if resp == nil {
			break
		}
		c.next(op.ID, resp)
	}
	if ctx.Err() == nil {
		c.complete(op.ID)
	}
}

// finish forgets an operation that ended.
func (c *Conn) finish(id string, o *opState) {
	o.cancel()
	c.mu.Lock()
	if c.ops[id] == o {
		delete(c.ops, id)
		if o.stream != nil {
			c.streams--
		}
	}
	c.mu.Unlock()
}

// next sends a result of the operation id.
func (c *Conn) next(id string, resp *graphql.Response) {
	b, err := json.Marshal(resp)
	if err != nil {
		b = errorListJSON(gqlerror.List{{Message: "the response could not be encoded"}})
		c.queue(c.message(id, "error", b), 0)
		return
	}
	c.queue(c.message(id, c.nextType(), b), 1)
}

func (c *Conn) nextType() string {
	if c.proto == LegacyWS {
		return "data"
	}
	return "next"
}

// complete tells the client that the operation id is over.
func (c *Conn) complete(id string) { c.queue(c.message(id, "complete", nil), 0) }

// sendErrors sends the protocol's error message of the operation id.
func (c *Conn) sendErrors(id string, errs gqlerror.List) {
	c.queue(c.message(id, "error", errorListJSON(errs)), 0)
}

func errorListJSON(errs gqlerror.List) []byte {
	b, err := json.Marshal(errs)
	if err != nil {
		return []byte(`[{"message":"internal error"}]`)
	}
	return b
}

func errorJSON(msg string) []byte {
	b, _ := json.Marshal(gqlerror.Error{Message: msg})
	return b
}

// message returns the frame of a message {"id", "type", "payload"}.
func (c *Conn) message(id, typ string, payload []byte) []byte {
	n := len(`{"type":""}`) + len(typ)
	var qid []byte
	if id != "" {
		qid, _ = json.Marshal(id)
		n += len(`"id":,`) + len(qid)
	}
	if len(payload) > 0 {
		n += len(`,"payload":`) + len(payload)
	}
	b := appendHeader(make([]byte, 0, n+maxHeader), opText, n)
	b = append(b, '{')
	if id != "" {
		b = append(b, `"id":`...)
		b = append(b, qid...)
		b = append(b, ',')
	}
	b = append(b, `"type":"`...)
	b = append(b, typ...)
	b = append(b, '"')
	if len(payload) > 0 {
		b = append(b, `,"payload":`...)
		b = append(b, payload...)
	}
	return append(b, '}')
}
