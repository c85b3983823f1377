package upstream

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
)

// Versions is implemented by backends that keep a version of each stored
// resource, served as its HTTP entity tag. The kinds are VersionedKinds.
type Versions interface {
	// Version returns the entity tag of the resource kind/id of the
	// caller's account, or a not_found error. It does not authorize: call
	// it before the read that does, so that a write in between makes the
	// tag older than the answer (a spurious 412 later), never newer.
	Version(ctx context.Context, kind, id string) (string, error)
	// VersionsOf returns the entity tags of the resources ids of kind that
	// exist in the caller's account (the others have no entry): what
	// Version returns for each, in one read where the backend can (the
	// etag field of a level of GraphQL objects). It does not authorize.
	VersionsOf(ctx context.Context, kind string, ids []string) (map[string]string, error)
}

// The resource kinds that carry versions: the Kind of their resource
// (Resources); the SQL store reads a kind's versions from its resource's
// first table.
const (
	KindGoal    = "goal"
	KindMetric  = "metric"
	KindTask    = "task"
	KindSession = "session"
)

// ETagOf returns the strong entity tag of a version's stored bytes: the
// first 128 bits of their SHA-256, in hex, quoted as HTTP wants.
func ETagOf(stored []byte) string {
	sum := sha256.Sum256(stored)
	return `"` + hex.EncodeToString(sum[:16]) + `"`
}

// Precondition is a conditional write: the version the client last saw
// (If-Match) in, the version the write produced out. The HTTP layer passes
// one in the WriteOptions of a write on one resource (API.Writing); the
// backend compares inside the write's transaction, so that no concurrent
// writer can slip in between check and write, and records the new version
// before it commits.
type Precondition struct {
	Kind, ID string
	// IfMatch lists the entity tags of the If-Match header; "*" matches any
	// existing version. Empty means unconditional.
	IfMatch []string
	// ETag is set by the backend to the version the write left (empty after
	// a delete).
	ETag string
	// Done is set by the backend once a write committed under the
	// precondition: later writes of the same request are not conditional.
	Done bool
}

// Check compares the stored version etag ("" when the resource does not
// exist) with IfMatch: nil when there is no If-Match or one of its tags
// matches (strong comparison, RFC 9110 §13.1.1), else a
// precondition_failed error.
func (p *Precondition) Check(etag string) error {
	if len(p.IfMatch) == 0 {
		return nil
	}
	for _, t := range p.IfMatch {
		if etag != "" && (t == "*" || t == etag) {
			return nil
		}
	}
	return Errorf(CodePreconditionFailed, "the %s has changed since the version named in If-Match; read it again and retry", p.Kind)
}
