package apitest

import (
	"testing"

	"github.com/okrgate/okrgate/upstream"
)

// testConditionalWrites: for an implementation with versions
// (upstream.Versions), a write under a precondition (the view
// API.Writing returns for WriteOptions.Precondition, as the REST facade
// binds the If-Match header) with
// a stale entity tag fails with precondition_failed and writes nothing;
// with the current tag it writes, records the version it left (the one
// Version then answers) and marks the precondition done; a delete with a
// stale tag fails the same way.
func testConditionalWrites(t *testing.T, f *fixture) {
	vs := f.api
	s := f.session(t, "Q1")
	g := f.goal(t, upstream.GoalInput{Name: "g", SessionID: s.ID})
	v1, err := vs.Version(f.admin, upstream.KindGoal, g.ID)
	if err != nil || v1 == "" {
		t.Fatalf("Version = %q, %v", v1, err)
	}
	if again, err := vs.Version(f.admin, upstream.KindGoal, g.ID); err != nil || again != v1 {
		t.Errorf("Version of an unchanged goal: %q then %q, %v", v1, again, err)
	}
	_, err = vs.Version(f.admin, upstream.KindGoal, unknownID())
	wantCode(t, "Version of an unknown goal", err, upstream.CodeNotFound)

	cond := func(tags ...string) *upstream.Precondition {
		return &upstream.Precondition{Kind: upstream.KindGoal, ID: g.ID, IfMatch: tags}
	}
	stale := cond(`"00000000000000000000000000000000"`)
	_, err = f.api.Writing(upstream.WriteOptions{Precondition: stale}).UpdateGoal(f.admin, g.ID, upstream.GoalPatch{Name: str("g2")})
	wantCode(t, "UpdateGoal with a stale If-Match", err, upstream.CodePreconditionFailed)
	if got := f.getGoal(t, g.ID); got.Name != "g" {
		t.Errorf("a refused conditional write changed the goal: %q", got.Name)
	}

	p := cond(v1)
	up, err := f.api.Writing(upstream.WriteOptions{Precondition: p}).UpdateGoal(f.admin, g.ID, upstream.GoalPatch{Name: str("g2")})
	if err != nil || up.Name != "g2" {
		t.Fatalf("UpdateGoal with the current If-Match = %+v, %v", up, err)
	}
	if !p.Done || p.ETag == "" || p.ETag == v1 {
		t.Errorf("after the write: Done %v, ETag %q (was %q)", p.Done, p.ETag, v1)
	}
	if now, err := vs.Version(f.admin, upstream.KindGoal, g.ID); err != nil || now != p.ETag {
		t.Errorf("Version after the write = %q, %v; the write answered %q", now, err, p.ETag)
	}
	err = f.api.Writing(upstream.WriteOptions{Precondition: cond(v1)}).DeleteGoal(f.admin, g.ID)
	wantCode(t, "DeleteGoal with a stale If-Match", err, upstream.CodePreconditionFailed)
	if err := f.api.Writing(upstream.WriteOptions{Precondition: cond("*")}).DeleteGoal(f.admin, g.ID); err != nil {
		t.Errorf("DeleteGoal with If-Match *: %v", err)
	}
	_, err = f.api.GetGoal(f.admin, g.ID)
	wantCode(t, "GetGoal after the delete", err, upstream.CodeNotFound)
}
