package main_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// runBinary runs the built okrgate with args, in dir when it is not empty,
// with the environment of the test (which sets no OKRGATE_* flag variable)
// plus env, and returns its stdout, stderr and exit code.
func runBinary(t *testing.T, dir string, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		code = exit.ExitCode()
	default:
		t.Fatalf("okrgate %v: %v", args, err)
	}
	return out.String(), errOut.String(), code
}

// TestHelp: okrgate alone, help, -h and --help list every subcommand on
// stdout and exit 0.
func TestHelp(t *testing.T) {
	for _, args := range [][]string{{}, {"help"}, {"-h"}, {"--help"}} {
		out, errOut, code := runBinary(t, "", nil, args...)
		if code != 0 || errOut != "" {
			t.Errorf("okrgate %v: exit %d, stderr %q", args, code, errOut)
		}
		for _, cmd := range []string{"serve", "bootstrap", "seed", "token", "account", "backup", "version", "GraphQL"} {
			if !strings.Contains(out, cmd) {
				t.Errorf("okrgate %v does not mention %s:\n%s", args, cmd, out)
			}
		}
	}
	// help COMMAND is COMMAND -h.
	if out, _, code := runBinary(t, "", nil, "help", "backup"); code != 0 || !strings.HasPrefix(out, "usage: okrgate backup") {
		t.Errorf("okrgate help backup: exit %d: %q", code, out)
	}
}

// TestSubcommandHelp: "okrgate CMD -h" prints its description and every flag
// with its variable on stdout and exits 0.
func TestSubcommandHelp(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		flags []string
	}{
		{[]string{"serve", "-h"}, []string{"--addr", "OKRGATE_ADDR", "--db", "OKRGATE_DB", "--rate-limit", "OKRGATE_RATE_LIMIT", "--graphql-max-depth", "OKRGATE_GRAPHQL_MAX_DEPTH", "default 127.0.0.1:8080"}},
		{[]string{"bootstrap", "--help"}, []string{"--create", "--account", "--email", "--json", "OKRGATE_DB", "default okrgate.db"}},
		{[]string{"seed", "-h"}, []string{"--account", "--goals", "--seed", "OKRGATE_GOALS"}},
		{[]string{"token", "-h"}, []string{"create", "--user", "--account", "--expires-in", "--read-only", "OKRGATE_USER"}},
		{[]string{"token", "create", "-h"}, []string{"--user", "--name", "OKRGATE_NAME"}},
		{[]string{"account", "-h"}, []string{"suspend", "resume", "--id", "OKRGATE_ID"}},
		{[]string{"account", "resume", "-h"}, []string{"--id", "OKRGATE_ID"}},
		{[]string{"backup", "-h"}, []string{"--db", "--to", "OKRGATE_TO"}},
		{[]string{"version", "-h"}, []string{"version"}},
	} {
		out, errOut, code := runBinary(t, "", nil, tc.args...)
		if code != 0 || errOut != "" || !strings.HasPrefix(out, "usage: okrgate "+tc.args[0]) {
			t.Errorf("okrgate %v: exit %d, stderr %q, stdout %q", tc.args, code, errOut, out)
		}
		for _, want := range tc.flags {
			if !strings.Contains(out, want) {
				t.Errorf("okrgate %v does not mention %s:\n%s", tc.args, want, out)
			}
		}
	}
}

// TestVersion: --version and version print one line naming the version and
// the commit (unknown in builds without version control information).
func TestVersion(t *testing.T) {
	line := regexp.MustCompile(`^okrgate \S+ \((commit [0-9a-f]+.*|unknown commit)\) go\S+ \S+/\S+\n$`)
	for _, args := range [][]string{{"--version"}, {"version"}} {
		out, _, code := runBinary(t, "", nil, args...)
		if code != 0 || !line.MatchString(out) {
			t.Errorf("okrgate %v: exit %d: %q", args, code, out)
		}
	}
}

// TestUsageErrors: an unknown command, a bad flag, a missing required flag
// or a bad variable is reported on stderr with exit 2.
func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		env  []string
		args []string
	}{
		{nil, []string{"nope"}},
		{nil, []string{"--bogus"}},
		{nil, []string{"serve", "--bogus"}},
		{nil, []string{"backup", "--db", "x.db"}},
		{nil, []string{"account", "freeze"}},
		{nil, []string{"token", "create", "--db", "x.db"}},
		{nil, []string{"bootstrap"}},
		{[]string{"OKRGATE_GOALS=many"}, []string{"seed", "--account", "a"}},
		{[]string{"OKRGATE_RATE_LIMIT=lots"}, []string{"serve"}},
	} {
		out, errOut, code := runBinary(t, dir, tc.env, tc.args...)
		if code != 2 || errOut == "" || out != "" {
			t.Errorf("%v okrgate %v: exit %d, stderr %q, stdout %q; want 2 and a message on stderr", tc.env, tc.args, code, errOut, out)
		}
	}
	assertEmpty(t, dir)
}

// TestMissingDatabase: the administrative commands refuse a --db file that
// does not exist, and create nothing.
func TestMissingDatabase(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "typo.db")
	id := "000000000000000000000000"
	for _, args := range [][]string{
		{"bootstrap", "--db", missing, "--account", "A", "--email", "a@x.test"},
		{"seed", "--db", missing, "--account", id},
		{"backup", "--db", missing, "--to", filepath.Join(dir, "copy.db")},
		{"account", "suspend", "--db", missing, "--id", id},
		{"token", "create", "--db", missing, "--user", id},
	} {
		_, errOut, code := runBinary(t, dir, nil, args...)
		if code != 1 || !strings.Contains(errOut, "typo.db does not exist") {
			t.Errorf("okrgate %v: exit %d, stderr %q", args, code, errOut)
		}
	}
	// Without --db, in an empty directory: okrgate.db is not made either.
	if _, _, code := runBinary(t, dir, nil, "bootstrap", "--account", "A", "--email", "a@x.test"); code != 1 {
		t.Errorf("bootstrap without a database: exit %d", code)
	}
	// --create makes a new file, but not when bootstrapping fails.
	if _, _, code := runBinary(t, dir, nil, "bootstrap", "--create", "--db", missing, "--account", "A", "--email", "not-an-email"); code != 1 {
		t.Errorf("bootstrap --create with a bad email: exit %d", code)
	}
	assertEmpty(t, dir)
}

func assertEmpty(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("%s was created", e.Name())
	}
}

// TestEnvironment: every subcommand takes its flags from OKRGATE_*
// variables, and a flag wins over its variable.
func TestEnvironment(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "env.db")
	env := []string{"OKRGATE_DB=" + db}
	out, errOut, code := runBinary(t, dir, append(env, "OKRGATE_CREATE=true", "OKRGATE_ACCOUNT=Acme", "OKRGATE_EMAIL=ann@acme.test", "OKRGATE_JSON=true"), "bootstrap")
	var boot bootResult
	if code != 0 || json.Unmarshal([]byte(out), &boot) != nil || boot.AccountID == "" {
		t.Fatalf("bootstrap from the environment: exit %d: %s %s", code, out, errOut)
	}
	check := func(want string, env []string, args ...string) {
		t.Helper()
		out, errOut, code := runBinary(t, dir, env, args...)
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("%v okrgate %v: exit %d: %s %s", env, args, code, out, errOut)
		}
	}
	check(`"goals":2`, append(env, "OKRGATE_ACCOUNT="+boot.AccountID, "OKRGATE_GOALS=2"), "seed")
	check("okr_", append(env, "OKRGATE_USER="+boot.UserID), "token", "create")
	check("suspended", append(env, "OKRGATE_ID="+boot.AccountID), "account", "suspend")
	check("active", append(env, "OKRGATE_ID="+boot.AccountID), "account", "resume")
	check("backed up", append(env, "OKRGATE_TO="+filepath.Join(dir, "copy.db")), "backup")
	// The flag wins: the variable names a file that does not exist.
	check("backed up", []string{"OKRGATE_DB=" + filepath.Join(dir, "typo.db")}, "backup", "--db", db, "--to", filepath.Join(dir, "copy2.db"))
	if _, err := os.Stat(filepath.Join(dir, "typo.db")); err == nil {
		t.Error("typo.db was created")
	}
}

// TestTokenCreate: token create mints a token for an existing user that
// authenticates against a server on the same database, read-write or
// read-only; by --account it acts as the account's owner.
func TestTokenCreate(t *testing.T) {
	hc := conformingClient(t)
	db := filepath.Join(t.TempDir(), "token.db")
	boot := bootstrapDB(t, db, "Acme", "admin@acme.test")
	srv := startServer(t, db)
	defer srv.stop(t)

	var tok struct {
		AccountID string   `json:"accountId"`
		UserID    string   `json:"userId"`
		Name      string   `json:"name"`
		Token     string   `json:"token"`
		Scopes    []string `json:"scopes"`
	}
	out, errOut, code := runBinary(t, "", nil, "token", "create", "--db", db, "--user", boot.UserID, "--name", "recovered", "--expires-in", "7d", "--json")
	if code != 0 || json.Unmarshal([]byte(out), &tok) != nil || !strings.HasPrefix(tok.Token, "okr_") ||
		tok.AccountID != boot.AccountID || tok.UserID != boot.UserID || tok.Name != "recovered" {
		t.Fatalf("token create: exit %d: %s %s", code, out, errOut)
	}
	c := client{t: t, hc: hc, base: srv.base, token: tok.Token, acct: boot.AccountID}
	c.must("GET", "/api/v2/users/me/tokens", nil, 200)
	c.must("POST", "/api/v1/sessions", map[string]any{"title": "Q1", "start": "2027-01-01", "end": "2027-03-31"}, 201)

	out, errOut, code = runBinary(t, "", nil, "token", "create", "--db", db, "--account", boot.AccountID, "--read-only", "--json")
	if code != 0 || json.Unmarshal([]byte(out), &tok) != nil || tok.UserID != boot.UserID || len(tok.Scopes) != 1 || tok.Scopes[0] != "read" {
		t.Fatalf("token create --account --read-only: exit %d: %s %s", code, out, errOut)
	}
	ro := client{t: t, hc: hc, base: srv.base, token: tok.Token, acct: boot.AccountID}
	ro.must("GET", "/api/v2/sessions", nil, 200)
	ro.must("POST", "/api/v1/sessions", map[string]any{"title": "Q2", "start": "2027-04-01", "end": "2027-06-30"}, 403)

	if _, errOut, code := runBinary(t, "", nil, "token", "create", "--db", db, "--user", "000000000000000000000000"); code != 1 || !strings.Contains(errOut, "not found") {
		t.Errorf("token create for an unknown user: exit %d: %s", code, errOut)
	}
}
