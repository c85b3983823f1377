package sqlstore

import (
	"reflect"
	"runtime"
	"testing"
	"time"
	"unsafe"

	fastjson "github.com/goccy/go-json"

	"github.com/okrgate/okrgate/upstream"
)

// TestDetachKeepsValues: a document decoded and detached equals the same
// document decoded by itself, strings and lists of strings included.
func TestDetachKeepsValues(t *testing.T) {
	doc := []byte(`{"id":"g1","accountId":"a1","sessionId":"s1","parentId":"","ownerIds":["u1","u2",""],"name":"Grow \"churn\" é",
		"private":true,"attainment":0.5}`)
	var want, got upstream.Goal
	if err := fastjson.Unmarshal(doc, &want); err != nil {
		t.Fatal(err)
	}
	if err := fastjson.Unmarshal(doc, &got); err != nil {
		t.Fatal(err)
	}
	sf := stringFieldsOf(reflect.TypeFor[upstream.Goal]())
	if len(sf.strs) == 0 || len(sf.lists) == 0 {
		t.Fatalf("no string fields found in upstream.Goal: %+v", sf)
	}
	sf.detach(unsafe.Pointer(&got), nil)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("detached %+v\nwant %+v", got, want)
	}
}

// TestDetachReleasesTheSource: strings that pointed into a buffer no longer
// keep it alive once detached.
func TestDetachReleasesTheSource(t *testing.T) {
	type item struct {
		ID    string
		Inner struct{ Name string }
		Tags  []string
		Empty string
	}
	freed := make(chan struct{})
	var it item
	func() {
		src := make([]byte, 1<<20)
		copy(src, "g1nameab")
		runtime.SetFinalizer(&src[0], func(*byte) { close(freed) })
		it.ID = unsafe.String(&src[0], 2)
		it.Inner.Name = unsafe.String(&src[2], 4)
		it.Tags = []string{unsafe.String(&src[6], 1), unsafe.String(&src[7], 1)}
		it.Empty = unsafe.String(&src[8], 0)
		stringFieldsOf(reflect.TypeFor[item]()).detach(unsafe.Pointer(&it), nil)
	}()
	deadline := time.Now().Add(10 * time.Second) // bounds a failure; asserts no timing
	for {
		runtime.GC()
		select {
		case <-freed:
			if it.ID != "g1" || it.Inner.Name != "name" || it.Tags[0] != "a" || it.Tags[1] != "b" || it.Empty != "" {
				t.Errorf("detached item %+v", it)
			}
			return
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("the source buffer is still reachable after detach")
		}
	}
}

// TestDetachSharesThePreviousItemsStrings: an item detached after another
// shares the other's bytes for the strings equal to its own in the same
// field (and the same element of a list), copies the rest, and keeps every
// value; the decoder's copies of both rows are garbage afterwards.
func TestDetachSharesThePreviousItemsStrings(t *testing.T) {
	docs := [][]byte{
		[]byte(`{"id":"m1","accountId":"acct","goalId":"g1","sessionId":"s1","ownerIds":["u1","u2"],"name":"first"}`),
		[]byte(`{"id":"m2","accountId":"acct","goalId":"g1","sessionId":"s2","ownerIds":["u1","u3","u4"],"name":"first"}`),
	}
	sf := stringFieldsOf(reflect.TypeFor[upstream.Metric]())
	var want, got [2]upstream.Metric
	for i, doc := range docs {
		if err := fastjson.Unmarshal(doc, &want[i]); err != nil {
			t.Fatal(err)
		}
		if err := fastjson.Unmarshal(doc, &got[i]); err != nil {
			t.Fatal(err)
		}
	}
	sf.detach(unsafe.Pointer(&got[0]), nil)
	sf.detach(unsafe.Pointer(&got[1]), unsafe.Pointer(&got[0]))
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("detached %+v\nwant %+v", got, want)
	}
	same := func(a, b string) bool { return unsafe.StringData(a) == unsafe.StringData(b) }
	a, b := got[0], got[1]
	for _, f := range []struct {
		name  string
		a, b  string
		share bool
	}{
		{"accountId", a.AccountID, b.AccountID, true},
		{"goalId", a.GoalID, b.GoalID, true},
		{"name", a.Name, b.Name, true},
		{"ownerIds[0]", a.OwnerIDs[0], b.OwnerIDs[0], true},
		{"id", a.ID, b.ID, false},
		{"sessionId", a.SessionID, b.SessionID, false},
		{"ownerIds[1]", a.OwnerIDs[1], b.OwnerIDs[1], false},
	} {
		if same(f.a, f.b) != f.share {
			t.Errorf("%s: %q and %q share bytes: %v, want %v", f.name, f.a, f.b, !f.share, f.share)
		}
	}
	// The second item's own allocation holds its unshared strings alone,
	// one after the other: id, sessionId, then the unshared owners.
	at := func(s string) uintptr { return uintptr(unsafe.Pointer(unsafe.StringData(s))) }
	base := at(b.ID)
	for k, s := range []string{b.ID, b.SessionID, b.OwnerIDs[1], b.OwnerIDs[2]} {
		if at(s) != base+uintptr(2*k) {
			t.Errorf("unshared string %q is not at offset %d of the item's own bytes", s, 2*k)
		}
	}
}
