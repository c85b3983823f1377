package resolvers

import (
	"encoding/json"
	"reflect"
)

// A websocket frame of gqlgen's transports is a message {payload, id,
// type} whose payload gqlgen has already encoded with encoding/json (a
// response, an error list, an acknowledgement). json.Marshal of the
// message would scan and compact that payload a second time; with a
// subscription's updates going to thousands of connections, that second
// pass was a large part of the cost of each frame (docs/benchmarks.md,
// "Live updates"). envelope writes the message around the payload as it
// is, byte for byte what json.Marshal writes.

// envelope returns the JSON of a gqlgen websocket message v (a pointer to
// a struct with the fields Payload json.RawMessage, ID string and Type, a
// string kind, in that order, as graphql-transport-ws and graphql-ws
// messages are), and false for anything else.
func envelope(v any) ([]byte, bool) {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return nil, false
	}
	rv = rv.Elem()
	if rv.Kind() != reflect.Struct || rv.NumField() < 3 {
		return nil, false
	}
	t := rv.Type()
	if t.Field(0).Name != "Payload" || t.Field(0).Type != rawMessageType ||
		t.Field(1).Name != "ID" || t.Field(1).Type.Kind() != reflect.String ||
		t.Field(2).Name != "Type" || t.Field(2).Type.Kind() != reflect.String {
		return nil, false
	}
	for i := 3; i < rv.NumField(); i++ {
		if t.Field(i).IsExported() {
			return nil, false // a field json.Marshal would write
		}
	}
	payload := rv.Field(0).Bytes()
	id, typ := rv.Field(1).String(), rv.Field(2).String()
	b := make([]byte, 0, len(payload)+len(id)+len(typ)+32)
	b = append(b, '{')
	if len(payload) > 0 {
		b = append(b, `"payload":`...)
		b = append(b, payload...)
		b = append(b, ',')
	}
	if id != "" {
		b = append(b, `"id":`...)
		b = appendJSONString(b, id)
		b = append(b, ',')
	}
	b = append(b, `"type":`...)
	b = appendJSONString(b, typ)
	return append(b, '}'), true
}

var rawMessageType = reflect.TypeFor[json.RawMessage]()

// appendJSONString appends s as encoding/json writes a string.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
