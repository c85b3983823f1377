package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/okrgate/okrgate/cmd/okrgate/internal/binary"
)

// gatewayTable measures the tree query through a gateway (serve --upstream)
// in front of a store server, side by side with the store server itself:
// the rounds alternate between the two, on the same data and machine, and
// the table reports the gateway's latency as a ratio of the direct one.
func gatewayTable(c config) error {
	fmt.Println("| objectives | session goals | response | direct min | direct median | gateway min | gateway median | gateway / direct (median) | gateway / direct (min) | store CPU per tree: direct | store CPU per tree: via gateway |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|")
	for _, n := range c.goals {
		m, err := measureGateway(c, n)
		if err != nil {
			return err
		}
		direct, gw := m.direct, m.gw
		dm, gm := direct[len(direct)/2], gw[len(gw)/2]
		fmt.Printf("| %d | %d | %.1f MiB | %s | %s | %s | %s | %.2f | %.2f | %s | %s |\n", n, m.goals, float64(m.size)/(1<<20),
			ms(direct[0]), ms(dm), ms(gw[0]), ms(gm), float64(gm)/float64(dm), float64(gw[0])/float64(direct[0]),
			ms(m.storeCPU[0]/time.Duration(c.rounds)), ms(m.storeCPU[1]/time.Duration(c.rounds)))
	}
	return nil
}

// gatewayRun is what measureGateway measured: the sorted latencies of the
// direct and the gateway rounds, and the store server's CPU time (user and
// system, /proc/PID/stat) spent in each kind of round, which the machine's
// load disturbs far less than latency.
type gatewayRun struct {
	direct, gw  []time.Duration
	storeCPU    [2]time.Duration
	goals, size int
}

// cpuTime is the CPU time (user + system) process pid has used, from
// /proc/PID/stat in clock ticks of 1/100 s (USER_HZ on Linux).
func cpuTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// Fields after the command name (which may hold spaces, in parentheses):
	// state is field 3, utime 14 and stime 15.
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("short /proc/%d/stat", pid)
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	k, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: utime %q stime %q", pid, f[11], f[12])
	}
	return time.Duration(u+k) * 10 * time.Millisecond, nil
}

func measureGateway(c config, n int) (run gatewayRun, err error) {
	var direct, gw []time.Duration
	var goals, size int
	dir, err := os.MkdirTemp("", "treebench")
	if err != nil {
		return run, err
	}
	defer os.RemoveAll(dir)
	db := filepath.Join(dir, "okr.db")
	boot, err := binary.Seed(c.bin, db, n, 1, os.Stderr)
	if err != nil {
		return run, err
	}
	// The store server sheds no reads, so that the gateway's concurrent
	// loads are queued rather than answered 503 and retried.
	srv, err := binary.Serve(c.bin, db, "--max-inflight-reads", "0")
	if err != nil {
		return run, err
	}
	defer srv.Stop()
	gwSrv, err := binary.Serve(c.bin, filepath.Join(dir, "unused.db"), "--upstream", srv.Base)
	if err != nil {
		return run, err
	}
	defer gwSrv.Stop()
	cl := &client{base: srv.Base, token: boot.Token, account: boot.AccountID}
	sid, ids, err := cl.largestSession()
	if err != nil {
		return run, err
	}
	body, _ := json.Marshal(map[string]any{"query": treeQuery, "variables": map[string]any{"id": sid}})
	clients := []*client{cl, {base: gwSrv.Base, token: boot.Token, account: boot.AccountID}}
	var first [2][]byte
	tree := func(i int) (time.Duration, error) {
		t0 := time.Now()
		resp, err := clients[i].do(http.MethodPost, "/graphql", body)
		d := time.Since(t0)
		if err != nil {
			return 0, fmt.Errorf("tree: %w", err)
		}
		if bytes.Contains(resp, []byte(`"errors"`)) {
			return 0, fmt.Errorf("tree: %.300s", resp)
		}
		if first[i] == nil {
			first[i] = resp
		}
		return d, nil
	}
	for i := range 2 { // warm-up: connections, caches, the gateway's token cache
		if _, err := tree(i); err != nil {
			return run, err
		}
	}
	if !bytes.Equal(first[0], first[1]) {
		return run, fmt.Errorf("the gateway answered other bytes than the store server")
	}
	for range c.rounds {
		for i, dst := range []*[]time.Duration{&direct, &gw} {
			cpu0, err := cpuTime(srv.Pid())
			if err != nil {
				return run, err
			}
			d, err := tree(i)
			if err != nil {
				return run, err
			}
			cpu1, err := cpuTime(srv.Pid())
			if err != nil {
				return run, err
			}
			run.storeCPU[i] += cpu1 - cpu0
			*dst = append(*dst, d)
		}
	}
	slices.Sort(direct)
	slices.Sort(gw)
	goals, size = len(ids), len(first[0])
	run.direct, run.gw, run.goals, run.size = direct, gw, goals, size
	return run, nil
}
