package rest

import (
	"fmt"
	"net/http"
	"slices"

	"github.com/okrgate/okrgate/upstream"
)

// avatarUploadDesc describes the upload of a picture (avatars.go).
var avatarUploadDesc = fmt.Sprintf("The real platform's upload of a user's picture (its bulk uploader's request): a multipart/form-data body with the picture "+
	"in its part \"file\", at most %d bytes. The picture's type is read from its content, whatever the part's Content-Type says: PNG, JPEG, GIF or WebP, "+
	"each side at most %d pixels, decoding whole, holding no HTML, SVG or script markup; anything else is 400 invalid (field file), a larger picture 413 "+
	"request_too_large, a body cut short 400 invalid, a body that is not multipart/form-data 415. The picture replaces (and deletes) the one uploaded before; "+
	"the answer is the user, whose picture is the URL that serves it (GET %s{accountId}/{file}). The user themself, or a holder of users:manage; "+
	"another account's user is 404.", upstream.MaxAvatarBytes, upstream.MaxAvatarSide, upstream.AvatarPathPrefix)

// uploadBody is the request body of an upload: a form with the file in
// its part "file".
func uploadBody() map[string]any {
	return map[string]any{"required": true, "description": "a multipart/form-data form; the picture is its part \"file\"",
		"content": map[string]any{"multipart/form-data": map[string]any{"schema": map[string]any{
			"type": "object", "required": []string{"file"},
			"properties": map[string]any{"file": map[string]any{"type": "string", "contentMediaType": "application/octet-stream",
				"description": "the picture: PNG, JPEG, GIF or WebP, by its content"}},
		}}}}
}

// avatarFileOperations documents the URL of an uploaded picture, which the
// facade serves apart from the route table: it needs no credentials.
func avatarFileOperations() map[string]any {
	ref := func(st int) map[string]any {
		return map[string]any{"$ref": "#/components/responses/" + problemResponseName(st)}
	}
	image := map[string]any{"schema": map[string]any{"type": "string", "contentMediaType": "application/octet-stream"}}
	content := map[string]any{}
	types := make([]string, 0, len(upstream.AvatarTypes))
	for ct := range upstream.AvatarTypes {
		types = append(types, ct)
	}
	slices.Sort(types)
	for _, ct := range types {
		content[ct] = image
	}
	str := map[string]any{"schema": map[string]any{"type": "string"}}
	get := map[string]any{
		"operationId": "getAvatar",
		"summary":     "Read an uploaded picture",
		"description": "The picture at the URL a user's picture holds after an upload. Needs no credentials: the file name is a random 128-bit name, " +
			"known only to who could read the user, so that the URL works in an <img> of a browser page. Answered with the type read from the " +
			"content at upload (an image, never HTML or SVG), X-Content-Type-Options: nosniff, a sandboxing Content-Security-Policy, an ETag " +
			"(If-None-Match answers 304) and Cache-Control: " + avatarCache + " (another upload gets another URL). Unknown, replaced or deleted: 404.",
		"tags":     []string{"fileserver"},
		"security": []any{},
		"parameters": []any{
			map[string]any{"name": "accountId", "in": "path", "required": true, "schema": map[string]any{"type": "string", "pattern": "^[0-9a-f]{24}$"},
				"description": "the account of the user"},
			map[string]any{"name": "file", "in": "path", "required": true,
				"schema":      map[string]any{"type": "string", "pattern": "^[0-9a-f]{32}(\\.(png|jpg|gif|webp))?$"},
				"description": "the picture's name, with or without its extension"},
			map[string]any{"name": "If-None-Match", "in": "header", "required": false, "schema": map[string]any{"type": "string"},
				"description": "the ETag of a copy held: 304 when it is current"},
		},
		"responses": map[string]any{
			"200": map[string]any{"description": "the picture", "content": content, "headers": map[string]any{
				"ETag": etagHeader, "Cache-Control": str, "X-Content-Type-Options": str, "Content-Security-Policy": str}},
			"304": map[string]any{"description": "the copy named in If-None-Match is current; no body", "headers": map[string]any{"ETag": etagHeader}},
			"400": ref(http.StatusBadRequest),
			"404": ref(http.StatusNotFound),
			"414": ref(http.StatusRequestURITooLong),
			"500": ref(http.StatusInternalServerError),
			"503": ref(http.StatusServiceUnavailable),
		},
	}
	head := map[string]any{}
	for k, v := range get {
		head[k] = v
	}
	head["operationId"] = "headAvatar"
	head["summary"] = "Read an uploaded picture's headers"
	return map[string]any{"get": get, "head": head}
}
