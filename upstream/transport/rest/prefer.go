package rest

import (
	"net/http"
	"strings"
)

// Prefer: return=representation (RFC 7240 §4.2) on the writes whose
// answer has no body: updating a badge and rejecting a badge assignment
// (204), and tagging a goal that already carries the tag (304). With the
// preference, they answer 200 with the item as stored, and
// Preference-Applied says so; a gateway (upstream/backend/client) then needs no
// second call to read it. A client that does not send the preference, or
// a server that does not know it (RFC 7240 lets it ignore preferences),
// keeps the 204 and 304 answers.

// representationRoutes are the operations that honour the preference
// (their OpenAPI entries document the header and the 200).
var representationRoutes = map[string]bool{
	"PATCH /api/v1/badges/{id}":                 true,
	"DELETE /api/v1/badges/approve/{id}":        true,
	"POST /api/v2/integrations/goals/{id}/tags": true,
}

// prefersRepresentation reports whether r's Prefer header asks for
// return=representation: preferences are comma-separated, each a token,
// optionally "=value" (quoted or not) and ";parameters".
func prefersRepresentation(r *http.Request) bool {
	for _, h := range r.Header.Values("Prefer") {
		for _, pref := range strings.Split(h, ",") {
			pref, _, _ = strings.Cut(pref, ";")
			name, value, _ := strings.Cut(pref, "=")
			if strings.EqualFold(strings.TrimSpace(name), "return") &&
				strings.EqualFold(strings.Trim(strings.TrimSpace(value), `"`), "representation") {
				return true
			}
		}
	}
	return false
}

// represented answers v with 200 and Preference-Applied.
func represented(w http.ResponseWriter, v any) withStatus {
	w.Header().Set("Preference-Applied", "return=representation")
	return withStatus{status: http.StatusOK, v: v}
}
