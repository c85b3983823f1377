package client

import (
	"context"
	"net/http"
	"strings"

	"github.com/okrgate/okrgate/upstream"
)

// Idempotent and conditional requests are forwarded, not re-implemented:
// the upstream holds the data, so it alone can apply a write at most once
// or compare a version inside the write's transaction. The REST facade in
// front of the client (the gateway's) binds the request's Idempotency-Key
// and If-Match as write options (upstream.API.Writing) exactly as it does
// for a local store; the client's view sends them on the upstream write
// they belong to and carries the
// upstream's answer back: the entity tag the write left, a replayed answer
// (Idempotent-Replayed), or the error (412 precondition_failed, 422
// idempotency_key_reused, 409 idempotency_key_in_use).

var (
	_ upstream.Idempotency = (*Client)(nil)
	_ upstream.Versions    = (*Client)(nil)
)

// ReserveIdempotencyKey reserves nothing: the key travels with the write
// (Idempotency-Key on the upstream POST) and the upstream answers a retry
// with its recorded answer, so the gateway keeps no record of its own and
// every request runs through to the upstream.
func (c *Client) ReserveIdempotencyKey(context.Context, upstream.IdempotencyKey) (*upstream.IdempotentResponse, error) {
	return nil, nil
}

// CompleteIdempotencyKey records nothing: the upstream recorded the answer.
func (c *Client) CompleteIdempotencyKey(context.Context, upstream.IdempotencyKey, upstream.IdempotentResponse) error {
	return nil
}

// ReleaseIdempotencyKey releases nothing: the upstream released its
// reservation when its write failed.
func (c *Client) ReleaseIdempotencyKey(context.Context, upstream.IdempotencyKey) error {
	return nil
}

// versionedRoutes are the upstream routes of the resources with versions
// (GET answers an ETag; PATCH and DELETE honour If-Match).
var versionedRoutes = map[string]string{
	upstream.KindGoal:    routeGoal,
	upstream.KindMetric:  routeMetric,
	upstream.KindTask:    routeTask,
	upstream.KindSession: routeSession,
}

// versionKey is the request memo's key of the entity tag the upstream
// answered with the last read of a resource in the request.
type versionKey struct{ kind, id string }

// Version returns the entity tag of resource kind/id. After a read of the
// resource in the same request (the facade's conditional GET reads it
// between two Version calls) it is the tag the upstream sent with that
// read, so it describes exactly the bytes read; otherwise one upstream GET
// with If-None-Match: * asks for the tag alone (304 with an ETag, no body).
// A resource the upstream shows without a tag (an obfuscated stub) has no
// version: not_found, as for a missing one.
func (c *Client) Version(ctx context.Context, kind, id string) (string, error) {
	route, ok := versionedRoutes[kind]
	if !ok {
		return "", upstream.Errorf(upstream.CodeInvalid, "resources of kind %q have no version", kind)
	}
	if m := upstream.MemoFrom(ctx); m != nil {
		if v, ok := m.Get(versionKey{kind, id}); ok {
			return versionOrNotFound(kind, id, v.(string))
		}
	}
	a, err := c.do(ctx, call{method: http.MethodGet, route: route, path: fill(route, id),
		header: http.Header{"If-None-Match": {"*"}}, notModified: true}, nil)
	if err != nil {
		return "", err
	}
	return versionOrNotFound(kind, id, a.header.Get("ETag"))
}

func versionOrNotFound(kind, id, etag string) (string, error) {
	if etag == "" {
		return "", upstream.NotFound(kind, id)
	}
	return etag, nil
}

// recordVersion keeps the entity tag the upstream answered to a read or
// write of a versioned route (none: the resource has no visible version,
// or no longer exists) in the request's memo for Version.
func recordVersion(ctx context.Context, k call, a answer) {
	m := upstream.MemoFrom(ctx)
	if m == nil || k.header.Get("If-None-Match") != "" {
		return
	}
	for kind, route := range versionedRoutes {
		if k.route == route {
			etag := a.header.Get("ETag")
			if k.method == http.MethodDelete {
				etag = ""
			}
			m.Put(versionKey{kind, k.id}, etag)
			return
		}
	}
}

// Writing returns a view of the client whose writes forward o: the key as
// the Idempotency-Key of its POSTs, the precondition as If-Match of the
// PATCH or DELETE of the resource it names (forward).
func (c *Client) Writing(o upstream.WriteOptions) upstream.API {
	v := *c
	v.write = o
	return &v
}

// forward adds to k the headers of the view's idempotency key and
// precondition that belong to it: the Idempotency-Key on a POST, If-Match
// on the PATCH or DELETE of the resource the precondition names (until a
// write under it committed). It returns the precondition k carries, or nil.
func (c *Client) forward(k *call) *upstream.Precondition {
	if key := c.write.Idempotency; key != nil && k.method == http.MethodPost {
		k.setHeader("Idempotency-Key", key.Key)
	}
	p := c.write.Precondition
	if p == nil || p.Done || (k.method != http.MethodPatch && k.method != http.MethodDelete) ||
		versionedRoutes[p.Kind] != k.route || k.id != p.ID {
		return nil
	}
	if len(p.IfMatch) > 0 {
		k.setHeader("If-Match", strings.Join(p.IfMatch, ", "))
	}
	return p
}

// forwarded carries the upstream's answer to a forwarded write back into
// the view's options: the version the write left, and whether the answer
// was a replay.
func (c *Client) forwarded(k call, p *upstream.Precondition, a answer) {
	if p != nil {
		p.ETag, p.Done = a.header.Get("ETag"), true
		if k.method == http.MethodDelete {
			p.ETag = ""
		}
	}
	if key := c.write.Idempotency; key != nil && k.method == http.MethodPost && a.header.Get("Idempotent-Replayed") == "true" {
		key.Replayed = true
	}
}

// setHeader sets a request header of k.
func (k *call) setHeader(name, value string) {
	if k.header == nil {
		k.header = http.Header{}
	}
	k.header.Set(name, value)
}

// represent asks the upstream to answer k with the item as stored rather
// than without a body (Prefer: return=representation, RFC 7240; the
// facade honours it on the operations of rest/prefer.go).
func represent(k call) call {
	k.setHeader("Prefer", "return=representation")
	return k
}

// represented reports whether the upstream applied return=representation:
// a 200 whose body is the item.
func represented(a answer) bool {
	return a.status == http.StatusOK && strings.EqualFold(a.header.Get("Preference-Applied"), "return=representation")
}

// VersionsOf returns the entity tags of ids, one Version each: the REST API
// has no batch read of versions, and after a read of the resources the
// tags come from the request's memo without a call.
func (c *Client) VersionsOf(ctx context.Context, kind string, ids []string) (map[string]string, error) {
	out := make(map[string]string, len(ids))
	for _, id := range ids {
		v, err := c.Version(ctx, kind, id)
		if upstream.ErrorCode(err) == upstream.CodeNotFound {
			continue
		}
		if err != nil {
			return nil, err
		}
		out[id] = v
	}
	return out, nil
}
