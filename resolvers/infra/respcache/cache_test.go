package respcache_test

import (
	"bytes"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/okrgate/okrgate/resolvers/infra/respcache"
)

func key(class string, version int64, req string) respcache.Key {
	return respcache.Key{Scope: respcache.Scope{Account: "a", Class: class, Version: version}, Request: respcache.RequestDigest(req, "", nil)}
}

// TestCacheBound: the bytes kept never exceed the bound; the least
// recently used answers go first, each eviction counted; an answer larger
// than the bound is not kept.
func TestCacheBound(t *testing.T) {
	reg := prometheus.NewRegistry()
	c, err := respcache.New(respcache.Config{MaxBytes: 10_000, Registerer: reg})
	if err != nil {
		t.Fatal(err)
	}
	body := bytes.Repeat([]byte("x"), 3_000) // three fit
	for i := range 20 {
		c.Do(key("c", 1, fmt.Sprint(i)), func(int64) (respcache.Answer, respcache.Sharing) {
			return respcache.Answer{Parts: [][]byte{body}}, respcache.Keep
		})
		if c.Bytes() > 10_000 {
			t.Fatalf("after %d answers the cache holds %d bytes, over its bound", i+1, c.Bytes())
		}
		if i == 17 { // touch the 16th: it outlives the 17th
			if _, ok := c.Get(key("c", 1, "16")); !ok {
				t.Fatal("the last answers are not kept")
			}
		}
	}
	if _, ok := c.Get(key("c", 1, "0")); ok {
		t.Error("the oldest answer is still kept")
	}
	if _, ok := c.Get(key("c", 1, "16")); !ok {
		t.Error("the recently used answer was evicted before older ones")
	}
	if _, ok := c.Get(key("c", 1, "17")); ok {
		t.Error("the least recently used answer was kept over a recently used one")
	}
	s := c.Stats()
	if s.Evictions == 0 || s.Misses != 20 || int64(c.Len())+s.Evictions != 20 {
		t.Errorf("stats %+v with %d kept: want 20 misses, the rest evicted", s, c.Len())
	}
	c.Do(key("c", 1, "huge"), func(int64) (respcache.Answer, respcache.Sharing) {
		return respcache.Answer{Parts: [][]byte{bytes.Repeat([]byte("x"), 20_000)}}, respcache.Keep
	})
	if _, ok := c.Get(key("c", 1, "huge")); ok || c.Bytes() > 10_000 {
		t.Errorf("an answer over the bound was kept (%d bytes held)", c.Bytes())
	}
	mfs, err := reg.Gather()
	if err != nil || len(mfs) != 9 {
		t.Errorf("registered %d metric families (%v), want 9", len(mfs), err)
	}
}

// TestCacheKeepsLatestVersion: an account keeps answers of its latest
// version only: keeping one of a later version drops those of earlier
// versions (every class and request of the account, counted as
// superseded), an answer of an earlier version than those kept is not
// kept, and other accounts' answers stay.
func TestCacheKeepsLatestVersion(t *testing.T) {
	c, err := respcache.New(respcache.Config{})
	if err != nil {
		t.Fatal(err)
	}
	keep := func(k respcache.Key) {
		c.Do(k, func(int64) (respcache.Answer, respcache.Sharing) {
			return respcache.Answer{Parts: [][]byte{[]byte("x")}}, respcache.Keep
		})
	}
	other := respcache.Key{Scope: respcache.Scope{Account: "b", Class: "c", Version: 1}, Request: "q"}
	keep(other)
	keep(key("c", 5, "q"))
	keep(key("d", 5, "q"))
	keep(key("c", 5, "r"))
	if c.Len() != 4 {
		t.Fatalf("%d answers kept, want 4", c.Len())
	}
	keep(key("c", 6, "q"))
	for _, k := range []respcache.Key{key("c", 5, "q"), key("d", 5, "q"), key("c", 5, "r")} {
		if _, ok := c.Get(k); ok {
			t.Errorf("%+v is kept after an answer of version 6", k.Scope)
		}
	}
	for _, k := range []respcache.Key{key("c", 6, "q"), other} {
		if _, ok := c.Get(k); !ok {
			t.Errorf("%+v is not kept", k.Scope)
		}
	}
	keep(key("d", 5, "q"))
	if _, ok := c.Get(key("d", 5, "q")); ok {
		t.Error("an answer of version 5 was kept beside one of version 6")
	}
	if s := c.Stats(); s.Superseded != 3 || s.Evictions != 0 {
		t.Errorf("stats %+v: want 3 superseded, no eviction", s)
	}
	if want := int64(2); int64(c.Len()) != want {
		t.Errorf("%d answers kept, want %d", c.Len(), want)
	}
}

// TestCacheSupersededAtMiss: a request of a later version that misses
// drops the account's earlier answers before its execution runs, not when
// its answer is kept; an earlier version's answer computed afterwards is
// not kept; other accounts keep theirs.
func TestCacheSupersededAtMiss(t *testing.T) {
	c, err := respcache.New(respcache.Config{})
	if err != nil {
		t.Fatal(err)
	}
	keep := func(k respcache.Key) {
		c.Do(k, func(int64) (respcache.Answer, respcache.Sharing) {
			return respcache.Answer{Parts: [][]byte{[]byte("x")}}, respcache.Keep
		})
	}
	other := respcache.Key{Scope: respcache.Scope{Account: "b", Class: "c", Version: 1}, Request: "q"}
	keep(other)
	keep(key("c", 5, "q"))
	keep(key("d", 5, "q"))
	var during struct {
		len      int
		five     bool
		other    bool
		computed bool
	}
	c.Do(key("c", 6, "q"), func(int64) (respcache.Answer, respcache.Sharing) {
		during.computed = true
		during.len = c.Len()
		_, during.five = c.Get(key("d", 5, "q"))
		_, during.other = c.Get(other)
		return respcache.Answer{Parts: [][]byte{[]byte("y")}}, respcache.Keep
	})
	if !during.computed || during.len != 1 || during.five || !during.other {
		t.Errorf("while version 6 executed: %d answers kept, version 5's kept %v, the other account's %v; want 1, false, true",
			during.len, during.five, during.other)
	}
	keep(key("c", 5, "r"))
	if _, ok := c.Get(key("c", 5, "r")); ok {
		t.Error("an answer of version 5 was kept after a request of version 6")
	}
	if s := c.Stats(); s.Superseded != 2 {
		t.Errorf("stats %+v: want 2 superseded", s)
	}
}

// TestCacheSingleFlight: calls for one key at once compute it once; keys
// of other classes or versions compute their own; an answer that may not
// be shared is given to no one but its computer; one that may be shared but
// not kept is given to the calls at once and not kept.
func TestCacheSingleFlight(t *testing.T) {
	c, err := respcache.New(respcache.Config{})
	if err != nil {
		t.Fatal(err)
	}
	var computed atomic.Int64
	release := make(chan struct{})
	slow := func(body string, sharing respcache.Sharing) respcache.Compute {
		return func(int64) (respcache.Answer, respcache.Sharing) {
			computed.Add(1)
			<-release
			return respcache.Answer{Parts: [][]byte{[]byte(body)}}, sharing
		}
	}
	const n = 8
	var wg sync.WaitGroup
	var started sync.WaitGroup
	outcomes := make([]respcache.Outcome, n)
	for i := range n {
		wg.Add(1)
		started.Add(1)
		go func() {
			defer wg.Done()
			started.Done()
			_, outcomes[i] = c.Do(key("c", 1, "q"), slow("one", respcache.Keep))
		}()
	}
	started.Wait()
	close(release)
	wg.Wait()
	if got := computed.Load(); got != 1 {
		t.Errorf("%d calls for one key computed it %d times, want 1", n, got)
	}
	for i, o := range outcomes {
		if o == respcache.Unshared {
			t.Errorf("call %d: unshared", i)
		}
	}
	for _, k := range []respcache.Key{key("d", 1, "q"), key("c", 2, "q")} {
		a, o := c.Do(k, slow("other", respcache.Keep))
		if o != respcache.Computed || string(bytes.Join(a.Parts, nil)) != "other" {
			t.Errorf("%+v: outcome %v body %q, want its own computation", k.Scope, o, a.Parts)
		}
	}
	if a, o := c.Do(key("c", 3, "q"), slow("mine", respcache.Own)); o != respcache.Computed || string(bytes.Join(a.Parts, nil)) != "mine" {
		t.Errorf("an unshared computation: outcome %v body %q", o, a.Parts)
	}
	if _, ok := c.Get(key("c", 3, "q")); ok {
		t.Error("an answer that may not be shared was kept")
	}
	// Shared but not kept: every call at once gets it (computed or
	// joined, never unshared), and a later call computes again.
	answers := make([]respcache.Answer, n)
	for i := range n {
		wg.Go(func() { answers[i], outcomes[i] = c.Do(key("c", 4, "q"), slow("shared", respcache.Share)) })
	}
	wg.Wait()
	for i, o := range outcomes {
		if o != respcache.Computed && o != respcache.Joined || string(bytes.Join(answers[i].Parts, nil)) != "shared" {
			t.Errorf("call %d of a shared answer: outcome %v body %q", i, o, answers[i].Parts)
		}
	}
	if _, ok := c.Get(key("c", 4, "q")); ok {
		t.Error("an answer that may be shared but not kept was kept")
	}
}
