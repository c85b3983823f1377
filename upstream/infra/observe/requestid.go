package observe

import (
	"crypto/rand"
	"encoding/hex"
)

// ValidRequestID reports whether an inbound X-Request-Id is kept: 1 to 64
// characters of [A-Za-z0-9_-], safe to log and to echo. Any other value is
// replaced by a new id.
func ValidRequestID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// NewRequestID returns a new request id: 16 random bytes as 32 lowercase
// hex characters, the one format of the server's own ids.
func NewRequestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
