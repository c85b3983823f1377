#!/usr/bin/env bash
# Checks the OpenAPI document (upstream/transport/rest/openapi.json) against what the
# built okrgate binary accepts and answers, with Stoplight Prism (npm
# @stoplight/prism-cli, pinned in .ci/prism/package-lock.json, installed into
# a cache directory) in proxy mode: Prism forwards each request to okrgate
# and validates the request and the answer against the document
# (docs/rest.md, "Checked by Stoplight Prism").
#
#   .ci/prism.sh             the replay below; fails on any contradiction
#   .ci/prism.sh --install   installs Prism and prints the path of its program
#   .ci/prism.sh proxy URL   runs Prism's proxy in front of URL on a free port
#                            of 127.0.0.1, in the foreground; its log says
#                            "Prism is listening on http://127.0.0.1:PORT" and
#                            names each violation ("Violation: …")
#
# The replay sends the requests of the real platform's programs as their
# sources build them — the report exporter's reads, the avatar uploader's
# listing and multipart upload, the command-line client's reads and
# check-in (no Content-Type), the spreadsheet importer's creates with the
# platform's fields, a migration script's listed documents posted back, a
# task connector's PUT of a task as read — to `okrgate serve --demo` through
# Prism, and fails when an answer is not the expected status or Prism
# reports a violation: of the answer, always; of the request, when okrgate
# accepted it (a request the document calls invalid and okrgate refuses
# agrees with it). .ci/clients.sh runs the programs themselves through the
# same proxy when CLIENTS_PRISM names the program.
# PRISM_CACHE: where Prism is installed (default ~/.cache/okrgate-ci/prism).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cache=${PRISM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/okrgate-ci/prism}

install() { # installs the pinned Prism into $cache once; prints its program
  if ! cmp -s "$root/.ci/prism/package-lock.json" "$cache/package-lock.json" || [ ! -x "$cache/node_modules/.bin/prism" ]; then
    mkdir -p "$cache"
    cp "$root/.ci/prism/package.json" "$root/.ci/prism/package-lock.json" "$cache/"
    npm ci --prefix "$cache" --no-audit --no-fund --loglevel=error >&2
  fi
  echo "$cache/node_modules/.bin/prism"
}

case "${1:-}" in
--install)
  install
  exit 0
  ;;
proxy)
  prism=$(install)
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  exec "$prism" proxy "$root/upstream/transport/rest/openapi.json" "${2:?usage: .ci/prism.sh proxy UPSTREAM_URL}" \
    --host 127.0.0.1 --port "$port" --errors=false
  ;;
"") ;;
*)
  echo "usage: .ci/prism.sh [--install | proxy URL]" >&2
  exit 2
  ;;
esac

prism=$(install)
work=$(mktemp -d)
server="" proxy=""
cleanup() {
  for p in $proxy $server; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

. "$root/.ci/demo-server.sh"
demo_server "$work"

"$0" proxy "$url" >"$work/prism.log" 2>&1 &
proxy=$!
for _ in $(seq 600); do
  grep -q 'Prism is listening on' "$work/prism.log" 2>/dev/null && break
  kill -0 "$proxy" 2>/dev/null || { cat "$work/prism.log"; exit 1; }
  sleep 0.1
done
P=$(grep -o 'Prism is listening on http://[0-9.:]*' "$work/prism.log" | sed 's/.* //')
[ -n "$P" ] || { echo "prism: did not start"; cat "$work/prism.log"; exit 1; }

failures=0 calls=0 noted=0
# call [--untyped] WANT METHOD PATH [curl arguments…]: one request through
# Prism, as the platform's programs send it (Authorization,
# gtmhub-accountId); the answer's body is left in $work/body. Fails the step
# on another status, on a violation of the answer, and on a violation of a
# request okrgate accepted. --untyped: the body is sent without a
# Content-Type, which OpenAPI cannot describe (a body is described by its
# media type); Prism then reads it as text against the first one it is
# described with, so a violation of the request body is noted, not failed.
call() {
  local untyped="" want method path status violations bad
  if [ "$1" = --untyped ]; then untyped=1; shift; fi
  want=$1 method=$2 path=$3
  shift 3
  calls=$((calls + 1))
  status=$(curl -s -o "$work/body" -D "$work/head" -w '%{http_code}' -X "$method" \
    -H "Authorization: Bearer $token" -H "gtmhub-accountId: $account" "$@" "$P$path")
  violations=$(sed -n 's/^sl-violations: //Ip' "$work/head" | tr -d '\r')
  bad=""
  if [ -n "$violations" ]; then
    bad=$(echo "$violations" | jq -c --argjson st "$status" --arg untyped "$untyped" \
      '.[] | select(.location[0] == "response" or $st < 400) | select($untyped == "" or .location != ["request", "body"])')
    if [ -n "$untyped" ] && echo "$violations" | jq -e 'any(.[]; .location == ["request", "body"])' >/dev/null; then
      noted=$((noted + 1))
    fi
  fi
  if [ "$status" != "$want" ] || [ -n "$bad" ]; then
    failures=$((failures + 1))
    echo "FAIL: $method $path: $status (want $want)${bad:+; the OpenAPI document disagrees: $bad}"
    head -c 600 "$work/body"; echo
  fi
}
field() { jq -r "$1" "$work/body"; }

# The report exporter (QUANTIVE_BASE_URL …/api/v1).
from=$(date -u -d '-30 days' +%F) to=$(date -u +%F)
call 200 GET /api/v1/sessions
session=$(field '[.items[] | select(.status == "open")][0].id')
call 200 GET "/api/v1/sessions/$session"
call 200 GET "/api/v1/goals?sessionId=$session"
goals=$(field '.items[].id')
goal="" metric=""
for g in $goals; do # the exporter reads each objective, with its key results
  call 200 GET "/api/v1/goals/$g"
  [ -n "$metric" ] || { metric=$(field '.metrics[0].id // empty'); goal=$g; }
done
[ -n "$metric" ] || { echo "prism: no key result in the demo's open session"; exit 1; }
call 200 GET "/api/v1/metrics/$metric?expand=tasks"
call 200 GET "/api/v1/metrics/$metric"
call 200 GET "/api/v1/metrics/$metric/values?from=$from&to=$to"
call 200 GET "/api/v1/users?limit=1000&fields=id,displayName,name,email,firstName,lastName"
user=$(field '.items[0].id')
call 200 GET "/api/v1/users/$user"

# The avatar uploader: the users, then a picture as multipart part "file".
# The upload goes to okrgate directly: Prism's proxy reads a request body as
# text and forwards it re-encoded, which corrupts a binary picture (issues
# 1321 and 2349 of stoplightio/prism), so okrgate would rightly refuse it.
# The user that then carries the picture, and the picture, go through Prism.
call 200 GET /api/v1/accounts/users
base64 -d >"$work/pixel.png" <<<'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='
curl -sf -o /dev/null -H "Authorization: Bearer $token" -H "gtmhub-accountId: $account" -H "userId: $user" \
  -F "file=@$work/pixel.png;type=image/jpeg" "$url/api/v1/fileserver/avatar/$user"
call 200 GET "/api/v2/users/$user"
picture=$(field '.picture')
call 200 GET "$picture"

# The command-line client: current open sessions, the caller's key results,
# a check-in body without a Content-Type.
call 200 GET "/api/v1/sessions?filter=current&status=open"
call 200 GET "/api/v2/metrics?filter=$(jq -rn --arg s "$session" --arg u "$user" '"{sessionId:{$in:[\"\($s)\"]}, ownerId:\"\($u)\"}" | @uri | gsub("%20"; "+")')"
metric=$(field ".items[0].id // \"$metric\"")
call --untyped 201 POST "/api/v1/metrics/$metric/checkin" -H 'Content-Type:' \
  --data-binary "{\"actual\":2,\"checkInDate\":\"$(date -u +%FT%TZ)\",\"comment\":\"two out\",\"confidence\":null}"
call 201 POST "/api/v1/metrics/$metric/checkin" -H 'Content-Type: application/json' --data-binary '{"actual":3,"comment":"typed"}'
call 200 GET "/api/v2/integrations/goals/groupBy/owners?metricAttainment=0.5"

# The spreadsheet importer: each create with the platform's fields, 201.
call 201 POST /api/v1/users -H 'Content-Type: application/json' \
  --data-binary '{"email":"ivan@import.test","firstName":"Ivan","lastName":"Petrov","language":"bg"}'
owner=$(field .id)
call 201 POST /api/v1/sessions -H 'Content-Type: application/json' --data-binary '{"title":"Q4 2021","access":null,"parentId":"","status":"open",
  "cadenceType":"MONTHLY","cadenceStart":{"periodOfMonth":"firstDay"},"workflow":null,"cadenceTimeZone":"Europe/Kiev",
  "start":"2021-09-30T21:00:00.000Z","end":"2021-12-31T21:59:59.999Z"}'
imported=$(field .id)
call 201 POST /api/v1/goals -H 'Content-Type: application/json' --data-binary "{\"ownerId\":\"$owner\",\"description\":\"\",\"name\":\"Grow EMEA\",
  \"dateFrom\":\"2021-09-30T21:00:00Z\",\"dateTo\":\"2021-12-31T21:59:59.999Z\",\"sessionId\":\"$imported\",\"customFields\":{}}"
igoal=$(field .id)
call 201 POST /api/v1/metrics -H 'Content-Type: application/json' --data-binary "{\"ownerId\":\"$owner\",\"goalId\":\"$igoal\",
  \"targetOperator\":\"at_least\",\"initialValue\":0,\"target\":10,\"name\":\"Deals\",\"manualType\":\"double\",
  \"dueDate\":\"0001-01-01T00:00:00Z\",\"softDueDate\":\"0001-01-01T00:00:00Z\"}"
call 201 POST /api/v1/tasks -H 'Content-Type: application/json' \
  --data-binary "{\"name\":\"Call Acme\",\"ownerId\":\"$owner\",\"status\":\"todo\",\"description\":\"\",\"parentId\":\"$igoal\",\"parentType\":\"goal\"}"
task=$(field .id)

# A task connector: the listing, the task, the task as read sent back by PUT.
call 200 GET "/api/v1/tasks?filter=$(jq -rn --arg g "$igoal" '{parentId: $g} | tojson | @uri')"
call 200 GET "/api/v1/tasks/$task"
jq -c '.status = "inprogress" | .modifiedAt = "2026-01-01T00:00:00Z"' "$work/body" >"$work/task.json"
call 200 PUT "/api/v1/tasks/$task" -H 'Content-Type: application/json' --data-binary "@$work/task.json"

# A migration script: documents listed through v2, posted back through v1.
call 200 GET "/api/v2/sessions?filter=$(jq -rn --arg s "$session" '{_id: $s} | tojson | @uri')"
jq -c '.items[0] | .title = "Copied"' "$work/body" >"$work/session.json"
call 201 POST /api/v1/sessions -H 'Content-Type: application/json' --data-binary "@$work/session.json"
copied=$(field .id)
call 200 GET "/api/v2/goals?filter=$(jq -rn --arg g "$goal" '{_id: $g} | tojson | @uri')"
jq -c --arg s "$copied" '.items[0] | .sessionId = $s' "$work/body" >"$work/goal.json"
call 201 POST /api/v1/goals -H 'Content-Type: application/json' --data-binary "@$work/goal.json"
call 200 GET "/api/v2/users?filter=$(jq -rn --arg u "$user" '{_id: $u} | tojson | @uri')"
jq -c '.items[0] | .email = "copy." + .email' "$work/body" >"$work/user.json"
call 201 POST /api/v1/users -H 'Content-Type: application/json' --data-binary "@$work/user.json"

# Refusals agree with the document too: a team is no user, a misspelt field.
call 200 GET "/api/v2/teams?fields=id"
call 404 GET "/api/v1/users/$(field '.items[0].id')"
call 400 POST /api/v1/tasks -H 'Content-Type: application/json' --data-binary "{\"nmae\":\"x\",\"parentId\":\"$igoal\"}"

n=$(grep -c 'Violation:' "$work/prism.log" || true)
echo "prism: $calls requests through Prism's proxy, $failures failed; Prism logged $n violations:" \
  "$noted of a body sent without a Content-Type, the others of requests okrgate refused, as the document says"
[ "$failures" = 0 ]
