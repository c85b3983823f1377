package client

import (
	"bytes"
	"context"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/textproto"

	"github.com/okrgate/okrgate/upstream"
)

// Routes of users' pictures (upstream/transport/rest/avatars.go).
const (
	routeAvatar     = "/api/v1/fileserver/avatar/{userId}"
	routeAvatarFile = upstream.AvatarPathPrefix + "{accountId}/{file}"
)

// SetAvatar uploads data as the user's picture: the multipart form the
// real platform's uploader sends, the picture in its part "file".
func (c *Client) SetAvatar(ctx context.Context, userID string, data []byte) (upstream.User, error) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="file"; filename="avatar"`)
	h.Set("Content-Type", "application/octet-stream")
	part, err := mw.CreatePart(h)
	if err == nil {
		_, err = part.Write(data)
	}
	if err == nil {
		err = mw.Close()
	}
	if err != nil {
		return upstream.User{}, fmt.Errorf("client: encode the picture: %w", err)
	}
	var out upstream.User
	_, err = c.do(ctx, call{method: http.MethodPost, route: routeAvatar, path: fill(routeAvatar, userID), id: userID,
		raw: buf.Bytes(), rawType: mw.FormDataContentType()}, &out)
	return out, err
}

// GetAvatar reads a picture from the upstream's URL of it, without
// credentials, as a browser does: its id is the URL's last segment, which
// the upstream serves with or without the extension.
func (c *Client) GetAvatar(ctx context.Context, accountID, id string) (upstream.Avatar, error) {
	a, err := c.do(ctx, call{method: http.MethodGet, route: routeAvatarFile, path: fill(routeAvatarFile, accountID, id), id: id, anonymous: true}, nil)
	if err != nil {
		return upstream.Avatar{}, err
	}
	return upstream.Avatar{ID: id, AccountID: accountID, ContentType: a.header.Get("Content-Type"), ETag: a.header.Get("ETag"),
		Created: a.header.Get("Last-Modified"), Data: a.body}, nil
}
