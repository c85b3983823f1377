package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the generated flag reference of docs/flags.md")

// opsDoc is the flag reference, which is
// generated from the flags.
const opsDoc = "../../docs/flags.md"

// operationsDoc is the operations guide, whose systemd units and Compose
// file TestOperationsExamples runs.
const operationsDoc = "../../docs/operations.md"

const (
	beginFlags = "<!-- BEGIN FLAGS: generated from okrgate COMMAND -h by go test ./cmd/okrgate -run TestOperationsFlagReference -update -->"
	endFlags   = "<!-- END FLAGS -->"
)

// hereN is the machine-dependent part of a default ("2 per processor, here 4").
var hereN = regexp.MustCompile(`here \d+`)

// flagReference renders every subcommand's -h, the text an operator sees.
func flagReference(t *testing.T) string {
	var b strings.Builder
	for _, c := range commands("okrgate") {
		if c.run == nil {
			continue
		}
		args := []string{c.name, "-h"}
		title := "okrgate " + c.name
		if c.name == "token" {
			args, title = []string{"token", "create", "-h"}, "okrgate token create"
		}
		var out, errOut bytes.Buffer
		if code := run(context.Background(), "okrgate", args, func(string) string { return "" }, &out, &errOut); code != 0 {
			t.Fatalf("okrgate %v: exit %d: %s", args, code, errOut.String())
		}
		fmt.Fprintf(&b, "\n### %s\n\n```text\n%s```\n", title, hereN.ReplaceAllString(out.String(), "here N"))
	}
	return b.String() + "\n"
}

// TestOperationsFlagReference: the configuration reference of
// docs/flags.md is every subcommand's -h, so it names every flag and
// its variable; -update rewrites it.
func TestOperationsFlagReference(t *testing.T) {
	doc, err := os.ReadFile(opsDoc)
	if err != nil {
		t.Fatal(err)
	}
	s := string(doc)
	i, j := strings.Index(s, beginFlags), strings.Index(s, endFlags)
	if i < 0 || j < i {
		t.Fatalf("%s lacks the markers %q ... %q", opsDoc, beginFlags, endFlags)
	}
	want := s[:i+len(beginFlags)] + "\n" + flagReference(t) + s[j:]
	if want == s {
		return
	}
	if *update {
		if err := os.WriteFile(opsDoc, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("the flag reference of %s is stale: run go test ./cmd/okrgate -run TestOperationsFlagReference -update", opsDoc)
}
