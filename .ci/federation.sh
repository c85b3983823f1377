#!/usr/bin/env bash
# Composes okrgate's subgraph schema with @apollo/composition and
# @theguild/federation-composition and runs queries through Apollo Gateway
# in front of the built binary (serve --federation) on loopback, on a fresh
# SQLite database; fails unless both compose and every answer through the
# gateway equals okrgate's direct one (.ci/federation/federation.mjs; the
# packages are pinned in .ci/federation/package-lock.json).
#
#   .ci/federation.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
cache=${OKRGATE_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/okrgate-ci}
mkdir -p "$cache"
go build -o "$cache/okrgate" ./cmd/okrgate
(cd .ci/federation && npm ci --no-audit --no-fund --silent)
OKRGATE_BIN="$cache/okrgate" node .ci/federation/federation.mjs
