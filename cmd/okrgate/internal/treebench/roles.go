package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/okrgate/okrgate/cmd/okrgate/internal/binary"
	"github.com/okrgate/okrgate/cmd/okrgate/internal/pgtemp"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore/sqlstoretest"
)

// The comparison by role (--roles): the same reads of the same data, in
// interleaved rounds, by an admin, a member and a viewer of the account, on
// SQLite and (with --postgres) on PostgreSQL, and with --baseline by another
// binary beside (on the same databases, migrated by --bin's seed). Before the rounds the program
// adds a team, a member in it, a viewer outside it, and makes one root
// objective of the largest session private and owned by the team: the
// member then sees it, the viewer sees it as an obfuscated stub above its
// children. Three reads are measured for each caller:
//
//   - the tree of the largest session (peerTree, the --peer tree), a cold answer: every
//     round is a new document (a comment with the round's number), so no
//     response cache can answer it;
//   - GET /api/v2/integrations/goals?limit=1000 (1,000 objectives);
//   - GET /api/v2/metrics?limit=1000 (1,000 key results).

// read is one of the reads compared between callers.
type read struct {
	name string
	ask  func(cl *client, round int) ([]byte, error)
}

// roleSide is one caller on one store of one binary: its times per read.
type roleSide struct {
	build       string // "" for --bin, "baseline " for --baseline
	store, role string
	cl          *client
	pid         int
	idle, peak  int64
	took        map[string][]time.Duration
	cpu         map[string]time.Duration // the server's CPU time over the rounds, per read
	size        map[string]int
}

// rolesTable runs the comparison at each size and prints its table.
func rolesTable(c config, pgURL string, seedN int) error {
	ctx := context.Background()
	fmt.Println("| objectives | store | read | caller | response | min | median | ÷ admin (median) | server CPU per read | ÷ admin (CPU) |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|")
	for _, n := range c.goals {
		sides, reads, err := measureRoles(ctx, c, pgURL, n, seedN)
		if err != nil {
			return err
		}
		for _, rd := range reads {
			for _, s := range sides {
				var admin, adminCPU time.Duration
				for _, a := range sides {
					if a.build == s.build && a.store == s.store && a.role == "admin" {
						admin, adminCPU = median(a.took[rd.name]), a.cpu[rd.name]
					}
				}
				t := s.took[rd.name]
				fmt.Printf("| %d | %s%s | %s | %s | %.2f MiB | %s | %s | %.2f | %s | %.2f |\n", n, s.build, s.store, rd.name, s.role,
					float64(s.size[rd.name])/(1<<20), ms(t[0]), ms(median(t)), float64(median(t))/float64(admin),
					ms(s.cpu[rd.name]/time.Duration(len(t))), float64(s.cpu[rd.name])/float64(adminCPU))
			}
		}
		fmt.Println()
		fmt.Println("| objectives | store | caller | idle RSS | peak RSS | (peak − idle) ÷ tree response, after all reads |")
		fmt.Println("|---|---|---|---|---|---|")
		for _, s := range sides {
			fmt.Printf("| %d | %s%s | %s | %.0f MiB | %.0f MiB | %.1f× |\n", n, s.build, s.store, s.role, float64(s.idle)/(1<<20),
				float64(s.peak)/(1<<20), float64(s.peak-s.idle)/float64(s.size["tree"]))
		}
	}
	return nil
}

func median(ts []time.Duration) time.Duration { return ts[len(ts)/2] }

// measureRoles seeds n objectives, adds the team, the member, the viewer
// and the private objective, copies the database to PostgreSQL when pgURL
// is set, starts one server per store and caller (so that each one's peak
// RSS is its own) and runs the interleaved rounds.
func measureRoles(ctx context.Context, c config, pgURL string, n, seedN int) ([]*roleSide, []read, error) {
	dir, err := os.MkdirTemp("", "treebench")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(dir)
	db := filepath.Join(dir, "okr.db")
	boot, err := binary.Seed(c.bin, db, n, seedN, os.Stderr)
	if err != nil {
		return nil, nil, err
	}
	setup, err := binary.Serve(c.bin, db)
	if err != nil {
		return nil, nil, err
	}
	admin := &client{base: setup.Base, token: boot.Token, account: boot.AccountID}
	sid, goals, err := admin.largestSession()
	if err != nil {
		setup.Stop()
		return nil, nil, err
	}
	tokens, err := addCallers(admin, goals)
	setup.Stop()
	if err != nil {
		return nil, nil, err
	}
	tokens["admin"] = boot.Token
	fmt.Fprintf(os.Stderr, "treebench: %d objectives, session %s with %d goals\n", n, sid, len(goals))

	stores := []struct{ name, db string }{{"SQLite", db}}
	if pgURL != "" {
		dsn, drop, err := pgtemp.Create(ctx, pgURL, fmt.Sprintf("treebench_roles_%d_%d", n, os.Getpid()))
		if err != nil {
			return nil, nil, err
		}
		defer func() {
			if err := drop(); err != nil {
				fmt.Fprintln(os.Stderr, "treebench:", err)
			}
		}()
		st, err := sqlstore.Open(ctx, dsn) // migrates
		if err != nil {
			return nil, nil, err
		}
		st.Close()
		if err := sqlstoretest.CopyToPostgres(ctx, db, dsn); err != nil {
			return nil, nil, err
		}
		stores = append(stores, struct{ name, db string }{"PostgreSQL", dsn})
	}
	builds := []struct{ label, bin string }{{"", c.bin}}
	if c.base != "" {
		builds = append(builds, struct{ label, bin string }{"baseline ", c.base})
	}
	var sides []*roleSide
	for _, b := range builds {
		for _, st := range stores {
			for _, role := range []string{"admin", "member", "viewer"} {
				srv, err := binary.Serve(b.bin, st.db)
				if err != nil {
					return nil, nil, err
				}
				defer srv.Stop()
				s := &roleSide{build: b.label, store: st.name, role: role, pid: srv.Pid(), took: map[string][]time.Duration{},
					cpu: map[string]time.Duration{}, size: map[string]int{},
					cl: &client{base: srv.Base, token: tokens[role], account: boot.AccountID}}
				if s.idle, err = binary.ProcStatus(s.pid, "VmRSS"); err != nil {
					return nil, nil, err
				}
				sides = append(sides, s)
			}
		}
	}
	reads := []read{
		{"tree", func(cl *client, round int) ([]byte, error) {
			// A new document each round: a cold answer whatever caches.
			body, _ := json.Marshal(map[string]any{"query": fmt.Sprintf("# round %d\n%s", round, peerTree), "variables": map[string]any{"id": sid}})
			b, err := cl.do(http.MethodPost, "/graphql", body)
			if err == nil && bytes.Contains(b, []byte(`"errors"`)) {
				err = fmt.Errorf("%.300s", b)
			}
			return b, err
		}},
		{"1,000 objectives (REST)", func(cl *client, _ int) ([]byte, error) {
			return cl.do(http.MethodGet, "/api/v2/integrations/goals?limit=1000", nil)
		}},
		{"1,000 key results (REST)", func(cl *client, _ int) ([]byte, error) {
			return cl.do(http.MethodGet, "/api/v2/metrics?limit=1000", nil)
		}},
	}
	for _, s := range sides { // warm up
		for _, rd := range reads {
			b, err := rd.ask(s.cl, -1)
			if err != nil {
				return nil, nil, fmt.Errorf("%s%s %s %s: %w", s.build, s.store, s.role, rd.name, err)
			}
			fmt.Fprintf(os.Stderr, "treebench: %s%s %s %s: %d bytes, %d ids\n", s.build, s.store, s.role, rd.name, len(b), bytes.Count(b, []byte(`"id"`)))
		}
	}
	for r := range c.rounds {
		for _, rd := range reads {
			for i := range sides { // interleaved, starting with a different side each round
				s := sides[(i+r)%len(sides)]
				cpu0, err := binary.CPUTime(s.pid)
				if err != nil {
					return nil, nil, err
				}
				t0 := time.Now()
				b, err := rd.ask(s.cl, r)
				if err != nil {
					return nil, nil, fmt.Errorf("%s%s %s %s: %w", s.build, s.store, s.role, rd.name, err)
				}
				s.took[rd.name] = append(s.took[rd.name], time.Since(t0))
				cpu1, err := binary.CPUTime(s.pid)
				if err != nil {
					return nil, nil, err
				}
				s.cpu[rd.name] += cpu1 - cpu0
				s.size[rd.name] = len(b)
			}
		}
	}
	for _, s := range sides {
		for _, t := range s.took {
			slices.Sort(t)
		}
		if s.peak, err = binary.ProcStatus(s.pid, "VmHWM"); err != nil {
			return nil, nil, err
		}
	}
	return sides, reads, nil
}

// addCallers adds, as the admin, a member in a new team and a viewer
// outside it, each with a token, and makes the first of goals (a session's
// objectives) private and owned by the team. It returns the tokens by role.
func addCallers(admin *client, goals []string) (map[string]string, error) {
	var roles struct {
		Items []struct{ ID, Name string } `json:"items"`
	}
	if err := admin.call(http.MethodGet, "/api/v2/roles?limit=100", nil, &roles, http.StatusOK); err != nil {
		return nil, err
	}
	roleID := map[string]string{}
	for _, r := range roles.Items {
		roleID[r.Name] = r.ID
	}
	tokens := map[string]string{}
	ids := map[string]string{}
	for _, role := range []string{"member", "viewer"} {
		var u, tok struct{ ID, Token string }
		if err := admin.call(http.MethodPost, "/api/v2/users", map[string]any{
			"email": role + "@treebench.test", "firstName": strings.ToUpper(role[:1]) + role[1:], "roleIds": []string{roleID[role]},
		}, &u, http.StatusCreated); err != nil {
			return nil, err
		}
		if err := admin.call(http.MethodPost, "/api/v2/users/"+u.ID+"/tokens", nil, &tok, http.StatusCreated); err != nil {
			return nil, err
		}
		tokens[role], ids[role] = tok.Token, u.ID
	}
	var team struct{ ID string }
	if err := admin.call(http.MethodPost, "/api/v1/teams", map[string]any{"name": "Planning", "members": []string{ids["member"]}}, &team, http.StatusCreated); err != nil {
		return nil, err
	}
	if len(goals) == 0 {
		return tokens, nil
	}
	private := slices.Min(goals)
	if err := admin.call(http.MethodPatch, "/api/v1/goals/"+private, map[string]any{"private": true, "ownerIds": []string{team.ID}}, nil, http.StatusOK); err != nil {
		return nil, err
	}
	return tokens, nil
}

// call sends a JSON request and decodes the answer into out (when not nil),
// expecting status want.
func (c *client) call(method, path string, in, out any, want int) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, c.base+path, body)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("service-accountId", c.account)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != want {
		return fmt.Errorf("%s %s: HTTP %d: %.300s", method, path, resp.StatusCode, b)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(b, out)
}
