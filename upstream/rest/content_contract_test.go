package rest_test

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/okrgate/okrgate/upstream/rest"
)

// contractSpec finds shared/spec/okr-rest-api.md: the repository root is the
// first directory up from here with a go.mod; shared/ sits beside it (../shared)
// or, in some layouts, inside it.
func contractSpec(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("no go.mod above the test directory; cannot locate shared/spec/okr-rest-api.md")
		}
		dir = parent
	}
	for _, p := range []string{
		filepath.Join(dir, "..", "shared", "spec", "okr-rest-api.md"),
		filepath.Join(dir, "shared", "spec", "okr-rest-api.md"),
	} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	t.Skipf("the contract shared/spec/okr-rest-api.md is not next to the repository (%s/../shared); skipping the comparison", dir)
	return ""
}

var contractRowRE = regexp.MustCompile("^\\|\\s*(GET|POST|PUT|PATCH|DELETE)\\s*\\|\\s*`?(/api/[^|`\\s]+)`?\\s*\\|")

// contractEndpoints parses the Method | Path rows of the contract's endpoint
// tables, keyed by "METHOD shape" (path parameters' names erased).
func contractEndpoints(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := contractRowRE.FindStringSubmatch(strings.TrimSpace(sc.Text()))
		if m == nil {
			continue
		}
		out[m[1]+" "+rest.PathShape(m[2])] = m[1] + " " + m[2]
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRoutesMatchContract compares the route table with the contract's
// endpoint list: every documented operation is served; every served route
// that the contract does not list is marked Designed.
func TestRoutesMatchContract(t *testing.T) {
	eps := contractEndpoints(t, contractSpec(t))
	if len(eps) < 80 {
		t.Fatalf("parsed only %d endpoints from the contract; the table format changed?", len(eps))
	}
	served := map[string]rest.Route{}
	for _, rt := range rest.Routes() {
		served[rt.Method+" "+rest.PathShape(rt.Pattern)] = rt
	}
	for key, ep := range eps {
		rt, ok := served[key]
		if !ok {
			t.Errorf("contract operation %s is not served", ep)
			continue
		}
		if rt.Designed {
			t.Errorf("%s %s is in the contract but marked Designed", rt.Method, rt.Pattern)
		}
	}
	for key, rt := range served {
		if _, ok := eps[key]; !ok && !rt.Designed {
			t.Errorf("%s %s is served, not in the contract, and not marked Designed", rt.Method, rt.Pattern)
		}
	}
}
