package resolvers

import (
	"encoding/json"
	"testing"
)

// TestEnvelopeIsWhatJSONWrites: envelope writes a message of the shape of
// gqlgen's websocket messages, whose payload encoding/json wrote (as
// gqlgen's are), byte for byte as json.Marshal does, and refuses anything
// else.
func TestEnvelopeIsWhatJSONWrites(t *testing.T) {
	type msgType string
	type message struct {
		Payload json.RawMessage `json:"payload,omitempty"`
		ID      string          `json:"id,omitempty"`
		Type    msgType         `json:"type"`
		noOp    bool
	}
	data, err := json.Marshal(map[string]any{"data": map[string]any{"goalChanged": map[string]any{"id": "g1", "name": "<b>é</b>\n"}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []*message{
		{Payload: data, ID: "1", Type: "next"},
		{ID: "a\"b\\c<d>&é\x01", Type: "complete"},
		{Type: "ping"},
		{Payload: json.RawMessage(`[{"message":"no"}]`), ID: "7", Type: "error", noOp: true},
	} {
		want, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := envelope(m)
		if !ok || string(got) != string(want) {
			t.Errorf("envelope(%+v) = %s, %v; json.Marshal: %s", m, got, ok, want)
		}
	}
	type other struct {
		Payload json.RawMessage
		ID      string
		Type    string
		Extra   int
	}
	for _, v := range []any{&other{Type: "x"}, message{Type: "x"}, "text", (*message)(nil), nil} {
		if b, ok := envelope(v); ok {
			t.Errorf("envelope(%#v) = %s: not a gqlgen message", v, b)
		}
	}
}
