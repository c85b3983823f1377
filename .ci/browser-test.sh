#!/usr/bin/env bash
# Builds okrgate, installs playwright-core and graphql-ws (npm) and runs .ci/browser-test.mjs
# in headless Chromium (/usr/bin/chromium; install with
# `apt-get install -y chromium`) against the binary with no assets flag: the
# playground's embedded copy, every non-loopback request blocked.
# Screenshots are written to $OKRGATE_CI_OUT (default ${TMPDIR:-/tmp}/okrgate-ci).
#
#   .ci/browser-test.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
cache=${OKRGATE_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/okrgate-ci}
out=${OKRGATE_CI_OUT:-${TMPDIR:-/tmp}/okrgate-ci}
mkdir -p "$cache" "$out"
chromium=${CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$chromium" ]; then
  echo "chromium not found at $chromium (apt-get install -y chromium)" >&2
  exit 1
fi
go build -o "$cache/okrgate" ./cmd/okrgate
if [ ! -d "$cache/node/node_modules/playwright-core" ] || [ ! -d "$cache/node/node_modules/graphql-ws/umd" ]; then
  mkdir -p "$cache/node"
  (cd "$cache/node" && { [ -f package.json ] || npm init -y >/dev/null; } &&
    npm install --no-audit --no-fund --silent playwright-core@1.65.1 graphql-ws@6.4.2)
fi
OKRGATE_BIN="$cache/okrgate" CHROMIUM="$chromium" OUT="$out" \
  PLAYWRIGHT_CORE="$cache/node/node_modules/playwright-core" GRAPHQL_WS="$cache/node/node_modules/graphql-ws" \
  node .ci/browser-test.mjs
