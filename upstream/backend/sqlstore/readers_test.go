package sqlstore

import (
	"context"
	"path/filepath"
	"testing"
)

// TestReadersCacheAndQueryOnly checks the pragmas every reader connection
// runs with, on several connections held at once: query-only, and a page
// cache of readerCacheKiB.
func TestReadersCacheAndQueryOnly(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "okr.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := range 3 {
		c, err := s.r.Conn(ctx) // held: the next is another connection
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		var cache, queryOnly int
		if err := c.QueryRowContext(ctx, "PRAGMA cache_size").Scan(&cache); err != nil {
			t.Fatal(err)
		}
		if err := c.QueryRowContext(ctx, "PRAGMA query_only").Scan(&queryOnly); err != nil {
			t.Fatal(err)
		}
		if cache != -readerCacheKiB || queryOnly != 1 {
			t.Errorf("reader %d: cache_size %d, query_only %d; want %d, 1", i, cache, queryOnly, -readerCacheKiB)
		}
	}
	var cache int
	if err := s.w.QueryRowContext(ctx, "PRAGMA cache_size").Scan(&cache); err != nil {
		t.Fatal(err)
	}
	if cache == -readerCacheKiB {
		t.Errorf("the writer's cache_size is the readers' %d: it keeps SQLite's default", cache)
	}
}
