package main

import (
	"bytes"
	"context"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goccy/go-yaml"
)

// fenced returns the bodies of the ```lang blocks of a Markdown text.
func fenced(doc, lang string) []string {
	var out []string
	for _, m := range regexp.MustCompile("(?ms)^```"+lang+"\n(.*?)^```$").FindAllStringSubmatch(doc, -1) {
		out = append(out, m[1])
	}
	return out
}

// serveEnv returns the variables serve reads its flags from (its -h).
func serveEnv(t *testing.T) map[string]bool {
	t.Helper()
	var out, errOut bytes.Buffer
	if code := run(context.Background(), "okrgate", []string{"serve", "-h"}, func(string) string { return "" }, &out, &errOut); code != 0 {
		t.Fatalf("serve -h: exit %d: %s", code, errOut.String())
	}
	env := map[string]bool{}
	for _, m := range regexp.MustCompile(`env (OKRGATE_[A-Z0-9_]+)`).FindAllStringSubmatch(out.String(), -1) {
		env[m[1]] = true
	}
	if len(env) < 20 {
		t.Fatalf("serve -h names only %d variables", len(env))
	}
	return env
}

// TestOperationsExamples: the systemd units and the Compose file of
// docs/operations.md parse, set only variables that are flags of serve, run
// a command that exists, give the server longer to stop than it takes to
// drain, and (Compose) point okrgate at the PostgreSQL service it defines,
// with that service's user, password and database.
func TestOperationsExamples(t *testing.T) {
	raw, err := os.ReadFile(operationsDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	env := serveEnv(t)
	units := fenced(doc, "ini")
	if len(units) < 2 {
		t.Fatalf("%s has %d systemd units, want the SQLite and the PostgreSQL one", operationsDoc, len(units))
	}
	for i, unit := range units {
		section := ""
		keys := map[string][]string{}
		for n, line := range strings.Split(unit, "\n") {
			line = strings.TrimSpace(line)
			switch {
			case line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";"):
				continue
			case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
				section = line
				continue
			}
			key, value, ok := strings.Cut(line, "=")
			if !ok || section == "" || strings.TrimSpace(key) != key {
				t.Errorf("unit %d, line %d: not a Key=Value line of a section: %q", i+1, n+1, line)
				continue
			}
			if strings.Contains(value, " #") {
				t.Errorf("unit %d, line %d: systemd takes %q as part of the value (no comments after a value)", i+1, n+1, line)
			}
			keys[section+key] = append(keys[section+key], value)
		}
		for _, e := range keys["[Service]Environment"] {
			if name, _, _ := strings.Cut(e, "="); !env[name] {
				t.Errorf("unit %d sets %s, which is no flag of serve", i+1, name)
			}
		}
		exec := strings.Fields(strings.Join(keys["[Service]ExecStart"], ""))
		if len(exec) < 2 || !strings.HasSuffix(exec[0], "/okrgate") || !slices.ContainsFunc(commands("okrgate"), func(c command) bool { return c.name == exec[1] && c.run != nil }) {
			t.Errorf("unit %d: ExecStart %q runs no okrgate command", i+1, exec)
		}
		stop, err := time.ParseDuration(strings.Join(keys["[Service]TimeoutStopSec"], "") + "s")
		if err != nil || stop <= shutdownGrace {
			t.Errorf("unit %d: TimeoutStopSec %v does not outlast the %v drain", i+1, keys["[Service]TimeoutStopSec"], shutdownGrace)
		}
		for _, want := range []string{"[Unit]Description", "[Service]User", "[Install]WantedBy"} {
			if len(keys[want]) == 0 {
				t.Errorf("unit %d lacks %s", i+1, want)
			}
		}
	}

	var compose struct {
		Services map[string]struct {
			Image       string
			Build       string
			Environment map[string]string
			DependsOn   map[string]struct{ Condition string } `yaml:"depends_on"`
			Healthcheck *struct {
				Test                       []string
				Interval, Timeout, Retries string
			}
			Ports, Volumes []string
			Restart        string
		}
		Volumes map[string]any
	}
	files := fenced(doc, "yaml")
	i := slices.IndexFunc(files, func(f string) bool { return strings.Contains(f, "services:") })
	if i < 0 {
		t.Fatalf("%s has no Compose file", operationsDoc)
	}
	if err := yaml.UnmarshalWithOptions([]byte(files[i]), &compose, yaml.Strict()); err != nil {
		t.Fatalf("the Compose file: %v", err)
	}
	pg, app := compose.Services["postgres"], compose.Services["okrgate"]
	if pg.Image == "" || app.Build == "" && app.Image == "" {
		t.Fatalf("the Compose file needs a postgres and an okrgate service: %+v", compose.Services)
	}
	for name := range app.Environment {
		if !env[name] {
			t.Errorf("the Compose file sets %s, which is no flag of serve", name)
		}
	}
	u, err := url.Parse(app.Environment["OKRGATE_DB"])
	if err != nil || !isServerDB(app.Environment["OKRGATE_DB"]) {
		t.Fatalf("OKRGATE_DB %q is not a PostgreSQL URL: %v", app.Environment["OKRGATE_DB"], err)
	}
	password, _ := u.User.Password()
	if u.Hostname() != "postgres" || u.User.Username() != pg.Environment["POSTGRES_USER"] ||
		password != pg.Environment["POSTGRES_PASSWORD"] || strings.TrimPrefix(u.Path, "/") != pg.Environment["POSTGRES_DB"] {
		t.Errorf("OKRGATE_DB %s does not name the postgres service's database, user and password %v", u.Redacted(), pg.Environment)
	}
	if app.DependsOn["postgres"].Condition != "service_healthy" || pg.Healthcheck == nil || len(pg.Healthcheck.Test) == 0 {
		t.Error("okrgate must wait for a healthy postgres service (depends_on condition and a healthcheck)")
	}
	_, port, _ := strings.Cut(app.Environment["OKRGATE_ADDR"], ":")
	if !slices.ContainsFunc(app.Ports, func(p string) bool { return strings.HasSuffix(p, ":"+port) }) {
		t.Errorf("the Compose file does not publish OKRGATE_ADDR's port %s: %v", port, app.Ports)
	}
}
