package sqlstore_test

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore/sqlstoretest"
)

// pngOf encodes a w×h PNG whose pixels depend on seed.
func pngOf(t *testing.T, w, h int, seed uint8) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.NRGBA{R: uint8(x) + seed, G: uint8(y), B: seed, A: 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// avatarRows lists the ids of the stored pictures of account, by user.
func avatarRows(t *testing.T, raw *sqlstoretest.Raw, account string) map[string]string {
	t.Helper()
	rows, err := raw.QueryContext(context.Background(), raw.Q("SELECT user_id, id FROM avatars WHERE account_id = ?"), account)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var user, id string
		if err := rows.Scan(&user, &id); err != nil {
			t.Fatal(err)
		}
		if _, dup := out[user]; dup {
			t.Errorf("user %s has two stored pictures", user)
		}
		out[user] = id
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestAvatarStore: a picture is stored with the user pointing at it, read
// back byte-identical by its account and id only; another upload replaces
// the row (one per user, the old one deleted in the same transaction), and
// so does a picture set by UpdateUser; DeleteAvatar leaves no row; refused
// uploads (not a picture, another account's user, no right) leave the rows
// and the user as they were.
func TestAvatarStore(t *testing.T) {
	e := newEnv(t)
	raw := sqlstoretest.OpenRaw(t, e.path)
	account, me := e.boot.AccountID, e.boot.UserID
	first := pngOf(t, 10, 10, 1)
	u, err := e.store.SetAvatar(e.ctx, me, first)
	if err != nil {
		t.Fatal(err)
	}
	rows := avatarRows(t, raw, account)
	id := rows[me]
	if len(rows) != 1 || len(id) != 32 || u.Picture != upstream.AvatarPath(account, id, "image/png") || !u.PictureInfo.IsPictureEdited {
		t.Fatalf("after the upload: rows %v, picture %q", rows, u.Picture)
	}
	a, err := e.store.GetAvatar(context.Background(), account, id) // no caller
	if err != nil || !bytes.Equal(a.Data, first) || a.ContentType != "image/png" || a.UserID != me || !strings.HasPrefix(a.ETag, `"`) {
		t.Fatalf("GetAvatar: %+v (%d bytes), %v", a.ContentType, len(a.Data), err)
	}
	other, otherCtx := e.account("Globex", "hank@globex.test")
	if _, err := e.store.GetAvatar(context.Background(), other.AccountID, id); upstream.ErrorCode(err) != upstream.CodeNotFound {
		t.Errorf("another account's id: %v, want not found", err)
	}

	second := pngOf(t, 12, 8, 2)
	if _, err := e.store.SetAvatar(e.ctx, me, second); err != nil {
		t.Fatal(err)
	}
	rows = avatarRows(t, raw, account)
	if len(rows) != 1 || rows[me] == id {
		t.Fatalf("after replacing: rows %v (the first was %s)", rows, id)
	}
	if _, err := e.store.GetAvatar(context.Background(), account, id); upstream.ErrorCode(err) != upstream.CodeNotFound {
		t.Errorf("the replaced picture: %v, want not found", err)
	}
	id = rows[me]

	// Refusals leave everything as it was.
	member := upstream.NewContext(context.Background(), e.user(upstream.RoleMember))
	_, err = e.store.SetAvatar(e.ctx, me, []byte("<svg onload=alert(1)>"))
	wantCode(t, err, upstream.CodeInvalid)
	_, err = e.store.SetAvatar(otherCtx, me, first)
	wantCode(t, err, upstream.CodeNotFound)
	_, err = e.store.SetAvatar(member, me, first)
	wantCode(t, err, upstream.CodeForbidden)
	wantCode(t, e.store.DeleteAvatar(member, me), upstream.CodeForbidden)
	wantCode(t, e.store.DeleteAvatar(otherCtx, me), upstream.CodeNotFound)
	if rows := avatarRows(t, raw, account); len(rows) != 1 || rows[me] != id {
		t.Fatalf("after the refusals: rows %v, want %s alone", rows, id)
	}
	if got, err := e.store.GetUser(e.ctx, me); err != nil || got.Picture != upstream.AvatarPath(account, id, "image/png") {
		t.Fatalf("the user after the refusals: %q, %v", got.Picture, err)
	}

	wantCode(t, e.store.DeleteAvatar(e.ctx, me), "")
	if rows := avatarRows(t, raw, account); len(rows) != 0 {
		t.Fatalf("after DeleteAvatar: rows %v", rows)
	}
	if got, _ := e.store.GetUser(e.ctx, me); got.Picture != "" || got.PictureInfo.IsPictureEdited {
		t.Errorf("the user after DeleteAvatar: %q %+v", got.Picture, got.PictureInfo)
	}
	wantCode(t, e.store.DeleteAvatar(e.ctx, me), upstream.CodeNotFound)

	// A picture set by UpdateUser frees the uploaded one.
	if _, err := e.store.SetAvatar(e.ctx, me, first); err != nil {
		t.Fatal(err)
	}
	pic := "https://pictures.example.com/ann.png"
	if _, err := e.store.UpdateUser(e.ctx, me, upstream.UserPatch{Picture: &pic}); err != nil {
		t.Fatal(err)
	}
	if rows := avatarRows(t, raw, account); len(rows) != 0 {
		t.Errorf("after UpdateUser set another picture: rows %v", rows)
	}
	// The other account's own pictures are its own.
	if _, err := e.store.SetAvatar(otherCtx, other.UserID, second); err != nil {
		t.Fatal(err)
	}
	if rows := avatarRows(t, raw, other.AccountID); len(rows) != 1 {
		t.Errorf("the other account's rows %v", rows)
	}
	if rows := avatarRows(t, raw, account); len(rows) != 0 {
		t.Errorf("rows of the first account after the other's upload: %v", rows)
	}
}

// TestAvatarMovesWithAccount: an account's pictures move with it (okrgate
// export and import): the moved user's picture URL serves the same bytes.
func TestAvatarMovesWithAccount(t *testing.T) {
	e := newEnv(t)
	data := pngOf(t, 9, 7, 3)
	u, err := e.store.SetAvatar(e.ctx, e.boot.UserID, data)
	if err != nil {
		t.Fatal(err)
	}
	file := exportOf(t, e.store, e.boot.AccountID, sqlstore.ExportOptions{})
	dst, err := sqlstore.Open(context.Background(), sqlstoretest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	if _, err := importInto(dst, file, sqlstore.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	id, _ := upstream.ParseAvatarFile(u.Picture[strings.LastIndex(u.Picture, "/")+1:])
	a, err := dst.GetAvatar(context.Background(), e.boot.AccountID, id)
	if err != nil || !bytes.Equal(a.Data, data) || a.ContentType != "image/png" || a.UserID != e.boot.UserID {
		t.Fatalf("the moved picture: %q %d bytes, %v", a.ContentType, len(a.Data), err)
	}
}
