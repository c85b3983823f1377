package graphqlhttp

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/okrgate/okrgate/resolvers/infra/respcache"
)

// TestEncodeResponseAsJSONMarshal: the response's bytes are json.Marshal's,
// whether its data is sent as is or goes through json.Marshal.
func TestEncodeResponseAsJSONMarshal(t *testing.T) {
	yes := true
	for _, tc := range []struct {
		name string
		resp graphql.Response
		asIs bool
	}{
		{"data", graphql.Response{Data: json.RawMessage(`{"a":[1,{"b":"x y \"<\" z"}],"c":null}`)}, false},
		{"plain data", graphql.Response{Data: json.RawMessage(`{"goal":{"id":"g1","name":"Grow \"churn\" #1 \\ é"}}`)}, true},
		{"null data", graphql.Response{}, true},
		{"errors", graphql.Response{Errors: gqlerror.List{{Message: "no <goal>", Path: ast.Path{ast.PathName("goal")},
			Extensions: map[string]any{"code": "NOT_FOUND", "data": nil}}}, Data: json.RawMessage(`{"goal":null}`)}, true},
		{"every member", graphql.Response{Data: json.RawMessage(`{"x":1}`), Label: "l", Path: ast.Path{ast.PathName("a"), ast.PathIndex(2)},
			HasNext: &yes, Extensions: map[string]any{"cost": 3}}, true},
		{"html", graphql.Response{Data: json.RawMessage(`{"name":"a&b"}`)}, false},
		{"line separator", graphql.Response{Data: json.RawMessage("{\"name\":\"a\u2028b\u2029\"}")}, false},
		{"other E2 character", graphql.Response{Data: json.RawMessage("{\"name\":\"a\u2013b\"}")}, true},
		{"white space", graphql.Response{Data: json.RawMessage("{\"a\": 1}\n")}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := sendAsIs(tc.resp.Data); got != tc.asIs {
				t.Errorf("sendAsIs = %v, want %v", got, tc.asIs)
			}
			want, err := json.Marshal(&tc.resp)
			if err != nil {
				t.Fatal(err)
			}
			bufs, err := encodeResponse(&tc.resp)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if _, err := bufs.WriteTo(&got); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Errorf("got  %s\nwant %s", got.Bytes(), want)
			}
		})
	}
}

// TestCollectorAfterLargeAnswers: a large answer starts a collection, a
// small one does not; a nil collector does nothing. Automatic collections
// are off during the test, so every collection counted is the collector's.
func TestCollectorAfterLargeAnswers(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	gcs := func() uint32 {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.NumGC
	}
	var nilCollector *collector
	nilCollector.collectAfter(largeAnswer)
	c := &collector{}
	before := gcs()
	c.collectAfter(largeAnswer - 1)
	if c.running.Load() || gcs() != before {
		t.Fatalf("a small answer started a collection")
	}
	c.collectAfter(largeAnswer)
	deadline := time.Now().Add(10 * time.Second) // bounds a failure; asserts no timing
	for gcs() == before || c.running.Load() {
		if time.Now().After(deadline) {
			t.Fatal("no collection after a large answer")
		}
		time.Sleep(time.Millisecond)
	}
}

// TestSharedAnswerLength: a shared answer larger than the server's buffer
// goes out with its Content-Length, not in chunks, over real HTTP; a 304
// has no body.
func TestSharedAnswerLength(t *testing.T) {
	a := respcache.Answer{Parts: [][]byte{[]byte(`{"data":"`), bytes.Repeat([]byte("x"), 100_000), []byte(`"}`)}}
	a.ETag = respcache.ETagOf(a.Parts...)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		httpTransport{}.writeShared(w, r, a, r.Method == http.MethodGet)
	}))
	defer srv.Close()
	res, err := http.Post(srv.URL, "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if res.ContentLength != int64(a.Len()) || len(res.TransferEncoding) != 0 || len(body) != a.Len() {
		t.Errorf("Content-Length %d, transfer encoding %v, body of %d bytes; want %d bytes, not chunked",
			res.ContentLength, res.TransferEncoding, len(body), a.Len())
	}
	req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
	req.Header.Set("If-None-Match", a.ETag)
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusNotModified || len(body) != 0 {
		t.Errorf("If-None-Match: HTTP %d with %d bytes, want 304 without a body", res.StatusCode, len(body))
	}
}
