// Command treebench measures the nested OKR tree on a built okrgate binary
// at several account sizes: for each size it seeds a fresh database
// (okrgate bootstrap and okrgate seed), starts okrgate serve on 127.0.0.1,
// and measures the GraphQL tree of the account's largest session (latency,
// response size, and the server's peak resident memory from
// /proc/PID/status VmHWM) and single-goal REST reads. docs/benchmarks/README.md
// has its figures.
//
//	go build -o /tmp/okrgate ./cmd/okrgate
//	go run ./cmd/okrgate/internal/treebench --bin /tmp/okrgate --goals 1000,10000
//
// Timings are measured here, never asserted in a go test. Linux only (it
// reads /proc).
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/okrgate/okrgate/cmd/okrgate/internal/binary"
)

// treeQuery is the tree of one session: root goals and two levels of
// children, each with owners, tasks, key results, their owners, check-ins
// and tasks (the query of resolvers' tests and benchmarks).
const treeQuery = `query Tree($id: ID!) {
  session(id: $id) {
    id
    title
    goals(roots: true) { ...G children { ...G children { ...G } } }
  }
}
fragment G on Goal {
  id name attainment
  owners { ...O }
  tasks { id name status owner { ...O } }
  metrics { id name attainment owners { ...O } checkins { id actual } tasks { id name status owner { ...O } } }
}
fragment O on Owner { __typename ... on User { id name } ... on Team { id name } }`

type config struct {
	bin    string
	base   string // with --peer: a second binary (main's, say) measured in the same rounds
	goals  []int
	rounds int
	gets   int
}

func main() {
	var c config
	var sizes string
	flag.StringVar(&c.bin, "bin", "", "the okrgate binary (required)")
	flag.StringVar(&sizes, "goals", "1000,10000", "account sizes in objectives, comma-separated")
	flag.IntVar(&c.rounds, "rounds", 3, "tree queries per size (at least 3)")
	flag.IntVar(&c.gets, "gets", 200, "single-goal GETs per size")
	gateway := flag.Bool("gateway", false, "measure the tree through a gateway (serve --upstream) beside the direct server, as a ratio")
	peer := flag.Bool("peer", false, "compare okrgate on SQLite and PostgreSQL with PostGraphile 4 and the one-statement floor (needs --postgres, node and npm)")
	roles := flag.Bool("roles", false, "compare an admin's, a member's and a viewer's tree and REST listings (with --postgres: on PostgreSQL too)")
	pgURL := flag.String("postgres", "", "with --peer or --roles: a PostgreSQL URL whose role may create databases")
	flag.StringVar(&c.base, "baseline", "", "with --peer or --roles: another okrgate binary (say, main's) measured as more sides of the same interleaved rounds, so that a change compares with it on one machine state")
	seedN := flag.Int("seed", 1, "the seed of okrgate seed")
	flag.Parse()
	for _, s := range strings.Split(sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			fmt.Fprintf(os.Stderr, "treebench: --goals: %q is not a positive number\n", s)
			os.Exit(2)
		}
		c.goals = append(c.goals, n)
	}
	if c.bin == "" || c.rounds < 3 || c.gets < 1 {
		fmt.Fprintln(os.Stderr, "treebench: --bin is required, --rounds at least 3, --gets at least 1")
		os.Exit(2)
	}
	if *peer {
		if *pgURL == "" {
			fmt.Fprintln(os.Stderr, "treebench: --peer needs --postgres")
			os.Exit(2)
		}
		if err := peerTable(c, *pgURL, *seedN); err != nil {
			fmt.Fprintln(os.Stderr, "treebench:", err)
			os.Exit(1)
		}
		return
	}
	if *roles {
		if err := rolesTable(c, *pgURL, *seedN); err != nil {
			fmt.Fprintln(os.Stderr, "treebench:", err)
			os.Exit(1)
		}
		return
	}
	if *gateway {
		if err := gatewayTable(c); err != nil {
			fmt.Fprintln(os.Stderr, "treebench:", err)
			os.Exit(1)
		}
		return
	}
	fmt.Println("| objectives | session goals | response | tree min | tree median | ms per MB (median) | peak RSS | RSS / response | GET goal p50 | GET goal p90 |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|")
	for _, n := range c.goals {
		r, err := measure(c, n)
		if err != nil {
			fmt.Fprintln(os.Stderr, "treebench:", err)
			os.Exit(1)
		}
		mb := float64(r.bytes) / (1 << 20)
		fmt.Printf("| %d | %d | %.1f MiB | %s | %s | %.0f | %.0f MiB | %.0f× | %s | %s |\n", n, r.sessionGoals, mb,
			ms(r.tree[0]), ms(r.tree[len(r.tree)/2]), float64(r.tree[len(r.tree)/2].Milliseconds())/mb,
			float64(r.peakRSS)/(1<<20), float64(r.peakRSS)/float64(r.bytes), ms(r.get[len(r.get)/2]), ms(r.get[len(r.get)*9/10]))
	}
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

type result struct {
	sessionGoals int
	bytes        int
	tree, get    []time.Duration // sorted
	peakRSS      int64
}

func measure(c config, n int) (result, error) {
	var r result
	dir, err := os.MkdirTemp("", "treebench")
	if err != nil {
		return r, err
	}
	defer os.RemoveAll(dir)
	db := filepath.Join(dir, "okr.db")
	boot, err := binary.Seed(c.bin, db, n, 1, os.Stderr)
	if err != nil {
		return r, err
	}
	srv, err := binary.Serve(c.bin, db)
	if err != nil {
		return r, err
	}
	defer srv.Stop()
	cl := &client{base: srv.Base, token: boot.Token, account: boot.AccountID}

	sid, goals, err := cl.largestSession()
	if err != nil {
		return r, err
	}
	r.sessionGoals = len(goals)
	body, _ := json.Marshal(map[string]any{"query": treeQuery, "variables": map[string]any{"id": sid}})
	for range c.rounds {
		t0 := time.Now()
		resp, err := cl.do(http.MethodPost, "/graphql", body)
		d := time.Since(t0)
		if err != nil {
			return r, fmt.Errorf("tree: %w", err)
		}
		if bytes.Contains(resp, []byte(`"errors"`)) {
			return r, fmt.Errorf("tree: %.300s", resp)
		}
		r.bytes = len(resp)
		r.tree = append(r.tree, d)
	}
	if r.peakRSS, err = srv.PeakRSS(); err != nil {
		return r, err
	}
	for i := range c.gets {
		id := goals[i*7919%len(goals)]
		t0 := time.Now()
		if _, err := cl.do(http.MethodGet, "/api/v1/goals/"+id, nil); err != nil {
			return r, fmt.Errorf("get goal: %w", err)
		}
		r.get = append(r.get, time.Since(t0))
	}
	slices.Sort(r.tree)
	slices.Sort(r.get)
	return r, nil
}

type client struct{ base, token, account string }

func (c *client) do(method, path string, body []byte) ([]byte, error) {
	req, err := http.NewRequest(method, c.base+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("service-accountId", c.account)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s %s: HTTP %d: %.300s", method, path, resp.StatusCode, b)
	}
	return b, nil
}

// largestSession returns the session with the most goals and their ids,
// read over REST (pages of 1000).
func (c *client) largestSession() (string, []string, error) {
	bySession := map[string][]string{}
	for skip := 0; ; skip += 1000 {
		b, err := c.do(http.MethodGet, fmt.Sprintf("/api/v2/integrations/goals?fields=id,sessionId&limit=1000&skip=%d", skip), nil)
		if err != nil {
			return "", nil, err
		}
		var page struct {
			Items []struct{ ID, SessionID string }
		}
		if err := json.Unmarshal(b, &page); err != nil {
			return "", nil, fmt.Errorf("goals page: %w", err)
		}
		for _, g := range page.Items {
			bySession[g.SessionID] = append(bySession[g.SessionID], g.ID)
		}
		if len(page.Items) < 1000 {
			break
		}
	}
	best := ""
	for s, gs := range bySession {
		if best == "" || len(gs) > len(bySession[best]) || len(gs) == len(bySession[best]) && s < best {
			best = s
		}
	}
	if best == "" {
		return "", nil, errors.New("no goals")
	}
	return best, bySession[best], nil
}
