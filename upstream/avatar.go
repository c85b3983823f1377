package upstream

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"net/http"
	"strings"

	"golang.org/x/image/webp"
)

// AvatarService stores the pictures users upload for themselves (the real
// platform's POST /api/v1/fileserver/avatar/{userId}). A user has at most
// one uploaded picture: uploading another replaces it, and the replaced one
// is deleted with the change, so no picture outlives its use.
type AvatarService interface {
	// SetAvatar checks data (CheckAvatar), stores it as the picture of
	// the user userID of the caller's account, deleting the one it
	// replaces, and sets the user's picture to the URL that serves it
	// (AvatarPath). The user themself may, and a holder of users:manage
	// (SelfPatch, as for any change of a user's picture); another
	// account's user is not found.
	SetAvatar(ctx context.Context, userID string, data []byte) (User, error)
	// DeleteAvatar deletes the user's uploaded picture and empties its
	// picture; not found when the user has none. Who may: as SetAvatar.
	DeleteAvatar(ctx context.Context, userID string) error
	// GetAvatar reads an uploaded picture by its account and id. It needs
	// no caller: the id is a random 128-bit name, known only from the
	// picture field of a user the caller could read, so that the URL
	// works where no credentials are sent (an <img> of a browser page).
	GetAvatar(ctx context.Context, accountID, id string) (Avatar, error)
}

// Avatar is one stored picture.
type Avatar struct {
	ID          string
	AccountID   string
	UserID      string
	ContentType string // one of AvatarTypes, from the content (CheckAvatar)
	ETag        string // a strong entity tag of the content
	Created     string // FormatTime
	Data        []byte
}

// Bounds and types of uploaded pictures.
const (
	// MaxAvatarBytes bounds a picture: larger is 413 request_too_large.
	MaxAvatarBytes = 2 << 20
	// MaxAvatarSide bounds a picture's width and height in pixels, so that
	// checking it by decoding it never needs more than about 64 MiB.
	MaxAvatarSide = 4096
	// AvatarPathPrefix is where the REST facade serves pictures:
	// AvatarPathPrefix + "{accountId}/{id}.{ext}".
	AvatarPathPrefix = "/api/v1/fileserver/avatars/"
)

// AvatarTypes are the media types of the pictures accepted, with their
// file extensions: raster images a browser shows and never runs.
var AvatarTypes = map[string]string{"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp"}

// markup are byte sequences that start HTML, SVG or script in a document
// that a browser, or an old content sniffer that ignores the media type,
// could run. No picture needs them.
var markup = [][]byte{[]byte("<html"), []byte("<head"), []byte("<body"), []byte("<script"), []byte("<svg"),
	[]byte("<iframe"), []byte("<object"), []byte("<embed"), []byte("<!doctype"), []byte("javascript:")}

// CheckAvatar decides whether data may be stored and served as a picture
// and returns its media type. The type is sniffed from the content (the
// WHATWG algorithm of http.DetectContentType), never taken from the
// client: PNG, JPEG, GIF or WebP. The picture must then decode whole as
// that type within MaxAvatarSide — a file that only starts like a
// picture is refused — and must hold no HTML, SVG or script markup
// anywhere (a polyglot: a picture that is also a page). Refusals are
// CodeInvalid on field file; over MaxAvatarBytes is CodeRequestTooLarge.
func CheckAvatar(data []byte) (string, error) {
	if len(data) > MaxAvatarBytes {
		return "", Errorf(CodeRequestTooLarge, "the picture is larger than %d bytes", MaxAvatarBytes)
	}
	if len(data) == 0 {
		return "", Invalid("file", "the picture is empty")
	}
	ct := http.DetectContentType(data)
	if _, ok := AvatarTypes[ct]; !ok {
		return "", Invalid("file", "the file is not a PNG, JPEG, GIF or WebP picture (its content reads as %s)", strings.SplitN(ct, ";", 2)[0])
	}
	lower := bytes.ToLower(data)
	for _, m := range markup {
		if bytes.Contains(lower, m) {
			return "", Invalid("file", "the picture holds markup (%s): a file that is both a picture and a page is refused", m)
		}
	}
	var decodeConfig func([]byte) (image.Config, error)
	var decode func([]byte) error
	switch ct {
	case "image/png":
		decodeConfig = func(b []byte) (image.Config, error) { return png.DecodeConfig(bytes.NewReader(b)) }
		decode = func(b []byte) error { _, err := png.Decode(bytes.NewReader(b)); return err }
	case "image/jpeg":
		decodeConfig = func(b []byte) (image.Config, error) { return jpeg.DecodeConfig(bytes.NewReader(b)) }
		decode = func(b []byte) error { _, err := jpeg.Decode(bytes.NewReader(b)); return err }
	case "image/gif":
		decodeConfig = func(b []byte) (image.Config, error) { return gif.DecodeConfig(bytes.NewReader(b)) }
		decode = func(b []byte) error { _, err := gif.DecodeAll(bytes.NewReader(b)); return err }
	case "image/webp":
		decodeConfig = func(b []byte) (image.Config, error) { return webp.DecodeConfig(bytes.NewReader(b)) }
		decode = func(b []byte) error { _, err := webp.Decode(bytes.NewReader(b)); return err }
	}
	cfg, err := decodeConfig(data)
	if err != nil {
		return "", Invalid("file", "the %s picture does not decode: %v", AvatarTypes[ct], err)
	}
	if cfg.Width < 1 || cfg.Height < 1 || cfg.Width > MaxAvatarSide || cfg.Height > MaxAvatarSide {
		return "", Invalid("file", "the picture is %d×%d pixels: each side must be 1 to %d", cfg.Width, cfg.Height, MaxAvatarSide)
	}
	if err := decode(data); err != nil {
		return "", Invalid("file", "the %s picture does not decode: %v", AvatarTypes[ct], err)
	}
	return ct, nil
}

// AvatarPath is the path at which the REST facade serves a picture: the
// value of a user's picture after an upload.
func AvatarPath(accountID, id, contentType string) string {
	return AvatarPathPrefix + accountID + "/" + id + "." + AvatarTypes[contentType]
}

// ParseAvatarFile reads the last segment of an AvatarPath, "{id}.{ext}"
// or "{id}" alone, and reports whether it has that shape: a 32-character
// lowercase hex id, and the extension of one of AvatarTypes when there is
// one. The extension is for people and file managers: the stored type
// decides how the picture is served.
func ParseAvatarFile(file string) (id string, ok bool) {
	id, ext, dotted := strings.Cut(file, ".")
	if len(id) != 32 || strings.Trim(id, "0123456789abcdef") != "" {
		return "", false
	}
	if !dotted {
		return id, true
	}
	for _, e := range AvatarTypes {
		if e == ext {
			return id, true
		}
	}
	return "", false
}

// AvatarName is the file name a picture is served under (in its
// Content-Disposition), "avatar.png" and so on.
func AvatarName(contentType string) string { return fmt.Sprintf("avatar.%s", AvatarTypes[contentType]) }
