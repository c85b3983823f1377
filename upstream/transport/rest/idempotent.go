package rest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"

	"github.com/okrgate/okrgate/upstream"
)

// Idempotency-Key (draft-ietf-httpapi-idempotency-key-header, in the way
// Stripe uses it): a POST that carries the header is run at most once per
// caller, operation and key. A retry with the same body gets the recorded
// answer again (status, body, Location, ETag) with Idempotent-Replayed: true;
// the same key with another body is 422 idempotency_key_reused; a retry
// while the first request still runs is 409 idempotency_key_in_use. Only
// successful answers are recorded: a refused request (4xx) or a failed one
// (5xx) leaves the key free, unless its write committed.

// maxIdempotencyKey bounds the header's length.
const maxIdempotencyKey = 255

// idempotencyKey validates the Idempotency-Key header: 1 to 255 printable
// ASCII characters. ok is false when the request has none.
func idempotencyKey(r *http.Request) (key string, ok bool, err error) {
	vs := r.Header.Values("Idempotency-Key")
	if len(vs) == 0 {
		return "", false, nil
	}
	key = vs[0]
	if len(vs) > 1 || key == "" || len(key) > maxIdempotencyKey {
		return "", false, upstream.Invalid("Idempotency-Key", "must be one value of 1 to %d characters", maxIdempotencyKey)
	}
	for i := 0; i < len(key); i++ {
		if key[i] < 0x20 || key[i] > 0x7e {
			return "", false, upstream.Invalid("Idempotency-Key", "must be printable ASCII")
		}
	}
	return key, true, nil
}

// recorder passes a response through and keeps a copy of its status and
// body for the idempotency record. When the backend forwarded the key and
// got a replayed answer (key.Replayed), the response says so.
type recorder struct {
	http.ResponseWriter
	key    *upstream.IdempotencyKey
	status int
	body   bytes.Buffer
}

func (rec *recorder) WriteHeader(code int) {
	if rec.status == 0 {
		rec.status = code
		if rec.key.Replayed {
			rec.Header().Set("Idempotent-Replayed", "true")
		}
	}
	rec.ResponseWriter.WriteHeader(code)
}

func (rec *recorder) Write(b []byte) (int, error) {
	if rec.status == 0 {
		rec.WriteHeader(http.StatusOK)
	}
	rec.body.Write(b)
	return rec.ResponseWriter.Write(b)
}

// idempotent runs serve at most once for the Idempotency-Key key of r,
// recording its answer in store; a replay or a refused key is answered
// without running serve. serve gets the reserved key, for the write
// options of its writes (upstream.WriteOptions.Idempotency), which mark it
// applied in their transactions.
func (s *server) idempotent(w http.ResponseWriter, r *http.Request, store upstream.Idempotency, key string, serve func(http.ResponseWriter, *http.Request, *upstream.IdempotencyKey)) {
	c, _ := upstream.CallerFrom(r.Context())
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, bodyLimit(r)))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			s.writeError(w, r, upstream.Errorf(codeTooLarge, "the request body is larger than %d bytes", bodyLimit(r)))
			return
		}
		s.writeError(w, r, upstream.Errorf(upstream.CodeInvalid, "the request body could not be read"))
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	h := sha256.New()
	for _, part := range []string{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Get("Content-Type")} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	h.Write(body)
	k := upstream.IdempotencyKey{AccountID: c.AccountID, UserID: c.UserID, Method: r.Method, Path: r.URL.Path, Key: key,
		Hash: hex.EncodeToString(h.Sum(nil))}

	prior, err := store.ReserveIdempotencyKey(r.Context(), k)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if prior != nil {
		replay(w, *prior)
		return
	}
	rec := &recorder{ResponseWriter: w, key: &k}
	serve(rec, r, &k)
	// The bookkeeping outlives a client that went away: its write may have
	// committed, and the record is what a retry needs.
	bg := context.WithoutCancel(r.Context())
	if rec.status >= 200 && rec.status < 400 {
		err = store.CompleteIdempotencyKey(bg, k, upstream.IdempotentResponse{
			Status: rec.status, Body: rec.body.Bytes(), ContentType: rec.Header().Get("Content-Type"),
			Location: rec.Header().Get("Location"), ETag: rec.Header().Get("ETag")})
	} else {
		err = store.ReleaseIdempotencyKey(bg, k)
	}
	if err != nil {
		s.logInternal(r, "idempotency record", err)
	}
}

// replay writes a recorded answer.
func replay(w http.ResponseWriter, resp upstream.IdempotentResponse) {
	h := w.Header()
	for name, v := range map[string]string{"Content-Type": resp.ContentType, "Location": resp.Location, "ETag": resp.ETag} {
		if v != "" {
			h.Set(name, v)
		}
	}
	h.Set("Idempotent-Replayed", "true")
	w.WriteHeader(resp.Status)
	_, _ = w.Write(resp.Body)
}
