package rest_test

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strings"
	"testing"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
)

// webp1x1 is a 1×1 lossless WebP picture.
const webp1x1 = "RIFF\x1a\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00\x2f\x00\x00\x00\x10\x07\x10\x11\x11\x88\x88\xfe\x07\x00"

// picture encodes a w×h picture in format (png, jpeg or gif), its pixels
// depending on seed so that two pictures differ.
func picture(t *testing.T, format string, w, h int, seed uint8) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.NRGBA{R: uint8(x) + seed, G: uint8(y) * seed, B: seed, A: 255})
		}
	}
	var b bytes.Buffer
	var err error
	switch format {
	case "png":
		err = png.Encode(&b, img)
	case "jpeg":
		err = jpeg.Encode(&b, img, nil)
	case "gif":
		err = gif.Encode(&b, img, nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// form is a multipart/form-data body holding data in a part "file" sent
// with the client's claimed type, as the real platform's uploader sends
// it (it claims image/jpeg for every picture), and its Content-Type.
func form(t *testing.T, name string, data []byte, claimed string) (body, ctype string) {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q; filename="alice.smith@example.org.jpg"`, name))
	h.Set("Content-Type", claimed)
	p, err := mw.CreatePart(h)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String(), mw.FormDataContentType()
}

// avatars is an env with the helpers of the picture tests.
type avatars struct{ *authzEnv }

// upload posts data as userID's picture, as who (nil: the admin).
func (a avatars) upload(who *sqlstore.BootstrapResult, userID string, data []byte) resp {
	a.t.Helper()
	body, ct := form(a.t, "file", data, "image/jpeg")
	return a.do(req{method: "POST", path: "/api/v1/fileserver/avatar/" + userID, raw: &body, ctype: &ct, as: who})
}

// picture reads the user's picture field.
func (a avatars) pictureOf(userID string) string {
	a.t.Helper()
	return str(a.ok(req{method: "GET", path: "/api/v2/users/" + userID}, 200), "picture")
}

// fetch reads a picture's URL without credentials.
func (a avatars) fetch(url string, header map[string]string) resp {
	a.t.Helper()
	return a.do(req{method: "GET", path: url, token: ptr(""), acct: ptr(""), header: header})
}

// served checks that url serves data with the media type ct, unsniffable.
func (a avatars) served(url string, data []byte, ct string) {
	a.t.Helper()
	r := a.fetch(url, nil)
	if r.status != 200 || !bytes.Equal(r.body, data) {
		a.t.Fatalf("GET %s: status %d, %d bytes, want 200 and the %d bytes uploaded: %.200s", url, r.status, len(r.body), len(data), r.body)
	}
	for name, want := range map[string]string{"Content-Type": ct, "X-Content-Type-Options": "nosniff",
		"Cache-Control": "public, max-age=86400", "Content-Security-Policy": "default-src 'none'; sandbox"} {
		if got := r.header.Get(name); got != want {
			a.t.Errorf("GET %s: %s %q, want %q", url, name, got, want)
		}
	}
	etag := r.header.Get("ETag")
	if !strings.HasPrefix(etag, `"`) || len(etag) < 10 {
		a.t.Fatalf("GET %s: ETag %q, want a strong entity tag", url, etag)
	}
	if nm := a.fetch(url, map[string]string{"If-None-Match": etag}); nm.status != 304 || len(nm.body) != 0 {
		a.t.Errorf("GET %s with If-None-Match its ETag: status %d, %d bytes, want 304 and no body", url, nm.status, len(nm.body))
	}
}

func newAvatars(t *testing.T) avatars { return avatars{newAuthzEnv(t)} }

// TestAvatarUploadReplaceDelete: an upload sets the user's picture to a URL
// that serves the same bytes, with the type read from the content (the
// client claims image/jpeg for a PNG), to anyone without credentials; a
// second upload replaces it and the first URL is gone; DELETE empties the
// picture and frees the file; a picture set by PATCH frees an uploaded one.
func TestAvatarUploadReplaceDelete(t *testing.T) {
	a := newAvatars(t)
	me := a.acct.UserID
	first := picture(t, "png", 64, 48, 1)
	r := a.upload(nil, me, first)
	if r.status != 200 {
		t.Fatalf("upload: status %d, want 200 (the real uploader counts only 200 as done): %s", r.status, r.body)
	}
	u := r.json(t)
	url := str(u, "picture")
	if !strings.HasPrefix(url, upstream.AvatarPathPrefix+a.acct.AccountID+"/") || !strings.HasSuffix(url, ".png") {
		t.Fatalf("picture after upload %q, want a URL under %s", url, upstream.AvatarPathPrefix)
	}
	if info, _ := u["pictureInfo"].(map[string]any); info["isPictureEdited"] != true {
		t.Errorf("pictureInfo after upload %v, want isPictureEdited", u["pictureInfo"])
	}
	if got := a.pictureOf(me); got != url {
		t.Errorf("the user read back has picture %q, want %q", got, url)
	}
	a.served(url, first, "image/png")
	if head := a.do(req{method: "HEAD", path: url, token: ptr(""), acct: ptr("")}); head.status != 200 || head.header.Get("Content-Type") != "image/png" {
		t.Errorf("HEAD %s: status %d, Content-Type %q", url, head.status, head.header.Get("Content-Type"))
	}

	for _, c := range []struct {
		format, ct, ext string
		data            []byte
	}{
		{"jpeg", "image/jpeg", ".jpg", picture(t, "jpeg", 32, 32, 2)},
		{"gif", "image/gif", ".gif", picture(t, "gif", 16, 16, 3)},
		{"webp", "image/webp", ".webp", []byte(webp1x1)},
	} {
		r := a.upload(nil, me, c.data)
		if r.status != 200 {
			t.Fatalf("replace with %s: status %d: %s", c.format, r.status, r.body)
		}
		next := str(r.json(t), "picture")
		if next == url || !strings.HasSuffix(next, c.ext) {
			t.Fatalf("picture after replacing with %s: %q (was %q)", c.format, next, url)
		}
		a.served(next, c.data, c.ct)
		a.problem(req{method: "GET", path: url, token: ptr(""), acct: ptr("")}, 404, "not_found")
		url = next
	}
	// The name without its extension serves the same picture.
	a.served(strings.TrimSuffix(url, ".webp"), []byte(webp1x1), "image/webp")

	a.ok(req{method: "DELETE", path: "/api/v1/fileserver/avatar/" + me}, 204)
	if got := a.pictureOf(me); got != "" {
		t.Errorf("picture after DELETE %q, want empty", got)
	}
	a.problem(req{method: "GET", path: url, token: ptr(""), acct: ptr("")}, 404, "not_found")
	a.problem(req{method: "DELETE", path: "/api/v1/fileserver/avatar/" + me}, 404, "not_found")

	// A picture set by PATCH replaces the uploaded one, which goes.
	url = str(a.upload(nil, me, first).json(t), "picture")
	a.served(url, first, "image/png")
	a.ok(req{method: "PATCH", path: "/api/v2/users/" + me, body: map[string]any{"picture": "https://pictures.example.com/ann.png"}}, 200)
	a.problem(req{method: "GET", path: url, token: ptr(""), acct: ptr("")}, 404, "not_found")
	if got := a.pictureOf(me); got != "https://pictures.example.com/ann.png" {
		t.Errorf("picture after PATCH %q", got)
	}
}

// TestAvatarWho: the user themself (a member, a viewer) may set their own
// picture; another user's needs users:manage (the admin); another
// account's user is not found, to its admin too.
func TestAvatarWho(t *testing.T) {
	a := newAvatars(t)
	data := picture(t, "png", 8, 8, 4)
	for _, who := range []*sqlstore.BootstrapResult{&a.member, &a.viewer} {
		if r := a.upload(who, who.UserID, data); r.status != 200 {
			t.Errorf("own picture: status %d, want 200: %s", r.status, r.body)
		}
	}
	r := a.upload(&a.member, a.viewer.UserID, data)
	checkProblem(t, r, 403, "forbidden")
	checkProblem(t, a.do(req{method: "DELETE", path: "/api/v1/fileserver/avatar/" + a.viewer.UserID, as: &a.member}), 403, "forbidden")
	if r := a.upload(nil, a.member.UserID, data); r.status != 200 {
		t.Errorf("admin, another user's picture: status %d, want 200: %s", r.status, r.body)
	}
	checkProblem(t, a.upload(&a.other, a.member.UserID, data), 404, "not_found")
	checkProblem(t, a.upload(nil, a.other.UserID, data), 404, "not_found")
	checkProblem(t, a.do(req{method: "DELETE", path: "/api/v1/fileserver/avatar/" + a.member.UserID, as: &a.other}), 404, "not_found")
	if got := a.pictureOf(a.member.UserID); !strings.HasPrefix(got, upstream.AvatarPathPrefix) {
		t.Errorf("the member's picture after the other account's attempts: %q", got)
	}
	// A picture's URL names its account: another account's id in it is not found.
	url := a.pictureOf(a.member.UserID)
	a.problem(req{method: "GET", path: strings.Replace(url, a.acct.AccountID, a.other.AccountID, 1), token: ptr(""), acct: ptr("")}, 404, "not_found")
	for _, bad := range []string{"nothex", strings.Repeat("a", 32) + ".svg", strings.Repeat("a", 32) + ".html", strings.Repeat("a", 31)} {
		a.problem(req{method: "GET", path: upstream.AvatarPathPrefix + a.acct.AccountID + "/" + bad, token: ptr(""), acct: ptr("")}, 404, "not_found")
	}
}

// TestAvatarRefused: what is not a picture — text, SVG, HTML, a picture
// that is also a page (markup after a GIF or PNG, a page that embeds a
// PNG), a picture's header on other bytes, a picture over the side limit
// — is 400 invalid on field file; over 2 MB is 413; a body that is not
// multipart 415; a multipart body cut short 400; a form without the part
// 400. After each, the user's picture and its file are as they were.
func TestAvatarRefused(t *testing.T) {
	a := newAvatars(t)
	me := a.acct.UserID
	kept := picture(t, "png", 16, 16, 5)
	url := str(a.upload(nil, me, kept).json(t), "picture")
	pngPic, gifPic := picture(t, "png", 4, 4, 6), picture(t, "gif", 4, 4, 7)
	tall := picture(t, "png", 1, upstream.MaxAvatarSide+1, 8)
	invalid := map[string][]byte{
		"text":                []byte("just some words, not a picture"),
		"empty":               nil,
		"svg":                 []byte(`<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><rect width="10" height="10"/></svg>`),
		"svg with xml":        []byte(`<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`),
		"html":                []byte(`<!DOCTYPE html><html><body><script>alert(document.cookie)</script></body></html>`),
		"html embedding png":  append([]byte(`<html><body><img src="x" onerror="alert(1)">`), pngPic...),
		"gif then script":     append(append([]byte{}, gifPic...), []byte(`<script>alert(1)</script>`)...),
		"png then html":       append(append([]byte{}, pngPic...), []byte(`<HTML><BODY onload=alert(1)>`)...),
		"png then svg":        append(append([]byte{}, pngPic...), []byte(`<svg onload=alert(1)>`)...),
		"png header only":     append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{0x42}, 200)...),
		"gif header only":     []byte("GIF89a\x01\x00\x01\x00" + strings.Repeat("\x00", 50)),
		"png cut short":       pngPic[:len(pngPic)-20],
		"pdf":                 []byte("%PDF-1.4\n1 0 obj<<>>endobj\n"),
		"side over the limit": tall,
	}
	for name, data := range invalid {
		p := checkProblem(t, a.upload(nil, me, data), 400, "invalid_input")
		if errs, _ := p["errors"].([]any); len(errs) == 0 || errs[0].(map[string]any)["field"] != "file" {
			t.Errorf("%s: problem %v, want field file", name, p)
		}
	}
	big := bytes.Repeat([]byte{0xff}, upstream.MaxAvatarBytes+1)
	copy(big, pngPic)
	checkProblem(t, a.upload(nil, me, big), 413, "request_too_large")
	huge := strings.Repeat("x", 3<<20)
	checkProblem(t, a.do(req{method: "POST", path: "/api/v1/fileserver/avatar/" + me, raw: &huge, ctype: ptr("multipart/form-data; boundary=x")}), 413, "request_too_large")

	// Not multipart: the picture as the body, or JSON.
	raw := string(pngPic)
	checkProblem(t, a.do(req{method: "POST", path: "/api/v1/fileserver/avatar/" + me, raw: &raw, ctype: ptr("image/png")}), 415, "unsupported_media_type")
	checkProblem(t, a.do(req{method: "POST", path: "/api/v1/fileserver/avatar/" + me, body: map[string]any{"file": "x"}}), 415, "unsupported_media_type")
	// Cut short: in the picture, and after it before the closing boundary.
	body, ct := form(t, "file", pngPic, "image/png")
	for _, cut := range []string{body[:len(body)/2], strings.TrimSuffix(body, "--\r\n")[:len(body)-10]} {
		checkProblem(t, a.do(req{method: "POST", path: "/api/v1/fileserver/avatar/" + me, raw: &cut, ctype: &ct}), 400, "invalid_input")
	}
	// The picture under another name than file.
	body, ct = form(t, "picture", pngPic, "image/png")
	checkProblem(t, a.do(req{method: "POST", path: "/api/v1/fileserver/avatar/" + me, raw: &body, ctype: &ct}), 400, "invalid_input")

	if got := a.pictureOf(me); got != url {
		t.Fatalf("picture after the refused uploads %q, want %q", got, url)
	}
	a.served(url, kept, "image/png")
}

// TestAvatarTruncatedConnection: a client that declares a body and sends
// less, then stops, gets a problem, and nothing is stored.
func TestAvatarTruncatedConnection(t *testing.T) {
	a := newAvatars(t)
	me := a.acct.UserID
	body, ct := form(t, "file", picture(t, "png", 8, 8, 9), "image/png")
	pr, pw := io.Pipe()
	go func() {
		_, _ = pw.Write([]byte(body[:len(body)-40]))
		pw.CloseWithError(io.ErrUnexpectedEOF)
	}()
	r, err := http.NewRequest("POST", a.srv.URL+"/api/v1/fileserver/avatar/"+me, pr)
	if err != nil {
		t.Fatal(err)
	}
	r.ContentLength = int64(len(body))
	r.Header.Set("Content-Type", ct)
	r.Header.Set("Authorization", "Bearer "+a.acct.Token)
	if res, err := a.srv.Client().Do(r); err == nil {
		res.Body.Close()
		if res.StatusCode < 400 {
			t.Errorf("a body cut short: status %d", res.StatusCode)
		}
	}
	if got := a.pictureOf(me); got != "" {
		t.Errorf("picture after a body cut short %q, want none", got)
	}
}

// TestAvatarIdempotencyKey: an upload honours Idempotency-Key like every
// POST: the retry gets the first answer, and the picture is stored once.
func TestAvatarIdempotencyKey(t *testing.T) {
	a := newAvatars(t)
	me := a.acct.UserID
	body, ct := form(t, "file", picture(t, "jpeg", 8, 8, 10), "image/jpeg")
	q := req{method: "POST", path: "/api/v1/fileserver/avatar/" + me, raw: &body, ctype: &ct, header: map[string]string{"Idempotency-Key": "avatar-1"}}
	first := a.do(q)
	again := a.do(q)
	if first.status != 200 || again.status != 200 || !bytes.Equal(first.body, again.body) || again.header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("retry with the same Idempotency-Key: %d %s then %d %s (replayed %q)", first.status, first.body, again.status, again.body, again.header.Get("Idempotent-Replayed"))
	}
	if got := a.pictureOf(me); got != str(first.json(t), "picture") {
		t.Errorf("picture %q after the retry, want the first answer's", got)
	}
}

// walkAvatars uploads and deletes a picture in the contract walk.
func walkAvatars(t *testing.T, e *env) {
	t.Helper()
	body, ct := form(t, "file", picture(t, "png", 4, 4, 11), "image/png")
	path := "/api/v1/fileserver/avatar/" + e.acct.UserID
	if u := e.ok(req{method: "POST", path: path, raw: &body, ctype: &ct}, 200); !strings.HasPrefix(str(u, "picture"), upstream.AvatarPathPrefix) {
		t.Errorf("walk: picture after upload %q", str(u, "picture"))
	}
	e.ok(req{method: "DELETE", path: path}, 204)
}

// formBody is an upload's body in the authorization matrix.
type formBody struct{ body, ctype string }

// avatarForm is the body of an upload in the authorization matrix.
func (e *authzEnv) avatarForm() formBody {
	body, ct := form(e.t, "file", picture(e.t, "png", 4, 4, 12), "image/png")
	return formBody{body, ct}
}

// avatarOf uploads a picture for userID as the admin, for the matrix's DELETE.
func (e *authzEnv) avatarOf(userID string) {
	e.t.Helper()
	if _, err := e.store.SetAvatar(e.adminCtx(), userID, picture(e.t, "png", 4, 4, 13)); err != nil {
		e.t.Fatal(err)
	}
}
