// Package binary drives a built okrgate binary for the measurement programs
// (loadtest, treebench): a fresh seeded database, and okrgate serve on a
// free loopback port.
package binary

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// Account is a bootstrapped account: its id and an admin token.
type Account struct{ AccountID, Token string }

// Seed creates the database db (okrgate bootstrap --create) and fills it with
// goals synthetic objectives (okrgate seed --seed seed), writing seed's
// progress to progress (nil: discarded).
func Seed(bin, db string, goals, seed int, progress io.Writer) (Account, error) {
	var a Account
	out, err := exec.Command(bin, "bootstrap", "--create", "--db", db, "--account", "Bench", "--email", "bench@bench.test", "--json").Output()
	if err != nil {
		return a, fmt.Errorf("bootstrap: %w", err)
	}
	if err := json.Unmarshal(out, &a); err != nil {
		return a, fmt.Errorf("bootstrap output %q: %w", out, err)
	}
	cmd := exec.Command(bin, "seed", "--db", db, "--account", a.AccountID, "--goals", strconv.Itoa(goals), "--seed", strconv.Itoa(seed))
	cmd.Stderr = progress
	if out, err := cmd.Output(); err != nil {
		return a, fmt.Errorf("seed: %w: %s", err, out)
	}
	return a, nil
}

// Server is a running okrgate serve.
type Server struct {
	Base string // http://127.0.0.1:port
	cmd  *exec.Cmd
}

// Serve starts okrgate serve on db at 127.0.0.1:0 with the extra flags and
// returns once it listens. Stop it with Stop.
func Serve(bin, db string, flags ...string) (*Server, error) {
	return ServeEnv(bin, db, nil, flags...)
}

// ServeEnv is Serve with env added to the server's environment: settings
// given as OKRGATE_* variables, which a binary built before the setting
// existed ignores, where a flag would stop it.
func ServeEnv(bin, db string, env []string, flags ...string) (*Server, error) {
	cmd := exec.Command(bin, append([]string{"serve", "--db", db, "--addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0"}, flags...)...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &Server{cmd: cmd}
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "okrgate listening on "); ok {
			s.Base = strings.Fields(rest)[0]
			go func() { _, _ = io.Copy(io.Discard, stdout) }()
			return s, nil
		}
	}
	s.Stop()
	return nil, errors.New("serve exited before listening")
}

// Pid is the server's process id.
func (s *Server) Pid() int { return s.cmd.Process.Pid }

// PeakRSS is the server's peak resident set size so far (VmHWM), in bytes.
func (s *Server) PeakRSS() (int64, error) { return ProcStatus(s.Pid(), "VmHWM") }

// ProcStatus is a size field (in kB) of /proc/PID/status, such as VmRSS or
// VmHWM, in bytes.
func ProcStatus(pid int, field string) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10, err
		}
	}
	return 0, errors.New("no " + field + " in /proc status")
}

// Stop kills the server and waits for it.
func (s *Server) Stop() {
	_ = s.cmd.Process.Signal(os.Kill)
	_ = s.cmd.Wait()
}
