package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/okrgate/okrgate/cmd/okrgate/internal/binary"
)

// gatewayTable measures the tree query through a gateway (serve --upstream)
// in front of a store server, side by side with the store server itself:
// the rounds alternate between the two, on the same data and machine, and
// the table reports the gateway's latency as a ratio of the direct one.
func gatewayTable(c config) error {
	fmt.Println("| objectives | session goals | response | direct min | direct median | gateway min | gateway median | gateway / direct (median) | gateway / direct (min) |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|")
	for _, n := range c.goals {
		direct, gw, goals, size, err := measureGateway(c, n)
		if err != nil {
			return err
		}
		dm, gm := direct[len(direct)/2], gw[len(gw)/2]
		fmt.Printf("| %d | %d | %.1f MiB | %s | %s | %s | %s | %.2f | %.2f |\n", n, goals, float64(size)/(1<<20),
			ms(direct[0]), ms(dm), ms(gw[0]), ms(gm), float64(gm)/float64(dm), float64(gw[0])/float64(direct[0]))
	}
	return nil
}

func measureGateway(c config, n int) (direct, gw []time.Duration, goals, size int, err error) {
	dir, err := os.MkdirTemp("", "treebench")
	if err != nil {
		return nil, nil, 0, 0, err
	}
	defer os.RemoveAll(dir)
	db := filepath.Join(dir, "okr.db")
	boot, err := binary.Seed(c.bin, db, n, 1, os.Stderr)
	if err != nil {
		return nil, nil, 0, 0, err
	}
	// The store server sheds no reads, so that the gateway's concurrent
	// loads are queued rather than answered 503 and retried.
	srv, err := binary.Serve(c.bin, db, "--max-inflight-reads", "0")
	if err != nil {
		return nil, nil, 0, 0, err
	}
	defer srv.Stop()
	gwSrv, err := binary.Serve(c.bin, filepath.Join(dir, "unused.db"), "--upstream", srv.Base)
	if err != nil {
		return nil, nil, 0, 0, err
	}
	defer gwSrv.Stop()
	cl := &client{base: srv.Base, token: boot.Token, account: boot.AccountID}
	sid, ids, err := cl.largestSession()
	if err != nil {
		return nil, nil, 0, 0, err
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
			return nil, nil, 0, 0, err
		}
	}
	if !bytes.Equal(first[0], first[1]) {
		return nil, nil, 0, 0, fmt.Errorf("the gateway answered other bytes than the store server")
	}
	for range c.rounds {
		for i, dst := range []*[]time.Duration{&direct, &gw} {
			d, err := tree(i)
			if err != nil {
				return nil, nil, 0, 0, err
			}
			*dst = append(*dst, d)
		}
	}
	slices.Sort(direct)
	slices.Sort(gw)
	return direct, gw, len(ids), len(first[0]), nil
}
