package upstream

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"sync/atomic"
	"time"
)

// IDSource makes identifiers of 12 bytes, as ObjectIds: a 4-byte
// big-endian Unix time, a 3-byte counter, and 5 random bytes fresh for
// each identifier. They are 24 lowercase hex characters, unique across all
// resource types and roughly ordered by creation time (by time, then
// counter, within a source). The random tail makes an identifier
// unguessable from another: ids made one after the other (an account and
// its first admin) differ in 40 random bits, not by one
// (docs/decisions/security.md, "Identifiers are not guessable").
type IDSource struct {
	counter atomic.Uint32
}

// NewIDSource returns an IDSource whose counter starts at a random value.
func NewIDSource() *IDSource {
	s := &IDSource{}
	var seed [4]byte
	_, _ = rand.Read(seed[:])
	s.counter.Store(binary.BigEndian.Uint32(seed[:]))
	return s
}

// New returns a new identifier.
func (s *IDSource) New() string {
	var b [12]byte
	binary.BigEndian.PutUint32(b[0:4], uint32(time.Now().Unix()))
	c := s.counter.Add(1)
	b[4], b[5], b[6] = byte(c>>16), byte(c>>8), byte(c)
	_, _ = rand.Read(b[7:12])
	return hex.EncodeToString(b[:])
}

// ValidID reports whether id has the identifier layout: 24 lowercase hex characters.
func ValidID(id string) bool {
	if len(id) != 24 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
