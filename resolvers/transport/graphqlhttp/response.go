package graphqlhttp

import (
	"encoding/json"
	"fmt"
	"net"
	"runtime"
	"sync/atomic"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
)

// encodeResponse encodes resp as json.Marshal does, byte for byte, without
// copying its data when it can: the errors and the members after the data
// are encoded, the data (which the executor already wrote as compact JSON)
// is sent as is between them. json.Marshal copied a large answer twice (its
// buffer, then the slice it returns) and scanned it to compact it while the
// tree's levels were still live, at the request's peak memory
// (docs/decisions/tree-memory.md, "The tree's memory").
//
// Data with a byte that json.Marshal would rewrite — <, > and & (escaped
// for HTML), U+2028 and U+2029, or white space outside strings, which the
// executor never writes but a scalar's marshaler might — goes through
// json.Marshal, so the bytes never differ.
func encodeResponse(resp *graphql.Response) (net.Buffers, error) {
	if !sendAsIs(resp.Data) {
		b, err := json.Marshal(resp)
		return net.Buffers{b}, err
	}
	var head []byte
	if len(resp.Errors) > 0 {
		errs, err := json.Marshal(resp.Errors)
		if err != nil {
			return nil, fmt.Errorf("encode errors: %w", err)
		}
		head = append(append(append(head, `{"errors":`...), errs...), `,"data":`...)
	} else {
		head = []byte(`{"data":`)
	}
	data := []byte(resp.Data)
	if data == nil {
		data = []byte("null")
	}
	tail, err := json.Marshal(struct {
		Label      string         `json:"label,omitempty"`
		Path       ast.Path       `json:"path,omitempty"`
		HasNext    *bool          `json:"hasNext,omitempty"`
		Extensions map[string]any `json:"extensions,omitempty"`
	}{resp.Label, resp.Path, resp.HasNext, resp.Extensions})
	if err != nil {
		return nil, fmt.Errorf("encode response: %w", err)
	}
	if len(tail) > 2 { // more members: ,"label":...}
		tail[0] = ','
	} else {
		tail = []byte("}")
	}
	return net.Buffers{head, data, tail}, nil
}

// sendAsIs reports whether json.Marshal would copy data (a
// json.RawMessage, valid JSON) unchanged: no <, > or &, no U+2028 or
// U+2029 (all inside strings in valid JSON), no white space outside
// strings. One pass, without the decoder's state machine.
func sendAsIs(data []byte) bool {
	inString := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if !inString {
			switch c {
			case '"':
				inString = true
			case ' ', '\t', '\n', '\r':
				return false
			}
			continue
		}
		switch c {
		case '\\':
			i++ // the escaped byte
		case '"':
			inString = false
		case '<', '>', '&':
			return false
		case 0xE2: // U+2028 and U+2029 are E2 80 A8 and E2 80 A9
			if i+2 < len(data) && data[i+1] == 0x80 && (data[i+2] == 0xA8 || data[i+2] == 0xA9) {
				return false
			}
		}
	}
	return true
}

// largeAnswer is the size of data from which the transport collects the
// heap after writing the answer (collectAfter). The next request then
// starts from a low collection goal and collects more often: at 512 KiB the
// 0.83 MiB lean tree cost ~13% more server CPU for 14 MiB less peak RSS,
// at 1 MiB the 1.86 MiB tree ~5% for 10 MiB (docs/decisions/tree-memory.md, "The tree's
// memory").
const largeAnswer = 1 << 20

// collector runs a garbage collection after a large answer, one at a time.
//
// A large tree's levels are garbage once its answer is written, but the
// collector's goal was set by its last collection inside the request, at
// about twice the levels' live heap: the next request then allocates on top
// of that garbage until the goal, and the process peaks there
// (docs/decisions/tree-memory.md, "The tree's memory"). Collecting right after the
// answer starts the next request from the idle heap. It runs in its own
// goroutine (the handler returns at once) and never twice at a time, so
// concurrent large answers share one collection.
type collector struct{ running atomic.Bool }

// collectAfter starts a collection when n bytes of data were written and
// none is running. A nil collector does nothing.
func (c *collector) collectAfter(n int) {
	if c == nil || n < largeAnswer || !c.running.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer c.running.Store(false)
		runtime.GC()
	}()
}
