#!/usr/bin/env bash
# Checks the Prometheus alerting rules of deploy/monitoring and runs their
# unit tests with promtool (Debian's prometheus package, installed here when
# missing). TestMonitoringMetricsExported (go test ./cmd/okrgate) checks that
# every metric they and the dashboard name is exported.
#
#   .ci/alert-rules.sh
#
# Then TestAlertDatabaseUnreachableFires (cmd/okrgate) runs a live Prometheus
# on the shipped rules against the built binary while its database is cut off.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v promtool >/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends prometheus >/dev/null
fi
promtool --version 2>&1 | head -1
promtool check rules deploy/monitoring/alerts.yml
promtool test rules deploy/monitoring/alerts_test.yml
# The database-unreachable alert seen firing: a live Prometheus scraping the
# built binary while its PostgreSQL is cut off (about 40 s; the test skips,
# saying so, without prometheus or OKRGATE_TEST_POSTGRES).
if [ -n "${OKRGATE_TEST_POSTGRES:-}" ]; then
  go test ./cmd/okrgate -run '^TestAlertDatabaseUnreachableFires$' -count=1 -v
else
  echo "alert-rules: live alert test skipped: OKRGATE_TEST_POSTGRES is not set"
fi
