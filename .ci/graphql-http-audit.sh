#!/usr/bin/env bash
# Runs the GraphQL-over-HTTP audit suite (graphql-http, pinned in
# .ci/graphql-http-audit/package-lock.json) against the built binary on a
# free loopback port with a fresh database; fails unless every audit passes.
#
#   .ci/graphql-http-audit.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
cache=${OKRGATE_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/okrgate-ci}
mkdir -p "$cache"
go build -o "$cache/okrgate" ./cmd/okrgate
(cd .ci/graphql-http-audit && npm ci --no-audit --no-fund --silent)
OKRGATE_BIN="$cache/okrgate" node .ci/graphql-http-audit/audit.mjs
