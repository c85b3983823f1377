package rest

import (
	"context"
	"net/http"
	"strings"

	"github.com/okrgate/okrgate/upstream"
)

// Conditional requests (RFC 9110 §13) on the resources with versions
// (Route.Versioned): a GET answers an ETag and honours If-None-Match (304);
// a PATCH or DELETE honours If-Match (412 precondition_failed when the
// stored version is another), checked by the backend inside the write's
// transaction, and an update answers the ETag of the version it left.

// idParam is the name of the last path parameter of a pattern: the id of
// the resource a versioned route addresses.
func idParam(pattern string) string {
	i := strings.LastIndex(pattern, "{")
	j := strings.LastIndex(pattern, "}")
	if i < 0 || j < i {
		return ""
	}
	return pattern[i+1 : j]
}

// parseETags splits an If-Match or If-None-Match header into its entity
// tags ("*" or quoted tags, optionally W/-prefixed). ok is false when the
// header is malformed.
func parseETags(h string) (tags []string, ok bool) {
	h = strings.TrimSpace(h)
	if h == "*" {
		return []string{"*"}, true
	}
	for _, t := range strings.Split(h, ",") {
		t = strings.TrimSpace(t)
		if t == "" {
			continue
		}
		opaque := strings.TrimPrefix(t, "W/")
		if len(opaque) < 2 || opaque[0] != '"' || opaque[len(opaque)-1] != '"' || strings.Contains(opaque[1:len(opaque)-1], `"`) {
			return nil, false
		}
		tags = append(tags, t)
	}
	return tags, len(tags) > 0
}

// ifMatch reads the If-Match header of a write on a versioned route into a
// precondition (nil without the header). Weak tags never match (strong
// comparison).
func ifMatch(r *http.Request, kind, id string) (*upstream.Precondition, error) {
	h := r.Header.Values("If-Match")
	p := &upstream.Precondition{Kind: kind, ID: id}
	if len(h) == 0 {
		return p, nil
	}
	tags, ok := parseETags(strings.Join(h, ","))
	if !ok {
		return nil, upstream.Invalid("If-Match", "must be * or a list of entity tags such as \"1f0c…\"")
	}
	p.IfMatch = tags
	return p, nil
}

// noneMatch reports whether an If-None-Match header matches etag (weak
// comparison, as RFC 9110 §13.1.2 asks).
func noneMatch(r *http.Request, etag string) (bool, error) {
	h := r.Header.Values("If-None-Match")
	if len(h) == 0 {
		return false, nil
	}
	tags, ok := parseETags(strings.Join(h, ","))
	if !ok {
		return false, upstream.Invalid("If-None-Match", "must be * or a list of entity tags")
	}
	for _, t := range tags {
		if t == "*" || strings.TrimPrefix(t, "W/") == strings.TrimPrefix(etag, "W/") {
			return true, nil
		}
	}
	return false, nil
}

// conditionalGet runs a versioned GET: the version is read before and after
// the handler, and the answer carries an ETag only when both agree (no write
// slipped in between) and the caller sees the resource itself rather than
// an obfuscated stub. A matching If-None-Match then answers 304.
func (s *server) conditionalGet(ctx context.Context, r *http.Request, kind, id string, h func() (any, error)) (v any, etag string, notModified bool, err error) {
	vs := s.api
	before, verr := vs.Version(ctx, kind, id)
	if v, err = h(); err != nil {
		return nil, "", false, err
	}
	if verr != nil || hidden(v) {
		return v, "", false, nil
	}
	after, verr := vs.Version(ctx, kind, id)
	if verr != nil || after != before {
		return v, "", false, nil
	}
	match, err := noneMatch(r, before)
	if err != nil {
		return nil, "", false, err
	}
	return v, before, match, nil
}

// hidden reports whether v is a stub the caller may not read in full: its
// version must not be shown, or a watcher would learn when it changes; or
// an answer its version does not cover.
func hidden(v any) bool {
	if sh, ok := v.(shaped); ok {
		v = sh.v
	}
	switch x := v.(type) {
	case upstream.Goal:
		return x.Obfuscated
	case goalRead:
		return x.Obfuscated
	case upstream.Metric:
		// A key result with its tasks embedded changes when a task does,
		// which its version does not follow: no ETag either.
		return x.Obfuscated || x.Tasks != nil
	}
	return false
}
