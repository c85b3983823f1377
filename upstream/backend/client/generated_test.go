package client_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGeneratedInSync regenerates the client's methods of the route table
// (upstream/backend/client/gen) and compares them with the committed api_gen.go:
// a route given an Operation, a changed signature of upstream.API or a
// method added to it without a route or a reason to be written by hand
// fails here until go generate ./upstream/backend/client runs.
func TestGeneratedInSync(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the generator")
	}
	out := filepath.Join(t.TempDir(), "api_gen.go")
	cmd := exec.Command("go", "run", "./gen", "-o", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run ./gen: %v\n%s", err, b)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("api_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("api_gen.go is stale: run go generate ./upstream/backend/client")
	}
}
