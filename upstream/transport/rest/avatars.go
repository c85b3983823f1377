package rest

import (
	"bytes"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"
	"time"

	"github.com/okrgate/okrgate/upstream"
)

// Users' uploaded pictures (upstream.AvatarService; docs/rest.md,
// "Avatars"). The upload is the real platform's: a multipart form with the
// picture in its part "file", whatever media type the client names for it
// (its uploader calls every picture image/jpeg); the type is sniffed from
// the content. The picture is then served, without credentials, at the URL
// the user's picture holds (upstream.AvatarPath): as an image of its
// sniffed type, never sniffed again by the browser, never run.

// avatarUploadPath is the path prefix of the upload and delete routes.
const avatarUploadPath = "/api/v1/fileserver/avatar/"

// MaxAvatarRequestBytes bounds the body of an upload: the picture
// (upstream.MaxAvatarBytes) and the form around it.
const MaxAvatarRequestBytes = upstream.MaxAvatarBytes + 64<<10

// avatarCache is the Cache-Control of a picture. Its URL names one upload
// for ever (another upload gets another URL), so a day's caching never
// shows a stale picture; a deleted one may be shown for that day by caches
// that kept it.
const avatarCache = "public, max-age=86400"

// avatarTable holds the upload and delete routes; the picture's own URL is
// served apart (serveAvatar), without credentials.
func avatarTable() []entry {
	return []entry{
		{Route{Method: http.MethodPost, Pattern: avatarUploadPath + "{userId}", Success: http.StatusOK, Designed: true}, (*server).uploadAvatar},
		{Route{Method: http.MethodDelete, Pattern: avatarUploadPath + "{userId}", Operation: "DeleteAvatar", Success: http.StatusNoContent, Designed: true}, (*server).deleteAvatar},
	}
}

// bodyLimit is the largest body r may carry: MaxAvatarRequestBytes for an
// upload, MaxBodyBytes for every other request.
func bodyLimit(r *http.Request) int64 {
	if r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, avatarUploadPath) {
		return MaxAvatarRequestBytes
	}
	return MaxBodyBytes
}

// uploadAvatar stores the picture of the form's part "file" as the user's
// and answers the user, whose picture is now its URL.
func (s *server) uploadAvatar(w http.ResponseWriter, r *http.Request) (any, error) {
	id, err := pathID(r, "userId", "user")
	if err != nil {
		return nil, err
	}
	data, err := readAvatarForm(w, r)
	if err != nil {
		return nil, err
	}
	return s.api.SetAvatar(r.Context(), id, data)
}

func (s *server) deleteAvatar(w http.ResponseWriter, r *http.Request) (any, error) {
	return remove(r, "userId", "user", func(id string) error { return s.api.DeleteAvatar(r.Context(), id) })
}

// readAvatarForm reads a multipart/form-data body whole and returns its
// part "file". The whole body is read before anything is stored, so a body
// cut short anywhere — in the picture or after it — is refused and stores
// nothing. Other parts are read and ignored.
func readAvatarForm(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		return nil, &upstream.Error{Code: codeUnsupportedMediaType,
			Message: `the request body must be multipart/form-data with the picture in its part "file"`}
	}
	mr := multipart.NewReader(http.MaxBytesReader(w, r.Body, MaxAvatarRequestBytes), params["boundary"])
	var data []byte
	found := false
	for {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, formError(w, err)
		}
		if p.FormName() != "file" {
			if _, err := io.Copy(io.Discard, p); err != nil {
				return nil, formError(w, err)
			}
			continue
		}
		if found {
			return nil, upstream.Invalid("file", `the form has more than one part "file": upload one picture at a time`)
		}
		found = true
		if data, err = io.ReadAll(io.LimitReader(p, upstream.MaxAvatarBytes+1)); err != nil {
			return nil, formError(w, err)
		}
		if len(data) > upstream.MaxAvatarBytes {
			w.Header().Set("Connection", "close") // the rest of the body is not read
			return nil, upstream.Errorf(codeTooLarge, "the picture is larger than %d bytes", upstream.MaxAvatarBytes)
		}
	}
	if !found {
		return nil, upstream.Invalid("file", `the form has no part "file": the picture goes in a part named file`)
	}
	return data, nil
}

// formError is the problem of a multipart body that could not be read:
// too large, or cut short or malformed.
func formError(w http.ResponseWriter, err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		w.Header().Set("Connection", "close")
		return upstream.Errorf(codeTooLarge, "the request body is larger than %d bytes", MaxAvatarRequestBytes)
	}
	return upstream.Invalid("file", "the multipart body is cut short or malformed: %v", err)
}

// serveAvatar answers a picture at its URL, upstream.AvatarPathPrefix +
// "{accountId}/{file}", without credentials: with the media type sniffed
// at upload (an image, never HTML or SVG), X-Content-Type-Options: nosniff
// so that no browser reads it as anything else, a sandboxing
// Content-Security-Policy should it be opened as a page, its ETag (and
// 304 to If-None-Match) and Cache-Control. An unknown or malformed name
// is 404 not_found.
func (s *server) serveAvatar(w http.ResponseWriter, r *http.Request) {
	if err := checkParams(r, nil); err != nil {
		s.writeError(w, r, err)
		return
	}
	account := urlParam(r, "accountId")
	id, ok := upstream.ParseAvatarFile(urlParam(r, "file"))
	if !ok || !upstream.ValidID(account) {
		s.writeError(w, r, upstream.NotFound("avatar", urlParam(r, "file")))
		return
	}
	a, err := s.api.GetAvatar(r.Context(), account, id)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	ct := a.ContentType
	if _, ok := upstream.AvatarTypes[ct]; !ok {
		ct = "application/octet-stream" // not a type CheckAvatar answers: never served as it claims
	}
	h := w.Header()
	h.Set("Content-Type", ct)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	h.Set("Content-Disposition", `inline; filename="`+upstream.AvatarName(ct)+`"`)
	h.Set("Cache-Control", avatarCache)
	h.Set("ETag", a.ETag)
	modified, _ := time.Parse(upstream.TimeLayout, a.Created)
	http.ServeContent(w, r, "", modified, bytes.NewReader(a.Data))
}
