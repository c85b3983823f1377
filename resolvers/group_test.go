package resolvers

import (
	"reflect"
	"testing"
)

// TestGroupInPlace: items with one key each are grouped by key in place,
// each key's items in their order, items of unwanted or no key dropped,
// and an append to one key's items does not overwrite the next key's; an
// item with several keys leaves the items as they were.
func TestGroupInPlace(t *testing.T) {
	type item struct{ id, key string }
	keyOf := func(it *item, dst []string) []string {
		if it.key == "" {
			return dst
		}
		if it.key == "x,y" {
			return append(dst, "x", "y")
		}
		return append(dst, it.key)
	}
	items := []item{{"1", "b"}, {"2", "a"}, {"3", "z"}, {"4", "b"}, {"5", ""}, {"6", "a"}, {"7", "b"}, {"8", "c"}}
	want := map[string]bool{"a": true, "b": true, "c": true, "d": true}
	out := map[string][]item{}
	if !groupInPlace(items, want, keyOf, out) {
		t.Fatal("single-key items not grouped")
	}
	exp := map[string][]item{
		"a": {{"2", "a"}, {"6", "a"}},
		"b": {{"1", "b"}, {"4", "b"}, {"7", "b"}},
		"c": {{"8", "c"}},
	}
	if !reflect.DeepEqual(out, exp) {
		t.Fatalf("grouped %v, want %v", out, exp)
	}
	_ = append(out["b"], item{"9", "b"})
	if !reflect.DeepEqual(out["c"], exp["c"]) {
		t.Errorf("an append to b's items overwrote c's: %v", out["c"])
	}

	multi := []item{{"1", "b"}, {"2", "x,y"}, {"3", "a"}}
	before := append([]item(nil), multi...)
	if groupInPlace(multi, want, keyOf, map[string][]item{}) {
		t.Fatal("an item with two keys was grouped in place")
	}
	if !reflect.DeepEqual(multi, before) {
		t.Errorf("items moved: %v, were %v", multi, before)
	}
}
