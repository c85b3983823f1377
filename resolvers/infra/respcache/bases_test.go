package respcache_test

import (
	"testing"

	"github.com/okrgate/okrgate/resolvers/infra/respcache"
)

// TestCacheBases: a lane's base is given to one execution (TakeBase
// forgets it), whatever the version asked; lanes of other classes or
// requests have their own; the bases stay within half the cache's bound,
// the least recently put dropped first.
func TestCacheBases(t *testing.T) {
	c, err := respcache.New(respcache.Config{MaxBytes: 10_000})
	if err != nil {
		t.Fatal(err)
	}
	c.PutBase(key("c", 1, "tree"), respcache.Base{Version: 1, Kept: "one", Size: 1000})
	if _, ok := c.TakeBase(key("d", 2, "tree")); ok {
		t.Fatal("another class's lane took the base")
	}
	if _, ok := c.TakeBase(key("c", 2, "other")); ok {
		t.Fatal("another request's lane took the base")
	}
	b, ok := c.TakeBase(key("c", 5, "tree"))
	if !ok || b.Kept != "one" || b.Version != 1 {
		t.Fatalf("TakeBase = %+v, %v", b, ok)
	}
	if _, ok := c.TakeBase(key("c", 5, "tree")); ok || c.BaseBytes() != 0 {
		t.Fatalf("a base was taken twice (%d bytes held)", c.BaseBytes())
	}
	for i, req := range []string{"a", "b", "c", "d", "e", "f"} {
		c.PutBase(key("c", int64(i), req), respcache.Base{Version: int64(i), Kept: req, Size: 1000})
	}
	if n := c.BaseBytes(); n > 5_000 {
		t.Fatalf("bases hold %d bytes, over half the bound", n)
	}
	if _, ok := c.TakeBase(key("c", 9, "a")); ok {
		t.Error("the least recently put base was kept over the bound")
	}
	if b, ok := c.TakeBase(key("c", 9, "f")); !ok || b.Kept != "f" {
		t.Error("the most recently put base was dropped")
	}
	c.PutBase(key("c", 1, "huge"), respcache.Base{Version: 1, Kept: "huge", Size: 6_000})
	if _, ok := c.TakeBase(key("c", 1, "huge")); ok {
		t.Error("a base over half the bound was kept")
	}
}
