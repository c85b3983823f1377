package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestFlagsFromEnvironment: a variable sets a flag not on the command
// line, the command line wins, a bad variable is a usage error naming it.
func TestFlagsFromEnvironment(t *testing.T) {
	env := map[string]string{"OKRGATE_DB": "env.db", "OKRGATE_GOALS": "7", "OKRGATE_JSON": "true", "OKRGATE_TOKEN_TTL": "2d"}
	getenv := func(k string) string { return env[k] }
	fs := newFlags("x", "okrgate x", "does x")
	db := fs.String("db", "okrgate.db", "database")
	goals := fs.Int("goals", 100, "objectives")
	asJSON := fs.Bool("json", false, "JSON")
	guard := addGuardFlags(fs.FlagSet)
	var stdout, stderr bytes.Buffer
	if err := fs.parse([]string{"--db", "flag.db"}, getenv, &stdout, &stderr); err != nil {
		t.Fatalf("parse: %v: %s", err, stderr.String())
	}
	if *db != "flag.db" || *goals != 7 || !*asJSON || guard.tokens.DefaultTTL != 48*time.Hour {
		t.Errorf("db %q goals %d json %v ttl %v", *db, *goals, *asJSON, guard.tokens.DefaultTTL)
	}

	env["OKRGATE_GOALS"] = "many"
	fs = newFlags("x", "okrgate x", "does x")
	fs.Int("goals", 100, "objectives")
	stderr.Reset()
	if err := fs.parse(nil, getenv, &stdout, &stderr); !errors.Is(err, errUsage) || !strings.Contains(stderr.String(), "OKRGATE_GOALS") {
		t.Errorf("bad variable: %v: %q", err, stderr.String())
	}
}

// TestFlagsHelp: -h prints the synopsis, the description and each flag
// with its default and variable to stdout, nothing to stderr.
func TestFlagsHelp(t *testing.T) {
	fs := newFlags("backup-all", "okrgate backup-all --to DIR", "Copies everything.")
	fs.String("to", "", "target `dir`")
	fs.Int("max-files", 10, "at most this many")
	var stdout, stderr bytes.Buffer
	if err := fs.parse([]string{"-h"}, func(string) string { return "" }, &stdout, &stderr); !errors.Is(err, errHelp) || stderr.Len() > 0 {
		t.Fatalf("-h: %v, stderr %q", err, stderr.String())
	}
	for _, want := range []string{"usage: okrgate backup-all --to DIR", "Copies everything.", "--to dir", "(env OKRGATE_TO)", "--max-files int", "(default 10; env OKRGATE_MAX_FILES)"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("help lacks %q:\n%s", want, stdout.String())
		}
	}
}
