package rest_test

import (
	"bufio"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/okrgate/okrgate/upstream/rest"
)

// contractSpecEnv names the Markdown file of the documented REST contract
// (its endpoint tables of Method | Path rows). The contract is not part of
// the repository: CI sets the variable where a copy is at hand.
const contractSpecEnv = "OKRGATE_CONTRACT_SPEC"

// contractSpec returns the contract's path, or skips the test, saying so,
// when none is given.
func contractSpec(t *testing.T) string {
	t.Helper()
	p := os.Getenv(contractSpecEnv)
	if p == "" {
		t.Skipf("%s is not set: no copy of the documented contract to compare the route table with", contractSpecEnv)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s: %v", contractSpecEnv, err)
	}
	return p
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
