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
	sf.detach(unsafe.Pointer(&got))
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
		stringFieldsOf(reflect.TypeFor[item]()).detach(unsafe.Pointer(&it))
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
