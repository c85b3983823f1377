package apitest

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"

	"github.com/okrgate/okrgate/upstream"
)

// testAvatars: a user's picture is stored and read back byte-identical by
// the URL its picture holds, with the type read from the content; another
// upload replaces it and the first is gone; the user themself may, another
// user's needs users:manage, another account's user is not found; what is
// not a picture is refused and changes nothing; DeleteAvatar empties the
// picture and the file goes.
func testAvatars(t *testing.T, f *fixture) {
	pic := func(seed uint8) []byte {
		img := image.NewNRGBA(image.Rect(0, 0, 6, 4))
		for i := range img.Pix {
			img.Pix[i] = uint8(i) * seed
		}
		img.Set(0, 0, color.NRGBA{A: 255})
		var b bytes.Buffer
		if err := png.Encode(&b, img); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	// file reads the picture a user's picture names.
	file := func(u upstream.User) (upstream.Avatar, error) {
		t.Helper()
		rest, ok := strings.CutPrefix(u.Picture, upstream.AvatarPathPrefix)
		account, name, _ := strings.Cut(rest, "/")
		id, valid := upstream.ParseAvatarFile(name)
		if !ok || !valid {
			t.Fatalf("picture %q is not a picture's URL", u.Picture)
		}
		return f.api.GetAvatar(t.Context(), account, id)
	}
	first, second := pic(1), pic(2)
	u, err := f.api.SetAvatar(f.member, f.memberID, first)
	if err != nil {
		t.Fatalf("the member's own picture: %v", err)
	}
	a, err := file(u)
	if err != nil || !bytes.Equal(a.Data, first) || !strings.HasPrefix(a.ContentType, "image/png") || a.ETag == "" {
		t.Fatalf("read back: %q %q %d bytes, %v", a.ContentType, a.ETag, len(a.Data), err)
	}
	if got, err := f.api.GetUser(f.admin, f.memberID); err != nil || got.Picture != u.Picture {
		t.Fatalf("the member's picture read back %q, %v, want %q", got.Picture, err, u.Picture)
	}

	_, err = f.api.SetAvatar(f.viewer, f.memberID, second)
	wantCode(t, "the viewer sets the member's picture", err, upstream.CodeForbidden)
	_, err = f.api.SetAvatar(f.other, f.memberID, second)
	wantCode(t, "another account's admin sets the member's picture", err, upstream.CodeNotFound)
	_, err = f.api.SetAvatar(f.admin, f.memberID, []byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`))
	wantCode(t, "an SVG picture", err, upstream.CodeInvalid)
	if got, _ := f.api.GetUser(f.admin, f.memberID); got.Picture != u.Picture {
		t.Fatalf("the picture after the refusals %q, want %q", got.Picture, u.Picture)
	}

	v, err := f.api.SetAvatar(f.admin, f.memberID, second) // users:manage
	if err != nil || v.Picture == u.Picture {
		t.Fatalf("the admin replaces the member's picture: %q, %v", v.Picture, err)
	}
	if a, err := file(v); err != nil || !bytes.Equal(a.Data, second) {
		t.Fatalf("the new picture read back: %d bytes, %v", len(a.Data), err)
	}
	_, err = file(u)
	wantCode(t, "the replaced picture", err, upstream.CodeNotFound)

	wantCode(t, "the viewer deletes the member's picture", f.api.DeleteAvatar(f.viewer, f.memberID), upstream.CodeForbidden)
	if err := f.api.DeleteAvatar(f.member, f.memberID); err != nil {
		t.Fatalf("the member deletes its picture: %v", err)
	}
	_, err = file(v)
	wantCode(t, "the deleted picture", err, upstream.CodeNotFound)
	if got, _ := f.api.GetUser(f.admin, f.memberID); got.Picture != "" {
		t.Errorf("the picture after DeleteAvatar %q", got.Picture)
	}
	wantCode(t, "a second delete", f.api.DeleteAvatar(f.member, f.memberID), upstream.CodeNotFound)
}
