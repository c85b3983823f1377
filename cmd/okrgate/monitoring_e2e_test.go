package main_test

import (
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/okrgate/okrgate/upstream/backend/sqlstore/sqlstoretest"
)

// monitoringFiles are the alerting rules and the dashboard shipped in
// deploy/monitoring.
var monitoringFiles = []string{"alerts.yml", "alerts_test.yml", "grafana-dashboard.json"}

// metricName matches the metric names the rules and the dashboard query:
// the server's own, database/sql's pools, the Go runtime's and the
// process's.
var metricName = regexp.MustCompile(`\b(?:okrgate|go|process)_[a-z0-9_]*[a-z0-9]\b`)

// TestMonitoringMetricsExported: every metric the alerting rules, their
// unit tests and the Grafana dashboard of deploy/monitoring name is one
// the built binary exports on /metrics — scraped from a server on SQLite,
// one on PostgreSQL (with OKRGATE_TEST_POSTGRES; the pool metrics are
// PostgreSQL's) and a gateway over the first (its circuit breaker).
func TestMonitoringMetricsExported(t *testing.T) {
	// A built binary and a database of its own; mostly waiting on them.
	t.Parallel()
	db := filepath.Join(t.TempDir(), "store.db")
	boot := bootstrapDB(t, db, "Acme", "admin@acme.test")
	sqlite := startServer(t, db)
	servers := []*server{sqlite, startServer(t, filepath.Join(t.TempDir(), "unused.db"), "--upstream", sqlite.base)}
	postgres := os.Getenv(sqlstoretest.EnvPostgres) != ""
	if postgres {
		dsn := sqlstoretest.PostgresURL(t)
		bootstrapDB(t, dsn, "Acme", "admin@acme.test")
		servers = append(servers, startServer(t, dsn))
	}
	// A GraphQL operation: its counters have a series per operation name.
	if st, body := gql(t, sqlite.base, boot.Token, `query Sessions { sessions(first: 1) { totalCount } }`, nil); st != http.StatusOK {
		t.Fatalf("GraphQL: %d %s", st, body)
	}
	exported := map[string]bool{}
	for _, s := range servers {
		for name := range scrape(t, s.metrics) {
			exported[name] = true
		}
	}

	named := 0
	for _, f := range monitoringFiles {
		b, err := os.ReadFile(filepath.Join("..", "..", "deploy", "monitoring", f))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range slices.Compact(slices.Sorted(slices.Values(metricName.FindAllString(string(b), -1)))) {
			named++
			if exported[name] || exported[family(name)] {
				continue
			}
			if !postgres && (strings.HasPrefix(name, "okrgate_db_pool_") || strings.HasPrefix(name, "okrgate_db_write_retries_")) {
				t.Logf("%s: %s is PostgreSQL's; not checked without %s", f, name, sqlstoretest.EnvPostgres)
				continue
			}
			t.Errorf("%s names %s, which /metrics does not export", f, name)
		}
	}
	if named < 20 {
		t.Errorf("only %d metric names found in deploy/monitoring: the pattern no longer matches", named)
	}
}

// family is the metric family of a series name: a histogram's or summary's
// _bucket, _sum and _count series belong to the family without them.
func family(series string) string {
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		if f, ok := strings.CutSuffix(series, suffix); ok {
			return f
		}
	}
	return series
}

// scrape returns the metric families of the /metrics at url by name.
func scrape(t *testing.T, url string) map[string]bool {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for name := range families {
		out[name] = true
	}
	return out
}
