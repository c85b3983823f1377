package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/okrgate/okrgate/cmd/okrgate/internal/binary"
	"github.com/okrgate/okrgate/cmd/okrgate/internal/pgtemp"
)

// The Monday-morning scenario (issue "Monday morning"): an account of
// --goals objectives with a private goal owned by a team, so that viewers
// fall in two visibility classes; viewers read the README's tree of the
// largest session (GraphQL, POST) as viewers:
//
//   - cold: one viewer's tree right after a check-in, --rounds times;
//   - again: the same viewer's tree again, nothing changed;
//   - full: after the reload, the same tree by a document no earlier read
//     used (a comment differs), so that no answer is kept or derived for
//     it: a full execution, --rounds times;
//   - burst: 32 viewers at once, right after a check-in, --rounds times;
//   - reload: 50 readers (one of the team, 49 not) reloading for
//     --duration while an admin checks in once a second.
//
// Every read of the key result the check-ins move is checked: a read that
// started after a check-in was acknowledged must show it or a later one
// (stale reads), and only the team's reader may see the private goal
// (leaks). The reading server's memory is reported as (peak − idle) RSS
// over the cold reads and the bursts ÷ the size of a viewer's tree. With
// --postgres the database is PostgreSQL and two servers run on it: setup
// and check-ins go to the first, reads to the second.

const (
	mondayBurst   = 32
	mondayReaders = 50
	mondayTarget  = 1_000_000.0
)

// mondayResult is one binary's figures.
type mondayResult struct {
	bin                  string
	cold, again, full    time.Duration // medians
	burstOK, burst503    int
	burstP99             time.Duration
	readsPerSec          float64
	reload503, reloadBad int
	reloadP99            time.Duration
	stale, leaks         int
	insideMissing        int // reads of the team's reader without the private goal (the check is void if > 0)
	// burstMem is the read server's (peak − idle) RSS over the cold reads
	// and the bursts (VmHWM after the last burst − VmRSS before the first
	// tree), and answer the size of a viewer's tree.
	burstMem, answer int64
}

type mondayWorld struct {
	reads, writes client // reads go to reads.base; setup and check-ins to writes.base
	session       string
	kr, private   string
	inside        string   // token of the team's viewer
	outside       []string // tokens of viewers of no team
}

func (e *mondayWorld) tree(token string) (status int, dur time.Duration, body []byte, err error) {
	return e.treeDoc(token, treeQuery)
}

// treeDoc is tree with the document doc.
func (e *mondayWorld) treeDoc(token, doc string) (status int, dur time.Duration, body []byte, err error) {
	c := e.reads
	c.token = token
	start := time.Now()
	res, err := c.request("POST", "/graphql", map[string]any{"query": doc, "variables": map[string]any{"id": e.session}})
	if err != nil {
		return 0, time.Since(start), nil, err
	}
	body, err = readBody(res)
	res.Body.Close()
	return res.StatusCode, time.Since(start), body, err
}

// readBody reads a response's body into one buffer of its Content-Length
// when the server sent one (a tree of megabytes read by io.ReadAll is
// copied at every doubling of its buffer, 32 at once in a burst, on the
// server's cores), else as io.ReadAll does.
func readBody(res *http.Response) ([]byte, error) {
	if n := res.ContentLength; n > 0 && n <= 1<<30 {
		body := make([]byte, n)
		_, err := io.ReadFull(res.Body, body)
		return body, err
	}
	return io.ReadAll(res.Body)
}

var seq atomic.Int64

// checkIn records actual on the key result and returns once acknowledged.
func (e *mondayWorld) checkIn(actual float64) error {
	return e.writes.json("POST", "/api/v1/metrics/"+e.kr+"/checkin", map[string]any{"actual": actual}, &struct{}{})
}

// runMonday seeds a fresh database for bin, sets the scenario up and runs it.
func runMonday(c config, bin string) (mondayResult, error) {
	r := mondayResult{bin: bin}
	var db string
	if c.postgres != "" {
		u, drop, err := pgtemp.Create(context.Background(), c.postgres, fmt.Sprintf("okrgate_monday_%d_%d", os.Getpid(), seq.Add(1)))
		if err != nil {
			return r, err
		}
		defer drop()
		db = u
	} else {
		dir, err := os.MkdirTemp("", "okrgate-monday")
		if err != nil {
			return r, err
		}
		defer os.RemoveAll(dir)
		db = filepath.Join(dir, "monday.db")
	}
	fmt.Fprintf(os.Stderr, "%s: seeding %d objectives...\n", bin, c.goals)
	acct, err := binary.Seed(bin, db, c.goals, 5, nil)
	if err != nil {
		return r, err
	}
	a, err := binary.Serve(bin, db, strings.Fields(c.serveFlags)...)
	if err != nil {
		return r, err
	}
	defer a.Stop()
	b := a
	if c.postgres != "" {
		if b, err = binary.Serve(bin, db, strings.Fields(c.serveFlags)...); err != nil {
			return r, err
		}
		defer b.Stop()
	}
	hc := &http.Client{Transport: &http.Transport{MaxIdleConns: 4 * mondayReaders, MaxIdleConnsPerHost: 4 * mondayReaders}, Timeout: 60 * time.Second}
	admin := client{hc: hc, base: a.Base, token: acct.Token, acct: acct.AccountID}
	e, err := setUpMonday(admin, b.Base)
	if err != nil {
		return r, fmt.Errorf("set up: %w", err)
	}
	actual := 0.0
	next := func() error { actual++; return e.checkIn(actual) }

	idle, err := binary.ProcStatus(b.Pid(), "VmRSS")
	if err != nil {
		return r, err
	}
	var colds, agains []time.Duration
	for range c.rounds {
		if err := next(); err != nil {
			return r, err
		}
		time.Sleep(100 * time.Millisecond)
		st, d, body, err := e.tree(e.outside[0])
		if err != nil || st != 200 {
			return r, fmt.Errorf("cold tree: %d %v", st, err)
		}
		colds = append(colds, d)
		r.answer = int64(len(body))
		st, d, _, err = e.tree(e.outside[0])
		if err != nil || st != 200 {
			return r, fmt.Errorf("tree again: %d %v", st, err)
		}
		agains = append(agains, d)
	}
	r.cold, r.again = medianDuration(colds), medianDuration(agains)

	var burst []time.Duration
	for range c.rounds {
		if err := next(); err != nil {
			return r, err
		}
		time.Sleep(500 * time.Millisecond) // idle
		var wg sync.WaitGroup
		var mu sync.Mutex
		start := make(chan struct{})
		for i := range mondayBurst {
			wg.Go(func() {
				<-start
				st, d, _, _ := e.tree(e.outside[i%len(e.outside)])
				mu.Lock()
				defer mu.Unlock()
				burst = append(burst, d)
				switch st {
				case 200:
					r.burstOK++
				case 503:
					r.burst503++
				}
			})
		}
		time.Sleep(100 * time.Millisecond)
		close(start)
		wg.Wait()
	}
	r.burstP99 = percentile(burst, 0.99)
	peak, err := binary.ProcStatus(b.Pid(), "VmHWM")
	if err != nil {
		return r, err
	}
	r.burstMem = peak - idle
	if err := e.reload(c.duration, &actual, &r); err != nil {
		return r, err
	}
	// Last, so that what the server keeps for these documents does not
	// count in the bursts' memory.
	var fulls []time.Duration
	for round := range c.rounds {
		time.Sleep(500 * time.Millisecond) // idle
		st, d, _, err := e.treeDoc(e.outside[0], fmt.Sprintf("%s\n# full %d", treeQuery, round))
		if err != nil || st != 200 {
			return r, fmt.Errorf("full tree: %d %v", st, err)
		}
		fulls = append(fulls, d)
	}
	r.full = medianDuration(fulls)
	return r, nil
}

// reload runs the readers and the writer for d and fills r's reload figures.
func (e *mondayWorld) reload(d time.Duration, actual *float64, r *mondayResult) error {
	type ack struct {
		at    time.Time
		value float64
	}
	var mu sync.Mutex
	var acks []ack
	var durs []time.Duration
	var answered int
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var werr error
	wg.Go(func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
			}
			v := *actual + 1
			if err := e.checkIn(v); err != nil {
				werr = err
				return
			}
			*actual = v
			mu.Lock()
			acks = append(acks, ack{time.Now(), v})
			mu.Unlock()
		}
	})
	// lastAck is the value of the last check-in acknowledged before t.
	lastAck := func(t time.Time) float64 {
		v := 0.0
		for _, a := range acks {
			if a.at.Before(t) {
				v = a.value
			}
		}
		return v
	}
	krRE := regexp.MustCompile(`"id":"` + e.kr + `","name":"[^"]*","attainment":([-0-9.eE+]+)`)
	begin := time.Now()
	for i := range mondayReaders {
		token, inside := e.outside[i%len(e.outside)], false
		if i == 0 {
			token, inside = e.inside, true
		}
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				start := time.Now()
				st, dur, body, err := e.tree(token)
				// The answer is searched outside the lock, without copies.
				failed := err == nil && st == 200 && bytes.Contains(body, []byte(`"errors":`))
				sees := bytes.Contains(body, []byte(e.private))
				m := krRE.FindSubmatch(body)
				mu.Lock()
				switch {
				case err != nil:
					r.reloadBad++
				case st == 503:
					r.reload503++
				case st != 200 || failed:
					r.reloadBad++ // an error is a failed read, not a read without the goal
				default:
					answered++
					durs = append(durs, dur)
					if sees != inside {
						if inside {
							r.insideMissing++
						} else {
							r.leaks++
						}
					}
					if m == nil {
						r.reloadBad++
						break
					}
					att, _ := strconv.ParseFloat(string(m[1]), 64)
					if math.Round(att*mondayTarget) < lastAck(start) {
						r.stale++
					}
				}
				mu.Unlock()
				if st == 503 {
					time.Sleep(100 * time.Millisecond)
				}
			}
		})
	}
	time.Sleep(d)
	close(stop)
	wg.Wait()
	elapsed := time.Since(begin)
	r.readsPerSec = float64(answered) / elapsed.Seconds()
	r.reloadP99 = percentile(durs, 0.99)
	return werr
}

func medianDuration(ds []time.Duration) time.Duration { return percentile(ds, 0.5) }

func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(math.Ceil(p*float64(len(s))))-1)]
}

// setUpMonday creates, as admin, the viewers (one in a team, the others in
// none), the team, its private goal and a public goal with the key result
// the check-ins move, both roots of the largest session; reads go to
// readBase.
func setUpMonday(admin client, readBase string) (*mondayWorld, error) {
	e := &mondayWorld{writes: admin, reads: admin}
	e.reads.base = readBase
	var roles struct{ Items []struct{ ID, Name string } }
	if err := admin.json("GET", "/api/v2/roles?limit=100", nil, &roles); err != nil {
		return nil, err
	}
	viewerRole := ""
	for _, r := range roles.Items {
		if r.Name == "viewer" {
			viewerRole = r.ID
		}
	}
	var insideID string
	for i := range mondayReaders {
		var u, tok struct{ ID, Token string }
		if err := admin.json("POST", "/api/v2/users", map[string]any{"email": fmt.Sprintf("viewer%d@monday.test", i), "firstName": fmt.Sprint("Viewer ", i), "roleIds": []string{viewerRole}}, &u); err != nil {
			return nil, err
		}
		if err := admin.json("POST", "/api/v2/users/"+u.ID+"/tokens", nil, &tok); err != nil {
			return nil, err
		}
		if i == 0 {
			insideID, e.inside = u.ID, tok.Token
		} else {
			e.outside = append(e.outside, tok.Token)
		}
	}
	var team, g, kr struct{ ID string }
	if err := admin.json("POST", "/api/v1/teams", map[string]any{"name": "Board", "members": []string{insideID}}, &team); err != nil {
		return nil, err
	}
	sid, err := largestSession(admin)
	if err != nil {
		return nil, err
	}
	e.session = sid
	if err := admin.json("POST", "/api/v1/goals", map[string]any{"name": "Board plan", "sessionId": sid, "private": true, "ownerIds": []string{team.ID}}, &g); err != nil {
		return nil, err
	}
	e.private = g.ID
	if err := admin.json("POST", "/api/v1/goals", map[string]any{"name": "Monday", "sessionId": sid}, &g); err != nil {
		return nil, err
	}
	if err := admin.json("POST", "/api/v1/metrics", map[string]any{"name": "Monday check-ins", "goalId": g.ID, "initialValue": 0, "target": mondayTarget}, &kr); err != nil {
		return nil, err
	}
	e.kr = kr.ID
	return e, nil
}

// largestSession returns the session with the most goals, read over REST
// (pages of 1000).
func largestSession(c client) (string, error) {
	count := map[string]int{}
	for skip := 0; ; skip += 1000 {
		var page struct {
			Items []struct{ ID, SessionID string }
		}
		if err := c.json("GET", "/api/v2/integrations/goals?fields=id,sessionId&limit=1000&skip="+strconv.Itoa(skip), nil, &page); err != nil {
			return "", err
		}
		for _, g := range page.Items {
			count[g.SessionID]++
		}
		if len(page.Items) < 1000 {
			break
		}
	}
	best := ""
	for s, n := range count {
		if best == "" || n > count[best] || n == count[best] && s < best {
			best = s
		}
	}
	if best == "" {
		return "", errors.New("no goals")
	}
	return best, nil
}

// mondayReport prints the figures of each binary, and each one's reads/s
// against the first binary's.
func mondayReport(c config, rs []mondayResult) []verdict {
	where := "SQLite, one server"
	if c.postgres != "" {
		where = "PostgreSQL, two servers (writes on A, reads on B)"
	}
	fmt.Printf("\n### Monday morning: viewers of a %d-objective account (%s; load average %s)\n\n", c.goals, where, loadAverage())
	fmt.Println("| binary | cold tree (median) | full tree (median) | again, nothing changed | 32 at once: answered / 503, p99 (× cold; × full) | 50 readers + 1 check-in/s: reads/s (× first), 503, p99 (× cold; × full) | (peak − idle) RSS ÷ answer | stale | leaks |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|")
	var vs []verdict
	for _, r := range rs {
		x := func(d time.Duration) float64 { return float64(d) / float64(r.cold) }
		xf := func(d time.Duration) float64 { return float64(d) / float64(r.full) }
		fmt.Printf("| %s | %s | %s | %s (%.3f×) | %d / %d, %s (%.2f×; %.2f×) | %.1f (%.1f×), %d, %s (%.2f×; %.2f×) | %.1f× (%.0f MiB ÷ %.2f MiB) | %d | %d |\n",
			r.bin, r.cold.Round(time.Millisecond), r.full.Round(time.Millisecond), r.again.Round(100*time.Microsecond), x(r.again), r.burstOK, r.burst503,
			r.burstP99.Round(time.Millisecond), x(r.burstP99), xf(r.burstP99), r.readsPerSec, r.readsPerSec/rs[0].readsPerSec, r.reload503,
			r.reloadP99.Round(time.Millisecond), x(r.reloadP99), xf(r.reloadP99), float64(r.burstMem)/float64(r.answer), float64(r.burstMem)/(1<<20), float64(r.answer)/(1<<20),
			r.stale, r.leaks)
		vs = append(vs, check("monday", r.stale == 0 && r.leaks == 0 && r.insideMissing == 0 && r.reloadBad == 0,
			"%s: %d stale reads, %d leaks, %d reads of the team's viewer without its goal, %d failed reads", r.bin, r.stale, r.leaks, r.insideMissing, r.reloadBad))
	}
	return vs
}
