package main_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// serveDemo runs the built binary's serve --demo on db, reads its stdout
// until the line that starts with last, and returns the lines read. The
// server keeps running until stop is called.
func serveDemo(t *testing.T, db, last string) (lines []string, stop func()) {
	t.Helper()
	cmd := exec.Command(binary, "serve", "--demo", "--db", db, "--addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan []string, 1)
	go func() {
		var got []string
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			got = append(got, sc.Text())
			if strings.HasPrefix(sc.Text(), last) {
				break
			}
		}
		done <- got
		for sc.Scan() {
		}
	}()
	select {
	case lines = <-done:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("serve --demo printed no line starting with %q", last)
	}
	stop = sync.OnceFunc(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		if err := cmd.Wait(); err != nil {
			t.Errorf("serve --demo after SIGTERM: %v", err)
		}
	})
	if len(lines) == 0 || !strings.HasPrefix(lines[len(lines)-1], last) {
		stop()
		t.Fatalf("serve --demo exited before printing %q: %q", last, lines)
	}
	return lines, stop
}

// field returns what follows prefix on the first of lines that starts with it.
func field(t *testing.T, lines []string, prefix string) string {
	t.Helper()
	for _, l := range lines {
		if rest, ok := strings.CutPrefix(l, prefix); ok {
			return strings.TrimSpace(rest)
		}
	}
	t.Fatalf("no line starts with %q: %q", prefix, lines)
	return ""
}

// shell runs a command line as a person pasting it would, in sh.
func shell(t *testing.T, line string) string {
	t.Helper()
	out, err := exec.Command("sh", "-c", line).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v: %s", line, err, out)
	}
	return string(out)
}

// TestDemoTokenLost: serve --demo on a database it seeded before prints a
// command that, pasted into a shell, mints a new admin token for the demo
// account; the token works on the running server. okrgate account list
// names the account; on a database without the demo account serve --demo
// prints the listing's command instead, and that command runs.
func TestDemoTokenLost(t *testing.T) {
	hc := conformingClient(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "demo.db")
	lines, stop := serveDemo(t, db, "demo admin token:")
	acct := field(t, lines, "demo account:")
	stop()

	lines, stop = serveDemo(t, db, "A new admin token for it:")
	defer stop()
	if got := field(t, lines, "demo account:"); got != acct {
		t.Errorf("restart names account %q, the demo's is %q", got, acct)
	}
	command := field(t, lines, "A new admin token for it:")
	if want := binary + " token create --db " + db + " --account " + acct; command != want {
		t.Errorf("printed %q, want %q", command, want)
	}
	token := strings.Fields(field(t, strings.Split(shell(t, command), "\n"), "token"))[0]
	base := strings.Fields(field(t, lines, "okrgate listening on"))[0]
	c := client{t: t, hc: hc, base: base, token: token, acct: acct}
	if n := num(c.must("GET", "/api/v2/sessions", nil, 200)["totalCount"]); n != 2 {
		t.Errorf("the new token sees %v sessions of the demo, want 2", n)
	}
	me := c.must("GET", "/api/v2/users/me", nil, 200)
	if u, _ := me["user"].(map[string]any); u["email"] != "admin@demo.test" || !strings.Contains(fmt.Sprint(me["roles"]), "admin") {
		t.Errorf("the new token acts as %v, want the demo's admin", me)
	}

	// account list: the table and JSON.
	other := bootstrapDB(t, db, "Acme", "admin@acme.test")
	table := shell(t, binary+" account list --db "+db)
	rows := strings.Split(strings.TrimSpace(table), "\n")
	if len(rows) != 3 || !strings.HasPrefix(rows[0], "ID") || !strings.Contains(rows[1], acct) ||
		!strings.Contains(rows[1], "Demo Company") || !strings.Contains(rows[2], other.AccountID) || !strings.Contains(rows[2], "Acme") {
		t.Errorf("account list:\n%s", table)
	}
	var listed []struct {
		ID, Name, DateCreated, OwnerID string
		IsActive                       bool
	}
	if err := json.Unmarshal([]byte(shell(t, binary+" account list --json --db "+db)), &listed); err != nil || len(listed) != 2 {
		t.Fatalf("account list --json: %v %v", err, listed)
	}
	if l := listed[1]; l.ID != other.AccountID || l.Name != "Acme" || l.OwnerID != other.UserID || !l.IsActive ||
		!strings.HasPrefix(l.DateCreated, "20") || listed[0].ID != acct {
		t.Errorf("account list --json: %+v", listed)
	}
	stop()

	// A database without the demo account: the listing's command.
	plain := filepath.Join(dir, "plain.db")
	acme := bootstrapDB(t, plain, "Acme", "admin@acme.test")
	lines, stop = serveDemo(t, plain, "A new admin token for one:")
	defer stop()
	command = field(t, lines, "Its accounts:")
	if want := binary + " account list --db " + plain; command != want {
		t.Errorf("printed %q, want %q", command, want)
	}
	if out := shell(t, command); !strings.Contains(out, acme.AccountID) {
		t.Errorf("%s:\n%s", command, out)
	}
	if got := field(t, lines, "A new admin token for one:"); !strings.Contains(got, " token create --db "+plain+" --account ACCOUNT_ID") {
		t.Errorf("printed %q", got)
	}
}
