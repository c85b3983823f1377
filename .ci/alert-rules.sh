#!/usr/bin/env bash
# Checks the Prometheus alerting rules of deploy/monitoring and runs their
# unit tests with promtool (Debian's prometheus package, installed here when
# missing). TestMonitoringMetricsExported (go test ./cmd/okrgate) checks that
# every metric they and the dashboard name is exported.
#
#   .ci/alert-rules.sh
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
