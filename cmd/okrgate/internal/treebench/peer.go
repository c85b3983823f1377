package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	_ "modernc.org/sqlite" // CopyToPostgres reads the seeded SQLite file

	"github.com/okrgate/okrgate/cmd/okrgate/internal/binary"
	"github.com/okrgate/okrgate/cmd/okrgate/internal/pgtemp"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore/sqlstoretest"
)

// The peer comparison (--peer): the same tree of the same data answered, in
// interleaved rounds, by
//
//   - okrgate on SQLite and okrgate on PostgreSQL (the built binary, and
//     with --baseline another binary, main's say, beside it);
//   - PostGraphile 4, installed from npm into a temporary directory of this
//     program, over a relational copy of the data in PostgreSQL (users,
//     sessions, goals, metrics, checkins with foreign keys and indexes);
//   - the floor: PostgreSQL building the whole nested JSON answer in one SQL
//     statement over that relational copy, read by a client.
//
// The tree is the session's root objectives with their owner and key
// results with check-ins, their children with owner and key results, and
// the grandchildren with key results.

// peerTree is the tree on okrgate.
const peerTree = `query Tree($id: ID!) {
  session(id: $id) {
    id title
    goals(roots: true) {
      id name attainment owners { ...O }
      metrics { id name attainment checkins { id actual } }
      children {
        id name attainment owners { ...O }
        metrics { id name attainment }
        children { id name attainment metrics { id name attainment } }
      }
    }
  }
}
fragment O on Owner { ... on User { id name } }`

// peerLean is a lean selection of the same tree on okrgate: ids alone.
const peerLean = `query Lean($id: ID!) {
  session(id: $id) { id goals(roots: true) { id metrics { id checkins { id } } children { id metrics { id } children { id metrics { id } } } } }
}`

// postgraphileTree is the tree on PostGraphile 4.
const postgraphileTree = `query Tree($id: String!) {
  session: sessionById(id: $id) {
    id title
    goals: goalsBySessionId(condition: {parentId: null}, orderBy: ID_ASC) { nodes {
      id name attainment owner: userByOwnerId { id name }
      metrics: metricsByGoalId(orderBy: ID_ASC) { nodes { id name attainment checkins: checkinsByMetricId(orderBy: ID_ASC) { nodes { id actual } } } }
      children: goalsByParentId(orderBy: ID_ASC) { nodes {
        id name attainment owner: userByOwnerId { id name }
        metrics: metricsByGoalId(orderBy: ID_ASC) { nodes { id name attainment } }
        children: goalsByParentId(orderBy: ID_ASC) { nodes { id name attainment metrics: metricsByGoalId(orderBy: ID_ASC) { nodes { id name attainment } } } }
      } }
    } }
  }
}`

// relational is the relational copy of one account's tree data, made from
// the store's tables in the same database.
const relational = `
CREATE SCHEMA rel;
CREATE TABLE rel.users (id text PRIMARY KEY, name text NOT NULL);
CREATE TABLE rel.sessions (id text PRIMARY KEY, title text NOT NULL);
CREATE TABLE rel.goals (id text PRIMARY KEY, session_id text NOT NULL REFERENCES rel.sessions,
	parent_id text REFERENCES rel.goals, owner_id text REFERENCES rel.users, name text NOT NULL, attainment double precision);
CREATE TABLE rel.metrics (id text PRIMARY KEY, goal_id text NOT NULL REFERENCES rel.goals, name text NOT NULL, attainment double precision);
CREATE TABLE rel.checkins (id text PRIMARY KEY, metric_id text NOT NULL REFERENCES rel.metrics, actual double precision);
INSERT INTO rel.users SELECT id, COALESCE(doc->>'name', '') FROM users;
INSERT INTO rel.sessions SELECT id, COALESCE(doc->>'title', '') FROM sessions;
INSERT INTO rel.goals SELECT id, session_id, NULL, CASE WHEN owner_id IN (SELECT id FROM rel.users) THEN owner_id END,
	COALESCE(doc->>'name', ''), (doc->>'attainment')::double precision FROM goals;
UPDATE rel.goals r SET parent_id = g.parent_id FROM goals g WHERE g.id = r.id AND g.parent_id <> '';
INSERT INTO rel.metrics SELECT id, goal_id, COALESCE(doc->>'name', ''), (doc->>'attainment')::double precision FROM metrics;
INSERT INTO rel.checkins SELECT id, metric_id, (doc->>'actual')::double precision FROM checkins WHERE metric_id IN (SELECT id FROM rel.metrics);
CREATE INDEX ON rel.goals (session_id);
CREATE INDEX ON rel.goals (parent_id);
CREATE INDEX ON rel.goals (owner_id);
CREATE INDEX ON rel.metrics (goal_id);
CREATE INDEX ON rel.checkins (metric_id);
ANALYZE rel.users, rel.sessions, rel.goals, rel.metrics, rel.checkins;`

// floorSQL builds the whole answer of the tree in one statement.
const floorSQL = `
SELECT json_build_object('data', json_build_object('session', json_build_object('id', s.id, 'title', s.title, 'goals', COALESCE((
  SELECT json_agg(json_build_object('id', g.id, 'name', g.name, 'attainment', g.attainment,
    'owner', (SELECT json_build_object('id', u.id, 'name', u.name) FROM rel.users u WHERE u.id = g.owner_id),
    'metrics', COALESCE((SELECT json_agg(json_build_object('id', m.id, 'name', m.name, 'attainment', m.attainment,
        'checkins', COALESCE((SELECT json_agg(json_build_object('id', c.id, 'actual', c.actual) ORDER BY c.id)
          FROM rel.checkins c WHERE c.metric_id = m.id), '[]'::json)) ORDER BY m.id) FROM rel.metrics m WHERE m.goal_id = g.id), '[]'::json),
    'children', COALESCE((SELECT json_agg(json_build_object('id', g2.id, 'name', g2.name, 'attainment', g2.attainment,
        'owner', (SELECT json_build_object('id', u.id, 'name', u.name) FROM rel.users u WHERE u.id = g2.owner_id),
        'metrics', COALESCE((SELECT json_agg(json_build_object('id', m.id, 'name', m.name, 'attainment', m.attainment) ORDER BY m.id)
          FROM rel.metrics m WHERE m.goal_id = g2.id), '[]'::json),
        'children', COALESCE((SELECT json_agg(json_build_object('id', g3.id, 'name', g3.name, 'attainment', g3.attainment,
            'metrics', COALESCE((SELECT json_agg(json_build_object('id', m.id, 'name', m.name, 'attainment', m.attainment) ORDER BY m.id)
              FROM rel.metrics m WHERE m.goal_id = g3.id), '[]'::json)) ORDER BY g3.id)
          FROM rel.goals g3 WHERE g3.parent_id = g2.id), '[]'::json)) ORDER BY g2.id)
      FROM rel.goals g2 WHERE g2.parent_id = g.id), '[]'::json)) ORDER BY g.id)
  FROM rel.goals g WHERE g.session_id = s.id AND g.parent_id IS NULL), '[]'::json))))::text
FROM rel.sessions s WHERE s.id = $1`

// side is one way of answering the tree: ask returns the answer's bytes.
type side struct {
	name string
	ask  func() ([]byte, error)
	pid  int   // the server process, for its peak RSS (0: none measured)
	rss  int64 // its peak RSS after the rounds
	idle int64 // its RSS before the first query
	took []time.Duration
	size int
}

// peerTable runs the comparison at each size and prints its table.
func peerTable(c config, pgURL string, seedN int) error {
	ctx := context.Background()
	pgDir, err := os.MkdirTemp("", "treebench-postgraphile")
	if err != nil {
		return err
	}
	defer os.RemoveAll(pgDir)
	fmt.Fprintln(os.Stderr, "treebench: npm install postgraphile@4 in", pgDir)
	npm := exec.Command("npm", "install", "--no-audit", "--no-fund", "--loglevel=error", "postgraphile@4")
	npm.Dir, npm.Stdout, npm.Stderr = pgDir, os.Stderr, os.Stderr
	if err := npm.Run(); err != nil {
		return fmt.Errorf("npm install postgraphile@4: %w", err)
	}
	fmt.Println("| objectives | side | response | min | median | ÷ PostGraphile (median) | ÷ floor (median) | ms per MiB (median) | peak RSS | RSS ÷ response | (peak − idle RSS) ÷ response |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|")
	for _, n := range c.goals {
		sides, err := measurePeers(ctx, c, pgURL, pgDir, n, seedN)
		if err != nil {
			return err
		}
		med := func(s *side) time.Duration { return s.took[len(s.took)/2] }
		var peer, floor time.Duration
		for _, s := range sides {
			switch s.name {
			case "PostGraphile 4":
				peer = med(s)
			case "floor (one SQL statement)":
				floor = med(s)
			}
		}
		for _, s := range sides {
			mb := float64(s.size) / (1 << 20)
			rss, ratio, growth := "", "", ""
			if s.rss > 0 {
				rss, ratio = fmt.Sprintf("%.0f MiB", float64(s.rss)/(1<<20)), fmt.Sprintf("%.0f×", float64(s.rss)/float64(s.size))
				growth = fmt.Sprintf("%.0f×", float64(s.rss-s.idle)/float64(s.size))
			}
			fmt.Printf("| %d | %s | %.2f MiB | %s | %s | %.2f | %.2f | %.0f | %s | %s | %s |\n", n, s.name, mb, ms(s.took[0]), ms(med(s)),
				float64(med(s))/float64(peer), float64(med(s))/float64(floor), float64(med(s).Milliseconds())/mb, rss, ratio, growth)
		}
	}
	return nil
}

// measurePeers seeds n objectives, copies them to a fresh PostgreSQL
// database (the store's tables and the relational copy), starts the
// servers and runs the interleaved rounds.
func measurePeers(ctx context.Context, c config, pgURL, pgDir string, n, seedN int) ([]*side, error) {
	dir, err := os.MkdirTemp("", "treebench")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	db := filepath.Join(dir, "okr.db")
	boot, err := binary.Seed(c.bin, db, n, seedN, os.Stderr)
	if err != nil {
		return nil, err
	}
	dsn, drop, err := pgtemp.Create(ctx, pgURL, fmt.Sprintf("treebench_%d_%d", n, os.Getpid()))
	if err != nil {
		return nil, err
	}
	defer func() {
		if err := drop(); err != nil {
			fmt.Fprintln(os.Stderr, "treebench:", err)
		}
	}()
	st, err := sqlstore.Open(ctx, dsn) // migrates
	if err != nil {
		return nil, err
	}
	st.Close()
	if err := sqlstoretest.CopyToPostgres(ctx, db, dsn); err != nil {
		return nil, err
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return nil, err
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, relational); err != nil {
		return nil, fmt.Errorf("relational copy: %w", err)
	}

	type build struct{ label, bin string }
	builds := []build{{"okrgate", c.bin}}
	if c.base != "" {
		builds = append(builds, build{"baseline okrgate", c.base})
	}
	// Every round is a cold tree, as PostGraphile's and the floor's are:
	// the servers share no answers between requests (--graphql-cache).
	cold := []string{"OKRGATE_GRAPHQL_CACHE=false"}
	type servers struct{ lite, pg *binary.Server }
	running := make([]servers, len(builds))
	for i, b := range builds {
		lite, err := binary.ServeEnv(b.bin, db, cold)
		if err != nil {
			return nil, err
		}
		defer lite.Stop()
		pg, err := binary.ServeEnv(b.bin, dsn, cold)
		if err != nil {
			return nil, err
		}
		defer pg.Stop()
		running[i] = servers{lite, pg}
	}
	pgl, err := startPostGraphile(pgDir, dsn)
	if err != nil {
		return nil, err
	}
	defer pgl.stop()

	// The session is found by a server of its own, stopped before the
	// measured ones read their idle RSS: the lookup pages through every goal.
	lookup, err := binary.Serve(c.bin, db)
	if err != nil {
		return nil, err
	}
	sid, goals, err := (&client{base: lookup.Base, token: boot.Token, account: boot.AccountID}).largestSession()
	lookup.Stop()
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(os.Stderr, "treebench: %d objectives, session %s with %d goals\n", n, sid, len(goals))
	vars := map[string]any{"id": sid}
	gql := func(cl *client, q string) func() ([]byte, error) {
		body, _ := json.Marshal(map[string]any{"query": q, "variables": vars})
		return func() ([]byte, error) {
			b, err := cl.do(http.MethodPost, "/graphql", body)
			if err == nil && bytes.Contains(b, []byte(`"errors"`)) {
				err = fmt.Errorf("%.300s", b)
			}
			return b, err
		}
	}
	var sides []*side
	for i, b := range builds {
		for _, srv := range []struct {
			db string
			s  *binary.Server
		}{{"SQLite", running[i].lite}, {"PostgreSQL", running[i].pg}} {
			cl := &client{base: srv.s.Base, token: boot.Token, account: boot.AccountID}
			sides = append(sides, &side{name: b.label + " on " + srv.db, ask: gql(cl, peerTree), pid: srv.s.Pid()})
		}
	}
	sides = append(sides, []*side{
		{name: "PostGraphile 4", ask: gql(&client{base: pgl.base}, postgraphileTree)},
		{name: "floor (one SQL statement)", ask: func() ([]byte, error) {
			var s string
			err := conn.QueryRow(ctx, floorSQL, sid).Scan(&s)
			return []byte(s), err
		}},
	}...)
	for _, s := range sides {
		if s.pid > 0 {
			if s.idle, err = binary.ProcStatus(s.pid, "VmRSS"); err != nil {
				return nil, err
			}
		}
	}
	for _, s := range sides { // warm up, and check that every side answers the same tree
		b, err := s.ask()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.name, err)
		}
		fmt.Fprintf(os.Stderr, "treebench: %s: %d bytes, %d ids\n", s.name, len(b), bytes.Count(b, []byte(`"id"`)))
	}
	for r := range c.rounds {
		for i := range sides { // interleaved, starting with a different side each round
			s := sides[(i+r)%len(sides)]
			t0 := time.Now()
			b, err := s.ask()
			if err != nil {
				return nil, fmt.Errorf("%s: %w", s.name, err)
			}
			s.took = append(s.took, time.Since(t0))
			s.size = len(b)
		}
	}
	for _, s := range sides {
		slices.Sort(s.took)
		if s.pid > 0 {
			if s.rss, err = binary.ProcStatus(s.pid, "VmHWM"); err != nil {
				return nil, err
			}
		}
	}
	// Lean selection: a fresh server of each binary, so that its peak RSS
	// is its own; their rounds interleave too.
	var leans []*side
	for _, b := range builds {
		lean, err := binary.ServeEnv(b.bin, db, cold)
		if err != nil {
			return nil, err
		}
		defer lean.Stop()
		ls := &side{name: b.label + " on SQLite, lean selection (ids only)", ask: gql(&client{base: lean.Base, token: boot.Token, account: boot.AccountID}, peerLean), pid: lean.Pid()}
		if ls.idle, err = binary.ProcStatus(ls.pid, "VmRSS"); err != nil {
			return nil, err
		}
		if _, err := ls.ask(); err != nil { // warm up, as the other sides
			return nil, fmt.Errorf("lean: %w", err)
		}
		leans = append(leans, ls)
	}
	for r := range c.rounds {
		for i := range leans {
			ls := leans[(i+r)%len(leans)]
			t0 := time.Now()
			b, err := ls.ask()
			if err != nil {
				return nil, fmt.Errorf("lean: %w", err)
			}
			ls.took = append(ls.took, time.Since(t0))
			ls.size = len(b)
		}
	}
	for _, ls := range leans {
		slices.Sort(ls.took)
		if ls.rss, err = binary.ProcStatus(ls.pid, "VmHWM"); err != nil {
			return nil, err
		}
	}
	return append(sides, leans...), nil
}

// postgraphile is a running PostGraphile server.
type postgraphile struct {
	base string
	cmd  *exec.Cmd
}

// startPostGraphile starts PostGraphile (installed in dir) over the schema
// rel of dsn on a free loopback port, and waits until it answers.
func startPostGraphile(dir, dsn string) (*postgraphile, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command("node", filepath.Join(dir, "node_modules", "postgraphile", "cli.js"),
		"--connection", dsn, "--schema", "rel", "--host", "127.0.0.1", "--port", strconv.Itoa(port),
		"--disable-default-mutations", "--disable-query-log")
	cmd.Stdout, cmd.Stderr = io.Discard, os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &postgraphile{base: "http://127.0.0.1:" + strconv.Itoa(port), cmd: cmd}
	body := []byte(`{"query":"{ __typename }"}`)
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		resp, err := http.Post(p.base+"/graphql", "application/json", bytes.NewReader(body))
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p, nil
			}
		}
	}
	p.stop()
	return nil, errors.New("postgraphile did not answer within 60s")
}

func (p *postgraphile) stop() {
	_ = p.cmd.Process.Signal(os.Interrupt)
	_ = p.cmd.Wait()
}
