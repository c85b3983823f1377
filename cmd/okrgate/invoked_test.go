package main

import "testing"

// TestInvokedAs: the command okrgate suggests runs the same binary again: go
// run's cached build is "go run ./cmd/okrgate", other paths are kept and
// quoted for a shell when they must be.
func TestInvokedAs(t *testing.T) {
	for arg0, want := range map[string]string{
		"/tmp/go-build2736/b001/exe/okrgate": "go run ./cmd/okrgate",
		"okrgate":                            "okrgate",
		"./okrgate":                          "./okrgate",
		"/usr/local/bin/okrgate":             "/usr/local/bin/okrgate",
		"/opt/my tools/okrgate":              "'/opt/my tools/okrgate'",
		"/opt/it's/okrgate":                  `'/opt/it'\''s/okrgate'`,
		"":                                   "okrgate",
	} {
		if got := invokedAs(arg0); got != want {
			t.Errorf("invokedAs(%q) = %q, want %q", arg0, got, want)
		}
	}
}
