package rest_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/transport/rest"
)

// BenchmarkDecodeJSON measures what the token pass (duplicate keys, UTF-8,
// NUL) adds to decoding a request body: "strict" is rest.DecodeJSON,
// "baseline" the strict encoding/json decode alone, on a typical goal body
// and on a body near the 1 MiB limit.
//
//	go test ./upstream/transport/rest -run '^$' -bench BenchmarkDecodeJSON -benchmem -count 3
func BenchmarkDecodeJSON(b *testing.B) {
	small := []byte(`{"name":"Grow revenue in EMEA","description":"Ask @[Ann Lee:ann@acme.test:6b03715c410c3ab4f5dcc2ec] first",` +
		`"sessionId":"6b03715c410c3ab4f5dcc2ed","ownerIds":["6b03715c410c3ab4f5dcc2ec"],"attainmentTypeString":"average_kr",` +
		`"tags":[{"title":"growth"},{"title":"emea"}]}`)
	// Near 1 MiB within the text limits: a description at its 20,000
	// characters and 4,000 tags of 190 bytes.
	large := []byte(`{"name":"x","sessionId":"6b03715c410c3ab4f5dcc2ed","description":"` + strings.Repeat("lorem ipsum ✓ ", 1400) +
		`","tags":[` + strings.Repeat(`{"title":"`+strings.Repeat("lorem ipsum ✓ ", 12)+`"},`, 3999) + `{"title":"x"}]}`)
	for _, in := range []struct {
		name string
		body []byte
	}{{"small", small}, {"large", large}} {
		b.Run(in.name+"/baseline", func(b *testing.B) {
			b.SetBytes(int64(len(in.body)))
			for b.Loop() {
				var g upstream.GoalInput
				dec := json.NewDecoder(bytes.NewReader(in.body))
				dec.DisallowUnknownFields()
				if err := dec.Decode(&g); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(in.name+"/strict", func(b *testing.B) {
			b.SetBytes(int64(len(in.body)))
			for b.Loop() {
				var g upstream.GoalInput
				if err := rest.DecodeJSON(in.body, &g); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
