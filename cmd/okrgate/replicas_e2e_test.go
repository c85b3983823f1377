package main_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/okrgate/okrgate/upstream/backend/sqlstore/sqlstoretest"
)

// TestReplicasOnePostgres runs two okrgate processes on one PostgreSQL
// database and 200 concurrent writers spread over both: check-ins on the
// key results of one deep tree, goal creates under it and moves within it.
// Afterwards every acknowledged write is there (each check-in readable,
// each created goal under the parent of its last acknowledged move) and
// every objective's attainment, aggregates and counts equal a computation
// from scratch over the stored rows. "sigkill" does the same while one of
// the processes is killed with SIGKILL a third of the way in; its writers
// go on through the other process, as behind a load balancer.
func TestReplicasOnePostgres(t *testing.T) {
	// A built binary and a database of its own; mostly waiting on them.
	t.Parallel()
	for _, kill := range []bool{false, true} {
		name := "both"
		if kill {
			name = "sigkill"
		}
		t.Run(name, func(t *testing.T) {
			dsn := sqlstoretest.PostgresURL(t) // skips without OKRGATE_TEST_POSTGRES
			runReplicas(t, dsn, kill)
		})
	}
}

// replicaFlags lift serve's per-process guards, which would otherwise
// answer part of 200 writers from one address with 429 or 503.
var replicaFlags = []string{"--rate-limit", "off", "--max-inflight-writes", "0", "--max-inflight-reads", "0"}

func runReplicas(t *testing.T, dsn string, kill bool) {
	boot := bootstrapDB(t, dsn, "Replicas", "admin@replicas.test")
	a := startServer(t, dsn, replicaFlags...)
	b := startServer(t, dsn, replicaFlags...)
	hc := &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 200}}
	call := func(base, method, path string, body any) (int, map[string]any, error) {
		raw, _ := json.Marshal(body)
		req, err := http.NewRequest(method, base+path, bytes.NewReader(raw))
		if err != nil {
			return 0, nil, err
		}
		req.Header.Set("Authorization", "Bearer "+boot.Token)
		req.Header.Set("service-accountId", boot.AccountID)
		req.Header.Set("Content-Type", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			return 0, nil, err
		}
		defer resp.Body.Close()
		out := map[string]any{}
		data, err := io.ReadAll(resp.Body)
		if err != nil {
			return 0, nil, err
		}
		if len(data) > 0 {
			if err := json.Unmarshal(data, &out); err != nil {
				return resp.StatusCode, nil, fmt.Errorf("%s %s: %q", method, path, data)
			}
		}
		return resp.StatusCode, out, nil
	}
	must := func(method, path string, body any, want int) map[string]any {
		t.Helper()
		code, out, err := call(a.base, method, path, body)
		if err != nil || code != want {
			t.Fatalf("%s %s: %d %v %v", method, path, code, out, err)
		}
		return out
	}

	// The tree: a chain ten objectives deep, two key results on each.
	sess := must("POST", "/api/v1/sessions", map[string]any{"title": "Q1", "start": "2027-01-01", "end": "2027-03-31"}, 201)
	var chain, krs []string
	parent := ""
	modes := []string{"average_kr", "average_children", "average_kr_and_children"}
	for i := range 10 {
		g := must("POST", "/api/v1/goals", map[string]any{"name": fmt.Sprint("level ", i), "sessionId": sess["id"],
			"parentId": parent, "attainmentTypeString": modes[i%3]}, 201)
		parent = g["id"].(string)
		chain = append(chain, parent)
		for k := range 2 {
			m := must("POST", "/api/v1/metrics", map[string]any{"name": fmt.Sprint("kr ", i, k), "goalId": parent,
				"initialValue": 0, "target": 100, "targetOperator": "at_least"}, 201)
			krs = append(krs, m["id"].(string))
		}
	}

	const writers, writes = 200, 3
	var (
		mu       sync.Mutex
		checkins []string
		goalAt   = map[string]string{} // created goal -> parent of its last acknowledged write
		// created goal -> parent of a later move the killed process did not
		// acknowledge: it may have committed before the kill, or not.
		goalMaybe = map[string]string{}
		acked     atomic.Int64
		failed    atomic.Int64 // transport errors (the killed process), not acknowledged
		killed    atomic.Bool
	)
	var killOnce, dumpOnce sync.Once
	var wg sync.WaitGroup
	errs := make(chan error, writers*writes)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 12))
			var mine []string
			for i := range writes {
				base := a.base
				if w%2 == 1 && !killed.Load() {
					base = b.base
				}
				var code int
				var out map[string]any
				var err error
				var moved, to string
				switch op := rng.IntN(10); {
				case op < 6:
					code, out, err = call(base, "POST", "/api/v1/metrics/"+krs[rng.IntN(len(krs))]+"/checkin", map[string]any{"actual": rng.IntN(130)})
					if err == nil && code == 201 {
						mu.Lock()
						checkins = append(checkins, out["id"].(string))
						mu.Unlock()
					}
				case op < 8 || len(mine) == 0:
					to = chain[rng.IntN(len(chain))]
					code, out, err = call(base, "POST", "/api/v1/goals", map[string]any{"name": fmt.Sprint("w", w, "-", i), "sessionId": sess["id"], "parentId": to})
					if err == nil && code == 201 {
						mine = append(mine, out["id"].(string))
						moved = out["id"].(string)
					}
				default:
					moved, to = mine[rng.IntN(len(mine))], chain[rng.IntN(len(chain))]
					code, out, err = call(base, "PATCH", "/api/v1/goals/"+moved, map[string]any{"parentId": to})
				}
				switch {
				case err != nil && base == b.base && kill:
					failed.Add(1) // the killed process
					if moved != "" {
						mu.Lock()
						goalMaybe[moved] = to
						mu.Unlock()
					}
					continue
				case err != nil:
					errs <- err
					if base == a.base {
						dumpOnce.Do(func() { dumpGoroutines(t, a) })
					}
					continue
				case code >= 300:
					errs <- fmt.Errorf("writer %d: status %d: %v", w, code, out)
					continue
				}
				if moved != "" {
					mu.Lock()
					goalAt[moved] = to
					delete(goalMaybe, moved)
					mu.Unlock()
				}
				if n := acked.Add(1); kill && n == writers*writes/3 {
					killOnce.Do(func() {
						killed.Store(true)
						_ = b.cmd.Process.Signal(syscall.SIGKILL)
					})
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if kill {
		select {
		case err := <-b.done:
			var ee interface{ Sys() any }
			if !errors.As(err, &ee) {
				t.Errorf("killed process exited with %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("killed process still running")
		}
	}
	t.Logf("%d writes acknowledged, %d lost with the killed process, %d check-ins, %d goals created",
		acked.Load(), failed.Load(), len(checkins), len(goalAt))
	if acked.Load() < writers*writes/2 {
		t.Fatalf("only %d writes acknowledged", acked.Load())
	}

	for _, id := range checkins {
		must("GET", "/api/v1/metrics/checkin/"+id, nil, 200)
	}
	for id, want := range goalAt {
		g := must("GET", "/api/v1/goals/"+id, nil, 200)
		if maybe, ok := goalMaybe[id]; ok && g["parentId"] == maybe {
			continue // the unacknowledged move that the killed process committed
		}
		if g["parentId"] != want {
			t.Errorf("goal %s under %v, want %s (its last acknowledged write)", id, g["parentId"], want)
		}
	}
	raw := sqlstoretest.OpenRaw(t, dsn)
	if err := sqlstoretest.CheckFigures(context.Background(), raw, boot.AccountID); err != nil {
		t.Fatal(err)
	}
}

// TestBackupPostgresPointsToPgDump: okrgate backup on a PostgreSQL URL makes
// no copy and says which tool does (without connecting anywhere).
func TestBackupPostgresPointsToPgDump(t *testing.T) {
	out, err := exec.Command(binary, "backup", "--db", "postgres://someone:secret@127.0.0.1:1/okrgate", "--to", "x.dump").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "pg_dump") || strings.Contains(string(out), "secret") {
		t.Fatalf("backup on PostgreSQL: %v: %s", err, out)
	}
}

// dumpGoroutines logs the goroutines of s (SIGQUIT makes the Go runtime
// print them and exit): a request the surviving server did not answer in
// time is a hang to find, and its stacks say where.
func dumpGoroutines(t *testing.T, s *server) {
	_ = s.cmd.Process.Signal(syscall.SIGQUIT)
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
	}
	t.Logf("the server that did not answer in time, its log and goroutines:\n%s", s.logs.String())
}
