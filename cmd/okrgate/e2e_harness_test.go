package main_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/okrgate/okrgate/upstream/transport/rest/resttest"
)

// binary is the okrgate binary built once for the end-to-end tests.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "okrgate-e2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "okrgate")
	build := exec.Command("go", "build", "-o", binary, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building okrgate:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type bootResult struct {
	AccountID string `json:"accountId"`
	UserID    string `json:"userId"`
	Token     string `json:"token"`
}

func bootstrapDB(t *testing.T, db, account, email string) bootResult {
	t.Helper()
	out, err := exec.Command(binary, "bootstrap", "--create", "--db", db, "--account", account, "--email", email, "--json").Output()
	if err != nil {
		t.Fatalf("bootstrap: %v", err)
	}
	var r bootResult
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil || r.AccountID == "" || r.UserID == "" || !strings.HasPrefix(r.Token, "okr_") {
		t.Fatalf("bootstrap printed %q (%v)", out, err)
	}
	return r
}

// server is a running okrgate process.
type server struct {
	cmd     *exec.Cmd
	base    string
	metrics string // the URL of /metrics on the metrics listener
	logs    *logBuffer
	done    chan error
}

func startServer(t *testing.T, db string, extra ...string) *server {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"serve", "--db", db, "--addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0"}, extra...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	logs := &logBuffer{}
	cmd.Stderr = logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &server{cmd: cmd, logs: logs, done: make(chan error, 1)}
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		s.done <- cmd.Wait()
	}()
	deadline := time.After(30 * time.Second)
	for s.base == "" || s.metrics == "" {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("server exited before listening")
			}
			if rest, found := strings.CutPrefix(l, "okrgate listening on "); found {
				s.base = strings.Fields(rest)[0]
			}
			if rest, found := strings.CutPrefix(l, "okrgate metrics on "); found {
				s.metrics = strings.TrimSpace(rest)
			}
		case <-deadline:
			cmd.Process.Kill()
			t.Fatal("server did not report its address")
		}
	}
	go func() {
		for range lines {
		}
	}()
	t.Cleanup(func() { cmd.Process.Kill() })
	// Wait until /healthz answers.
	for i := 0; ; i++ {
		resp, err := http.Get(s.base + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if i > 100 {
			t.Fatal("healthz never answered 200")
		}
		time.Sleep(50 * time.Millisecond)
	}
	return s
}

// stop sends SIGTERM and requires a clean exit.
func (s *server) stop(t *testing.T) {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-s.done:
		if err != nil {
			t.Fatalf("server exited with %v after SIGTERM", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("server did not exit after SIGTERM")
	}
}

// client calls the REST API as one account; every response is validated
// against the OpenAPI document.
type client struct {
	t     *testing.T
	hc    *http.Client // carries a resttest.Conformance
	base  string
	token string
	acct  string
}

func (c client) do(method, path string, body any) (int, map[string]any, http.Header) {
	c.t.Helper()
	var rd io.Reader
	if body != nil {
		switch b := body.(type) {
		case string:
			rd = strings.NewReader(b)
		default:
			raw, _ := json.Marshal(b)
			rd = bytes.NewReader(raw)
		}
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		c.t.Fatal(err)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if c.acct != "" {
		req.Header.Set("service-accountId", c.acct)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &out); err != nil {
			c.t.Fatalf("%s %s: body is not a JSON object: %q", method, path, raw)
		}
	}
	if resp.StatusCode >= 400 {
		if ct := resp.Header.Get("Content-Type"); ct != "application/problem+json" {
			c.t.Errorf("%s %s: error content type %q", method, path, ct)
		}
		if out["code"] == nil || out["status"] == nil || out["title"] == nil {
			c.t.Errorf("%s %s: not a problem body: %q", method, path, raw)
		}
	}
	return resp.StatusCode, out, resp.Header
}

func (c client) must(method, path string, body any, want int) map[string]any {
	c.t.Helper()
	code, out, _ := c.do(method, path, body)
	if code != want {
		c.t.Fatalf("%s %s: status %d, want %d: %v", method, path, code, want, out)
	}
	return out
}

// conformingClient returns an HTTP client whose every REST response is
// validated against the OpenAPI document; the test fails if none was.
func conformingClient(t *testing.T) *http.Client {
	conf := resttest.New(t, nil)
	t.Cleanup(func() {
		if conf.Checked() == 0 {
			t.Error("no response was checked against the OpenAPI document")
		}
		t.Logf("%d responses conform to the OpenAPI document", conf.Checked())
	})
	return &http.Client{Transport: conf}
}

func num(v any) float64 { f, _ := v.(float64); return f }
