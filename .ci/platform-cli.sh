#!/usr/bin/env bash
# Runs the real platform's official command-line client, unchanged, against
# okrgate: `status`, `get krs` and `update` (a check-in), its everyday
# commands (docs/rest.md, "Clients of the real platform"). The client is not
# in any package registry (the Go module proxy answers 403 for
# github.com/gtmhub/gtmhub-cli), so build it from its public source first
# and pass the binary:
#
#   git clone https://github.com/gtmhub/gtmhub-cli && (cd gtmhub-cli && go build -o gtmhub .)
#   .ci/platform-cli.sh gtmhub-cli/gtmhub
#
# Starts `okrgate serve --demo` on 127.0.0.1, adds a session of the current
# period with an objective and a key result of the demo admin, writes the
# client's config file (it reads ~/.gtmhub/config; HOME is a temporary
# directory) and checks what each command prints. Exits non-zero on failure.
set -euo pipefail
cli=$(realpath "${1:?usage: .ci/platform-cli.sh PATH_TO_THE_CLIENT_BINARY}")
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
server=""
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

. "$root/.ci/demo-server.sh"
demo_server "$work"
api() { curl -sf -H "Authorization: Bearer $token" -H "gtmhub-accountId: $account" -H 'Content-Type: application/json' "$@"; }
user=$(api "$url/api/v2/users/me" | jq -r .userId)
year=$(date -u +%Y)
session=$(api -X POST "$url/api/v1/sessions" -d "{\"title\":\"CLI run\",\"start\":\"$((year - 1))-01-01\",\"end\":\"$((year + 1))-12-31\"}" | jq -r .id)
goal=$(api -X POST "$url/api/v1/goals" -d "{\"name\":\"Ship the CLI run\",\"sessionId\":\"$session\",\"ownerId\":\"$user\"}" | jq -r .id)
metric=$(api -X POST "$url/api/v1/metrics" -d "{\"name\":\"Releases shipped\",\"goalId\":\"$goal\",\"target\":4,\"ownerId\":\"$user\"}" | jq -r .id)

export HOME="$work/home"
mkdir -p "$HOME/.gtmhub"
cat >"$HOME/.gtmhub/config" <<CONFIG
gtmhubUrl: $url
token: $token
accountId: $account
userId: $user
dc: eu
refreshToken: unused
CONFIG

run() { echo "\$ gtmhub $*"; "$cli" "$@" | tee "$work/out"; }
run status
grep -q "Releases shipped" "$work/out" || { echo "FAIL: status does not list the key result"; exit 1; }
run get krs
grep -q "Releases shipped" "$work/out" || { echo "FAIL: get krs does not list the key result"; exit 1; }
run update --id "$metric" --value 2 --comment "two out"
grep -qi "updated" "$work/out" || { echo "FAIL: update did not report the check-in"; exit 1; }
actual=$(api "$url/api/v1/metrics/$metric?fields=actual" | jq -r .actual)
[ "$actual" = 2 ] || { echo "FAIL: the key result's actual is $actual after the check-in, want 2"; exit 1; }
run status
grep -q "Releases shipped" "$work/out" && { echo "FAIL: status still lists the key result checked in just now"; exit 1; }
echo "platform CLI: status, get krs and update passed against okrgate ($url)"
