#!/usr/bin/env bash
# Real TypeScript clients against the built binary (.ci/clients/ts): starts
# `okrgate serve --demo` on 127.0.0.1, installs the pinned npm packages
# (npm ci, package-lock.json), generates types with graphql-codegen from the
# live schema and with openapi-typescript from /api/openapi.json, type-checks
# strictly (tsc --strict; no `any` in the tree query's types), runs Apollo
# Client's session tree query and an openapi-fetch check-in, 16 openapi-fetch
# calls with the account header set once in the client (account.ts), the graphql-ws
# client's query and subscription over a websocket (live.mjs), Apollo Client
# consuming a session tree whose subtrees are deferred (@defer over
# multipart/mixed: the roots first, then the complete tree; defer.mjs), then, against a
# second server that runs only the manifest graphql-codegen's client preset
# wrote (--trusted-documents src/generated/client/persisted-documents.json
# --trusted-documents-only; documents sorted, under the hash of that form),
# Apollo Client's query as written, by the manifest's hash and by id, its
# websocket subscription (text as written with the manifest's hash)
# receiving a check-in, an unknown id (UNKNOWN_DOCUMENT) and an unregistered
# document (DOCUMENT_NOT_TRUSTED), and lints the served OpenAPI document
# with Redocly CLI (redocly.yaml).
#
#   .ci/ts-client.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
work=$(mktemp -d)
server=""
trusted=""
cleanup() {
  for p in $server $trusted; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

echo "-- build and start okrgate serve --demo"
go build -o "$work/okrgate" ./cmd/okrgate
"$work/okrgate" serve --demo --db "$work/okr.db" --addr 127.0.0.1:0 >"$work/serve.out" 2>"$work/serve.err" &
server=$!
for _ in $(seq 100); do
  grep -q 'demo admin token' "$work/serve.out" 2>/dev/null && break
  kill -0 "$server" 2>/dev/null || { cat "$work/serve.out" "$work/serve.err"; exit 1; }
  sleep 0.1
done
OKRGATE_URL=$(sed -n 's/^okrgate listening on \([^ ]*\).*/\1/p' "$work/serve.out")
OKRGATE_TOKEN=$(sed -n 's/^demo admin token: \([^ ]*\).*/\1/p' "$work/serve.out")
OKRGATE_ACCOUNT=$(sed -n 's/^demo account: *\([^ ]*\).*/\1/p' "$work/serve.out")
if [ -z "$OKRGATE_URL" ] || [ -z "$OKRGATE_TOKEN" ] || [ -z "$OKRGATE_ACCOUNT" ]; then
  echo "could not read the server's address and demo token:"; cat "$work/serve.out"; exit 1
fi
export OKRGATE_URL OKRGATE_TOKEN OKRGATE_ACCOUNT

cd .ci/clients/ts
export REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true
echo "-- npm ci"
npm ci --no-audit --no-fund --loglevel=error
rm -rf src/generated dist
echo "-- graphql-codegen (live schema)"
npm run --silent codegen
echo "-- openapi-typescript ($OKRGATE_URL/api/openapi.json)"
npm run --silent openapi-types
echo "-- no any in the tree query's generated types"
# Every generated type of the operation (comments stripped); the compile-time
# check in src/noany.ts covers nesting.
node -e '
  const src = require("fs").readFileSync("src/generated/graphql.ts", "utf8").replace(/\/\*[\s\S]*?\*\//g, "");
  const types = src.split(/\n(?=export )/).filter((t) => /^export type SessionTree\w* =/.test(t));
  if (types.length < 2) { console.error("SessionTree types not found"); process.exit(1); }
  const bad = types.filter((t) => /\bany\b/.test(t));
  if (bad.length) { console.error("any in:\n" + bad.join("\n")); process.exit(1); }
  console.log(types.length + " SessionTree types, 0 any");
'
echo "-- tsc --strict"
npm run --silent build
echo "-- Apollo Client and openapi-fetch against the server"
npm run --silent check
echo "-- openapi-fetch: 16 calls with the account set once (src/account.ts)"
node dist/account.js
echo "-- graphql-ws client: a query and a subscription over a websocket"
node live.mjs
echo "-- Apollo Client: a deferred session tree over multipart/mixed"
node defer.mjs
echo "-- trusted documents: a server that runs only the client preset's persisted-documents.json"
manifest=src/generated/client/persisted-documents.json
"$work/okrgate" documents --trusted-documents "$manifest"
"$work/okrgate" serve --db "$work/okr.db" --addr 127.0.0.1:0 --trusted-documents "$manifest" \
  --trusted-documents-only --trusted-documents-escape none >"$work/trusted.out" 2>"$work/trusted.err" &
trusted=$!
for _ in $(seq 100); do
  grep -q 'okrgate listening on' "$work/trusted.out" 2>/dev/null && break
  kill -0 "$trusted" 2>/dev/null || { cat "$work/trusted.out" "$work/trusted.err"; exit 1; }
  sleep 0.1
done
OKRGATE_TRUSTED_URL=$(sed -n 's/^okrgate listening on \([^ ]*\).*/\1/p' "$work/trusted.out")
export OKRGATE_TRUSTED_URL
npm run --silent check:trusted
echo "-- Redocly lint of the served OpenAPI document"
npm run --silent lint:openapi
