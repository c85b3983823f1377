package rest_test

import (
	"bufio"
	"bytes"
	"flag"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/okrgate/okrgate/upstream/transport/rest"
)

// contractList is the repository's list of the documented contract's
// operations (METHOD PATH per line, # comments): what the route table is
// compared with on every run, a fresh clone included.
const contractList = "testdata/contract-operations.txt"

// contractSpecEnv names the Markdown file of the documented REST contract
// (its endpoint tables of Method | Path rows). The contract itself is not
// part of the repository: CI sets the variable where a copy is at hand,
// and TestContractListUpToDate then checks contractList against it.
const contractSpecEnv = "OKRGATE_CONTRACT_SPEC"

var updateContractList = flag.Bool("update", false, "rewrite "+contractList+" from the contract named by "+contractSpecEnv)

var contractRowRE = regexp.MustCompile("^\\|\\s*(GET|POST|PUT|PATCH|DELETE)\\s*\\|\\s*`?(/api/[^|`\\s]+)`?\\s*\\|")

// specOperations parses the Method | Path rows of the contract's endpoint
// tables, in their order, each once.
func specOperations(t *testing.T, path string) []string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%s: %v", contractSpecEnv, err)
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for sc.Scan() {
		m := contractRowRE.FindStringSubmatch(strings.TrimSpace(sc.Text()))
		if m != nil && !slices.Contains(out, m[1]+" "+m[2]) {
			out = append(out, m[1]+" "+m[2])
		}
	}
	return out
}

// listedOperations reads contractList: its operations in order, and its
// leading comment.
func listedOperations(t *testing.T) (ops []string, header string) {
	t.Helper()
	raw, err := os.ReadFile(contractList)
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(raw)) {
		switch l := strings.TrimSpace(line); {
		case strings.HasPrefix(l, "#"):
			header += line
		case l != "":
			ops = append(ops, l)
		}
	}
	return ops, header
}

// TestContractListUpToDate checks the repository's list of the contract's
// operations against a copy of the contract (skipping, saying so, when
// none is given), or rewrites it with -update.
func TestContractListUpToDate(t *testing.T) {
	spec := os.Getenv(contractSpecEnv)
	if spec == "" {
		t.Skipf("%s is not set: no copy of the documented contract to check %s against (TestRoutesMatchContract still compares the route table with the list)", contractSpecEnv, contractList)
	}
	want := specOperations(t, spec)
	if len(want) < 80 {
		t.Fatalf("parsed only %d operations from the contract; the table format changed?", len(want))
	}
	got, header := listedOperations(t)
	if *updateContractList {
		if err := os.WriteFile(contractList, []byte(header+strings.Join(want, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s differs from the contract (rerun with -update):\n got %q\nwant %q", contractList, got, want)
	}
}

// TestRoutesMatchContract compares the route table with the contract's
// operations: every documented operation is served; every served route
// that the contract does not list is marked Designed.
func TestRoutesMatchContract(t *testing.T) {
	ops, _ := listedOperations(t)
	if len(ops) < 80 {
		t.Fatalf("%s lists only %d operations", contractList, len(ops))
	}
	eps := map[string]string{}
	for _, op := range ops {
		method, path, ok := strings.Cut(op, " ")
		if !ok {
			t.Fatalf("%s: %q is not METHOD PATH", contractList, op)
		}
		eps[method+" "+rest.PathShape(path)] = op
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
