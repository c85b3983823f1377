package upstream

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"sync/atomic"
	"time"
)

// IDSource makes identifiers in the ObjectId layout: a 4-byte big-endian
// Unix time, 5 random bytes fixed per source, and a 3-byte counter. They are
// 24 lowercase hex characters, unique across all resource types and roughly
// ordered by creation time.
type IDSource struct {
	random  [5]byte
	counter atomic.Uint32
}

// NewIDSource returns an IDSource with fresh random bytes.
func NewIDSource() *IDSource {
	s := &IDSource{}
	var seed [4]byte
	_, _ = rand.Read(s.random[:])
	_, _ = rand.Read(seed[:])
	s.counter.Store(binary.BigEndian.Uint32(seed[:]))
	return s
}

// New returns a new identifier.
func (s *IDSource) New() string {
	var b [12]byte
	binary.BigEndian.PutUint32(b[0:4], uint32(time.Now().Unix()))
	copy(b[4:9], s.random[:])
	c := s.counter.Add(1)
	b[9], b[10], b[11] = byte(c>>16), byte(c>>8), byte(c)
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
