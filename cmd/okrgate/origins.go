package main

import "strings"

// origins is the --cors-origins list: the origins whose browser pages may
// call the API, by CORS over HTTP (withCORS) and by the origin check of
// websocket upgrades (live.Hub.AllowOrigin) alike. An entry is an origin
// (https://app.example.com), a pattern with one * (https://*.example.com),
// or * for any origin; matching ignores case.
type origins struct {
	any      bool
	exact    []string
	patterns [][2]string // prefix and suffix around the *
}

// parseOrigins reads a comma-separated list.
func parseOrigins(list string) origins {
	var o origins
	for _, e := range strings.Split(list, ",") {
		e = strings.ToLower(strings.TrimSpace(e))
		switch i := strings.IndexByte(e, '*'); {
		case e == "":
		case e == "*":
			o.any = true
		case i >= 0:
			o.patterns = append(o.patterns, [2]string{e[:i], e[i+1:]})
		default:
			o.exact = append(o.exact, e)
		}
	}
	return o
}

// none reports whether the list allows no origin: same-origin use only.
func (o origins) none() bool { return !o.any && len(o.exact) == 0 && len(o.patterns) == 0 }

// allowed reports whether pages of origin may call the API.
func (o origins) allowed(origin string) bool {
	if o.any {
		return true
	}
	origin = strings.ToLower(origin)
	for _, e := range o.exact {
		if e == origin {
			return true
		}
	}
	for _, p := range o.patterns {
		if len(origin) >= len(p[0])+len(p[1]) && strings.HasPrefix(origin, p[0]) && strings.HasSuffix(origin, p[1]) {
			return true
		}
	}
	return false
}
