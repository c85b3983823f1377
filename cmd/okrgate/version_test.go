package main

import (
	"strings"
	"testing"
)

// TestVersionFromLinkFlags: a build without version control information
// that sets -X main.linkVersion and -X main.linkCommit reports them, not
// "(devel)" and "unknown commit".
func TestVersionFromLinkFlags(t *testing.T) {
	oldV, oldC := linkVersion, linkCommit
	t.Cleanup(func() { linkVersion, linkCommit = oldV, oldC })
	linkVersion, linkCommit = "v1.4.0", "0123abc"
	var b strings.Builder
	version(&b)
	if !strings.HasPrefix(b.String(), "okrgate v1.4.0 (commit 0123abc) go") {
		t.Errorf("version = %q", b.String())
	}
}
