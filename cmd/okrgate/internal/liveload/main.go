// Command liveload measures live updates at scale: it starts okrgate serve
// on 127.0.0.1 (one replica on a fresh SQLite file, or several on a fresh
// PostgreSQL database), creates users in two visibility classes — members
// of a team that owns a private goal on a 6-deep chain of objectives, and
// viewers who may not read it — opens graphql-transport-ws connections for
// them, each subscribed to goalChanged(sessionId:), checks in at the key
// result of the chain's leaf several times, and reports the latency from
// each check-in's acknowledgement to each delivery (p50, p99, max), the
// updates delivered and expected, leaks (an update a subscriber may not
// read), and the server's RSS growth per subscriber. It bounds itself in
// time (--deadline) and exits 1 when an expected update is missing or
// anything leaks. docs/benchmarks/live-updates.md has its figures.
//
//	go build -o /tmp/okrgate ./cmd/okrgate
//	go run ./cmd/okrgate/internal/liveload --bin /tmp/okrgate --users 1000 --conns 10
//	go run ./cmd/okrgate/internal/liveload --bin /tmp/okrgate --users 1000 --conns 10 --replicas 2 \
//	    --postgres 'postgres://USER:PASS@127.0.0.1:5432/postgres?sslmode=disable'
//
// --profile DIR saves each server's CPU profile over the measured
// check-ins and its heap after them (profile.go), for go tool pprof.
//
// Every connection is a file descriptor here and one in a server: raise
// ulimit -n above the connection count.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/okrgate/okrgate/cmd/okrgate/internal/binary"
	"github.com/okrgate/okrgate/cmd/okrgate/internal/pgtemp"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "liveload:", err)
		os.Exit(1)
	}
}

type config struct {
	bin        string
	users      int
	conns      int
	checkins   int
	gap        time.Duration
	wait       time.Duration
	deadline   time.Duration
	replicas   int
	postgres   string
	serveFlags string
	profile    string
}

func run() error {
	var c config
	flag.StringVar(&c.bin, "bin", "", "the okrgate binary (go build -o /tmp/okrgate ./cmd/okrgate)")
	flag.IntVar(&c.users, "users", 100, "users (half team members, half viewers)")
	flag.IntVar(&c.conns, "conns", 10, "graphql-transport-ws connections per user, one subscription each")
	flag.IntVar(&c.checkins, "checkins", 5, "check-ins measured (after one that warms up)")
	flag.DurationVar(&c.gap, "gap", 1500*time.Millisecond, "pause between check-ins")
	flag.DurationVar(&c.wait, "wait", 20*time.Second, "longest wait for a check-in's updates")
	flag.DurationVar(&c.deadline, "deadline", 10*time.Minute, "the whole run stops after this")
	flag.IntVar(&c.replicas, "replicas", 1, "servers; more than one needs --postgres")
	flag.StringVar(&c.postgres, "postgres", "", "PostgreSQL URL of a role that may create databases: the run uses a fresh database and drops it")
	flag.StringVar(&c.serveFlags, "serve-flags", "--rate-limit off", "extra flags for okrgate serve")
	flag.StringVar(&c.profile, "profile", "", "a `dir` for each server's CPU profile over the measured check-ins and heap profile after them (okrgate serve --pprof)")
	flag.Parse()
	switch {
	case c.bin == "":
		return errors.New("--bin is required")
	case c.users < 2 || c.conns < 1 || c.checkins < 1:
		return errors.New("--users must be at least 2, --conns and --checkins at least 1")
	case c.replicas < 1 || c.replicas > 1 && c.postgres == "":
		return errors.New("--replicas above 1 needs --postgres")
	}
	raiseFileLimit()
	ctx, cancel := context.WithTimeout(context.Background(), c.deadline)
	defer cancel()

	db := ""
	if c.postgres != "" {
		url, drop, err := pgtemp.Create(ctx, c.postgres, fmt.Sprintf("liveload_%d", time.Now().UnixNano()))
		if err != nil {
			return err
		}
		defer func() {
			if err := drop(); err != nil {
				fmt.Fprintln(os.Stderr, "liveload:", err)
			}
		}()
		db = url
	} else {
		dir, err := os.MkdirTemp("", "liveload-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		db = filepath.Join(dir, "live.db")
	}
	out, err := exec.CommandContext(ctx, c.bin, "bootstrap", "--create", "--db", db, "--account", "Live", "--email", "admin@live.test", "--json").Output()
	if err != nil {
		return fmt.Errorf("bootstrap: %w", err)
	}
	var boot struct{ AccountID, Token string }
	if err := json.Unmarshal(out, &boot); err != nil {
		return fmt.Errorf("bootstrap output %q: %w", out, err)
	}
	var servers []*binary.Server
	defer func() {
		for _, s := range servers {
			s.Stop()
		}
	}()
	var prof *profiler
	if c.profile != "" {
		if err := os.MkdirAll(c.profile, 0o755); err != nil {
			return err
		}
		prof = &profiler{dir: c.profile}
	}
	for range c.replicas {
		flags := strings.Fields(c.serveFlags)
		if prof != nil {
			addr, err := freeAddr()
			if err != nil {
				return err
			}
			prof.addrs = append(prof.addrs, addr)
			flags = append(flags, "--metrics-addr", addr, "--pprof")
		}
		s, err := binary.Serve(c.bin, db, flags...)
		if err != nil {
			return err
		}
		servers = append(servers, s)
	}
	fmt.Fprintf(os.Stderr, "setting up %d users, a 6-deep chain with a private goal...\n", c.users)
	w, err := setUp(ctx, servers[0].Base, boot.AccountID, boot.Token, c.users)
	if err != nil {
		return err
	}
	rssBefore := rssOf(servers)
	n := c.users * c.conns
	fmt.Fprintf(os.Stderr, "opening %d connections on %d server(s)...\n", n, len(servers))
	subs, err := connect(ctx, w, servers, c.conns)
	if err != nil {
		return err
	}
	defer subs.close()
	// Warm up: check in until every subscriber receives a check-in (a
	// server still taking subscribe messages when the first comes misses
	// it for the late ones, rightly).
	fmt.Fprintln(os.Stderr, "warming up: a check-in every subscriber must receive...")
	k := 0
	for ; ; k++ {
		warm := w.checkIn(ctx, subs, k, c.wait)
		if warm.delivered == warm.expected {
			break
		}
		if k == 2 {
			return fmt.Errorf("warm-up: %d of %d updates delivered within %s", warm.delivered, warm.expected, c.wait)
		}
		time.Sleep(c.gap)
	}
	rssSubscribed := rssOf(servers)
	var profiled func() error
	if prof != nil {
		if err := prof.heap(ctx, "heap-before"); err != nil {
			return err
		}
		// Over the measured check-ins: their gaps and about a second each.
		profiled = prof.cpu(ctx, int((time.Duration(c.checkins) * (c.gap + time.Second)).Seconds()))
	}
	var rounds []round
	for i := 1; i <= c.checkins; i++ {
		k++
		time.Sleep(c.gap)
		load, cpu, own := loadAverage(), cpuOf(servers), cpuOfPid(os.Getpid())
		r := w.checkIn(ctx, subs, k, c.wait)
		r.k, r.load, r.cpu, r.clientCPU = i, load, cpuOf(servers)-cpu, cpuOfPid(os.Getpid())-own
		rounds = append(rounds, r)
		fmt.Fprintf(os.Stderr, "check-in %d: %d/%d delivered, p50 %s p99 %s\n", i, r.delivered, r.expected, r.p(0.50), r.p(0.99))
	}
	rssAfter := rssOf(servers)
	if prof != nil {
		if err := profiled(); err != nil {
			return err
		}
		if err := prof.heap(ctx, "heap"); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "profiles in %s: go tool pprof -top %s\n", c.profile, filepath.Join(c.profile, "cpu-0.pprof"))
	}
	leaks := subs.leaks()
	report(os.Stdout, c, n, rounds, leaks, rssBefore, rssSubscribed, rssAfter)
	for _, r := range rounds {
		if r.delivered != r.expected {
			return fmt.Errorf("check-in %d: %d of %d updates delivered", r.k, r.delivered, r.expected)
		}
	}
	if leaks > 0 {
		return fmt.Errorf("%d updates reached subscribers who may not read them", leaks)
	}
	return nil
}

// raiseFileLimit raises the soft limit of open files to the hard one.
func raiseFileLimit() {
	var l syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l) == nil && l.Cur < l.Max {
		l.Cur = l.Max
		_ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l)
	}
}

// rssOf returns the summed resident set of the servers, in bytes (a
// server whose status cannot be read counts as 0).
func rssOf(servers []*binary.Server) int64 {
	var total int64
	for _, s := range servers {
		if rss, err := binary.ProcStatus(s.Pid(), "VmRSS"); err == nil {
			total += rss
		}
	}
	return total
}

// cpuOf returns the CPU time the servers have used (user and system,
// /proc/PID/stat), in clock ticks of 10 ms.
func cpuOf(servers []*binary.Server) time.Duration {
	var total time.Duration
	for _, s := range servers {
		total += cpuOfPid(s.Pid())
	}
	return total
}

// cpuOfPid returns the CPU time process pid has used (user and system,
// /proc/PID/stat), in clock ticks of 10 ms; 0 when it cannot be read.
func cpuOfPid(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The fields after the command (which may hold spaces), from the 3rd.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) <= 12 {
		return 0
	}
	var utime, stime int64
	fmt.Sscan(f[11], &utime)
	fmt.Sscan(f[12], &stime)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// loadAverage is the 1-minute load average (/proc/loadavg), or "?".
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(b))[0]
}
