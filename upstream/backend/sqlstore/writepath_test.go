package sqlstore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/url"
	"sync"
	"testing"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore/sqlstoretest"
	"github.com/okrgate/okrgate/upstream/infra/observe"
)

// Upper bounds of the statements (SQLite, as the access log counts them:
// BEGIN included, COMMIT not) and round trips (PostgreSQL) of one write by
// a member on a key result or goal three levels deep, with owners and a
// team (docs/decisions/writes.md, "A write reads each fact once").
var writeBounds = []struct {
	name               string
	statements, rtrips int64 // SQLite statements; PostgreSQL round trips
}{
	{"check-in", 10, 6},
	{"create goal", 10, 6},
	{"update goal", 10, 6}, // a rename: its key result's copy is written too
	{"create key result", 10, 6},
	{"create task", 10, 6},
}

// TestWriteStatements: a write loads each fact once and sends what it can
// together. Counted three ways that must agree — the store's counters, the
// request's access-log record, and on PostgreSQL the turns of the
// conversation on the wire (a TCP proxy between the store and the server)
// — each write stays within its bound (writeBounds).
func TestWriteStatements(t *testing.T) {
	dsn := sqlstoretest.DSN(t)
	var wire *turnProxy
	if sqlstoretest.Postgres() {
		// One connection, so that every statement of the test goes
		// through the same one (already prepared) and the proxy.
		wire, dsn = proxyPostgres(t, dsn)
	}
	st, err := sqlstore.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	w := newWriteFixture(t, st)
	for _, b := range writeBounds {
		op, base := w.ops[b.name], w.member
		if b.name != "check-in" {
			base = w.admin
		}
		minTurns := int64(-1)
		for i := range 4 { // the first prepares the statements on the connection
			rec := &observe.Record{}
			n0, r0, t0 := st.QueryCount(), st.RoundTripCount(), wire.count()
			if err := op(observe.NewContext(base, rec)); err != nil {
				t.Fatalf("%s: %v", b.name, err)
			}
			n, r, turns := st.QueryCount()-n0, st.RoundTripCount()-r0, wire.count()-t0
			if rec.SQLStatements() != n || rec.SQLRoundTrips() != r {
				t.Errorf("%s: the access log counts %d statements, %d round trips; the store %d, %d",
					b.name, rec.SQLStatements(), rec.SQLRoundTrips(), n, r)
			}
			if i == 0 {
				continue
			}
			if sqlstoretest.Postgres() {
				if r > b.rtrips {
					t.Errorf("%s: %d round trips to PostgreSQL (%d statements), want at most %d", b.name, r, n, b.rtrips)
				}
				if minTurns < 0 || turns < minTurns {
					minTurns = turns
				}
				t.Logf("%s: %d statements in %d round trips", b.name, n, r)
				if i == 3 && minTurns != r {
					// A turn more than counted is the driver's ping of a
					// connection idle for over a second, so the least of
					// three is compared.
					t.Errorf("%s: %d turns on the wire, the store counts %d round trips", b.name, minTurns, r)
				}
			} else {
				if n > b.statements {
					t.Errorf("%s: %d SQL statements on SQLite, want at most %d", b.name, n, b.statements)
				}
				t.Logf("%s: %d statements, %d round trips with COMMIT", b.name, n, r)
			}
		}
	}
}

// writeFixture is an account with a member in a team, and a goal three
// levels deep with a key result owned by the member and the team.
type writeFixture struct {
	member, admin context.Context
	ops           map[string]func(ctx context.Context) error
}

func newWriteFixture(t *testing.T, st *sqlstore.Store) *writeFixture {
	t.Helper()
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	b, err := st.Bootstrap(ctx, sqlstore.BootstrapInput{AccountName: "W", Email: "admin@w.test"})
	must(err)
	ac, err := st.Authenticate(ctx, b.Token)
	must(err)
	admin := upstream.NewContext(ctx, ac)
	u, err := st.CreateUser(admin, sqlstore.UserInput{Email: "member@w.test", FirstName: "Mem", Role: upstream.RoleMember})
	must(err)
	tok, err := st.CreateUserToken(admin, u.ID)
	must(err)
	mc, err := st.Authenticate(ctx, tok.Token)
	must(err)
	team, err := st.CreateTeam(admin, sqlstore.TeamInput{Name: "Ops", Members: []string{u.ID}})
	must(err)
	ss, err := st.CreateSession(admin, upstream.SessionInput{Title: "Q1", Start: "2026-01-01", End: "2026-03-31"})
	must(err)
	parent := ""
	var g upstream.Goal
	for _, name := range []string{"root", "mid", "leaf"} {
		g, err = st.CreateGoal(admin, upstream.GoalInput{Name: name, SessionID: ss.ID, ParentID: parent, OwnerIDs: []string{u.ID}})
		must(err)
		parent = g.ID
	}
	target := 100.0
	m, err := st.CreateMetric(admin, upstream.MetricInput{Name: "kr", GoalID: g.ID, Target: &target, OwnerIDs: []string{u.ID, team.ID}})
	must(err)
	actual := 0.0
	n := 0
	name := func() string { n++; return fmt.Sprint("w", n) }
	return &writeFixture{member: upstream.NewContext(ctx, mc), admin: admin, ops: map[string]func(ctx context.Context) error{
		"create goal": func(ctx context.Context) error {
			_, err := st.CreateGoal(ctx, upstream.GoalInput{Name: name(), SessionID: ss.ID, ParentID: g.ID, OwnerIDs: []string{u.ID}})
			return err
		},
		"update goal": func(ctx context.Context) error {
			n := name()
			_, err := st.UpdateGoal(ctx, g.ID, upstream.GoalPatch{Name: &n})
			return err
		},
		"create key result": func(ctx context.Context) error {
			_, err := st.CreateMetric(ctx, upstream.MetricInput{Name: name(), GoalID: g.ID, Target: &target, OwnerIDs: []string{u.ID}})
			return err
		},
		"create task": func(ctx context.Context) error {
			_, err := st.CreateTask(ctx, upstream.TaskInput{Name: name(), ParentID: g.ID, ParentType: upstream.ParentGoal, OwnerID: u.ID})
			return err
		},
		"check-in": func(ctx context.Context) error {
			actual++
			_, err := st.CheckIn(ctx, m.ID, upstream.CheckInInput{Actual: &actual})
			return err
		},
	}}
}

// turnProxy forwards TCP connections to a server and counts the turns of
// their conversations: each time a client sends after the server has
// answered, which is one round trip.
type turnProxy struct {
	mu    sync.Mutex
	turns int64
}

func (p *turnProxy) count() int64 {
	if p == nil {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.turns
}

// proxyPostgres starts a turnProxy in front of the server of dsn and
// returns it with dsn pointed at it, on a pool of one connection.
func proxyPostgres(t *testing.T, dsn string) (*turnProxy, string) {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &turnProxy{}
	server := u.Host
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", server)
			if err != nil {
				c.Close()
				continue
			}
			wg.Add(2)
			answered := true // the client speaks first
			go func() {      // client → server
				defer wg.Done()
				defer s.Close()
				buf := make([]byte, 64<<10)
				for {
					n, err := c.Read(buf)
					if n > 0 {
						p.mu.Lock()
						if answered {
							p.turns++
							answered = false
						}
						p.mu.Unlock()
						if _, werr := s.Write(buf[:n]); werr != nil {
							return
						}
					}
					if err != nil {
						return
					}
				}
			}()
			go func() { // server → client
				defer wg.Done()
				defer c.Close()
				buf := make([]byte, 64<<10)
				for {
					n, err := s.Read(buf)
					if n > 0 {
						p.mu.Lock()
						answered = true
						p.mu.Unlock()
						if _, werr := c.Write(buf[:n]); werr != nil {
							return
						}
					}
					if err == io.EOF || err != nil {
						return
					}
				}
			}()
		}
	}()
	u.Host = ln.Addr().String()
	q := u.Query()
	q.Set("pool_max_conns", "1")
	u.RawQuery = q.Encode()
	return p, u.String()
}

// TestWriteAnswersAsRead: a goal, key-result or task write answers with
// the item as its stored facts make it, without reading it back
// (itemFacts); the answer must be what a GET right after it answers.
func TestWriteAnswersAsRead(t *testing.T) {
	st := sqlstoretest.Open(t)
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	b, err := st.Bootstrap(ctx, sqlstore.BootstrapInput{AccountName: "A", Email: "admin@a.test"})
	must(err)
	ac, err := st.Authenticate(ctx, b.Token)
	must(err)
	admin := upstream.NewContext(ctx, ac)
	u, err := st.CreateUser(admin, sqlstore.UserInput{Email: "member@a.test", FirstName: "Mem", Role: upstream.RoleMember})
	must(err)
	team, err := st.CreateTeam(admin, sqlstore.TeamInput{Name: "Ops", Members: []string{u.ID}})
	must(err)
	ss, err := st.CreateSession(admin, upstream.SessionInput{Title: "Q1", Start: "2026-01-01", End: "2026-03-31"})
	must(err)
	same := func(what string, wrote, read any) {
		t.Helper()
		w, _ := json.Marshal(wrote)
		r, _ := json.Marshal(read)
		if string(w) != string(r) {
			t.Errorf("%s answered\n%s\na read answers\n%s", what, w, r)
		}
	}
	root, err := st.CreateGoal(admin, upstream.GoalInput{Name: "root", SessionID: ss.ID})
	must(err)
	g, err := st.CreateGoal(admin, upstream.GoalInput{Name: "leaf", SessionID: ss.ID, ParentID: root.ID, OwnerIDs: []string{u.ID, team.ID}})
	must(err)
	read, err := st.GetGoal(admin, g.ID)
	must(err)
	same("a goal's create", g, read)
	target := 10.0
	m, err := st.CreateMetric(admin, upstream.MetricInput{Name: "kr", GoalID: g.ID, Target: &target, OwnerIDs: []string{team.ID}})
	must(err)
	readM, err := st.GetMetric(admin, m.ID)
	must(err)
	same("a key result's create", m, readM)
	for _, in := range []upstream.TaskInput{
		{Name: "on the goal", ParentID: g.ID, OwnerID: u.ID},
		{Name: "on the key result", ParentID: m.ID, ParentType: upstream.ParentMetric},
		{Name: "alone"},
	} {
		tk, err := st.CreateTask(admin, in)
		must(err)
		readT, err := st.GetTask(admin, tk.ID)
		must(err)
		same("a task's create ("+in.Name+")", tk, readT)
	}
	name, owner := "renamed", []string{u.ID}
	g, err = st.UpdateGoal(admin, g.ID, upstream.GoalPatch{Name: &name, OwnerIDs: &owner})
	must(err)
	read, err = st.GetGoal(admin, g.ID)
	must(err)
	same("a goal's rename", g, read)
	if len(g.Metrics) != 1 || g.Metrics[0].GoalName != name || g.TasksCount != 1 {
		t.Errorf("after the rename the goal has key results %+v and %d tasks; want its key result, named after it, and 1 task", g.Metrics, g.TasksCount)
	}
	g, err = st.UpdateGoal(admin, g.ID, upstream.GoalPatch{ParentID: new(string)})
	must(err)
	read, err = st.GetGoal(admin, g.ID)
	must(err)
	same("a goal's move to the roots", g, read)
}
