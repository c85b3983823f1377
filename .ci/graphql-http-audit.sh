#!/usr/bin/env bash
# Runs the GraphQL-over-HTTP audit suite (graphql-http, pinned in
# .ci/graphql-http-audit/package-lock.json) against the built binary with the
# default flags on a free loopback port, on a fresh SQLite database and, when
# OKRGATE_TEST_POSTGRES names a PostgreSQL database, on a fresh schema of it
# too; fails unless every audit passes on each.
#
#   .ci/graphql-http-audit.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
cache=${OKRGATE_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/okrgate-ci}
mkdir -p "$cache"
go build -o "$cache/okrgate" ./cmd/okrgate
(cd .ci/graphql-http-audit && npm ci --no-audit --no-fund --silent)
echo "-- on SQLite"
OKRGATE_BIN="$cache/okrgate" node .ci/graphql-http-audit/audit.mjs
if [ -n "${OKRGATE_TEST_POSTGRES:-}" ]; then
  echo "-- on PostgreSQL"
  schema="okrgate_audit_$$"
  psql -q -v ON_ERROR_STOP=1 "$OKRGATE_TEST_POSTGRES" -c "CREATE SCHEMA $schema"
  trap 'PGOPTIONS=--client-min-messages=warning psql -q "$OKRGATE_TEST_POSTGRES" -c "DROP SCHEMA IF EXISTS $schema CASCADE"' EXIT
  sep='?'
  case "$OKRGATE_TEST_POSTGRES" in *\?*) sep='&' ;; esac
  OKRGATE_BIN="$cache/okrgate" OKRGATE_DB="${OKRGATE_TEST_POSTGRES}${sep}search_path=$schema" node .ci/graphql-http-audit/audit.mjs
fi
