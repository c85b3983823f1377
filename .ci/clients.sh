#!/usr/bin/env bash
# Runs public programs written for the real platform, unchanged, against the
# built okrgate binary (docs/platform-clients.md, "The platform's programs, run"), from
# their source archives in ../shared/clients/ beside the repository (skipped,
# saying so, where that folder is absent):
#
#   - the OKR report exporter (quantive-export, Node): `node local-debug.js
#     --test-api`, `--list-sessions`, and the export with no flag;
#   - the vendor's bulk avatar uploader (bulk-avatar-upload, Python with
#     Debian's python3-requests): its base URL https://app.gtmhub.com is fixed
#     in the code, so it runs through tlsproxy (cmd/okrgate/internal/tlsproxy),
#     an HTTPS proxy that ends TLS with a throw-away authority (HTTPS_PROXY,
#     REQUESTS_CA_BUNDLE);
#   - the official command-line client (gtmhub-cli, Go): built from its
#     archive and run by .ci/platform-cli.sh.
#
# Each program is configured as its README says (the exporter's .env, the
# uploader's three CONFIGURATION constants, the client's ~/.gtmhub/config);
# nothing else of them changes. okrgate serves `serve --demo` plus the users
# the uploader's pictures are named after. The step fails on any request
# okrgate refuses (its access log, JSON: every status of 400 or more while a
# program runs), on a program that fails, and on results that are not there
# (the report's sections, the pictures stored byte for byte).
# CLIENTS_KEEP_GOING=1 runs every program even after one failed, and reports
# all of them. CLIENTS_PRISM=1 sends the exporter's requests through
# Stoplight Prism's validating proxy (.ci/prism.sh proxy) and fails on any
# violation of the OpenAPI document it reports.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
clients=${CLIENTS_DIR:-$root/../shared/clients} # CLIENTS_DIR: the archives elsewhere (a worktree)
if [ ! -d "$clients" ]; then
  echo "skipped: no ../shared/clients/ beside the repository (the programs' source archives); nothing run"
  exit 0
fi
archive() { # the one archive of a program, by name
  local f
  f=$(ls "$clients"/"$1"-*.tar.gz 2>/dev/null | head -1)
  [ -n "$f" ] || { echo "clients: no $1-*.tar.gz in $clients" >&2; return 1; }
  echo "$f"
}

work=$(mktemp -d)
server="" proxy="" prism=""
cleanup() {
  for p in $proxy $prism $server; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

if ! /usr/bin/python3 -c 'import requests' 2>/dev/null || ! command -v jq >/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq python3-requests jq >/dev/null
fi

go build -o "$work/tlsproxy" "$root/cmd/okrgate/internal/tlsproxy"
. "$root/.ci/demo-server.sh"
demo_server "$work" --log-format json
api() { curl -sf -H "Authorization: Bearer $token" -H "gtmhub-accountId: $account" -H 'Content-Type: application/json' "$@"; }
via=$url # where the programs send their requests: okrgate, or Prism in front of it
if [ "${CLIENTS_PRISM:-}" = 1 ]; then
  "$root/.ci/prism.sh" proxy "$url" >"$work/prism.log" 2>&1 &
  prism=$!
  for _ in $(seq 600); do
    grep -q 'Prism is listening on' "$work/prism.log" 2>/dev/null && break
    kill -0 "$prism" 2>/dev/null || { cat "$work/prism.log"; exit 1; }
    sleep 0.1
  done
  via=$(grep -o 'Prism is listening on http://[0-9.:]*' "$work/prism.log" | sed 's/.* //')
  echo "the exporter goes through Stoplight Prism's validating proxy ($via)"
fi

failed=()
# refused NAME FROM: the requests okrgate refused since line FROM of its
# access log, printed; fails NAME when there is one.
refused() {
  local bad
  bad=$(tail -n +"$2" "$work/serve.err" | jq -rc 'select(.msg == "request" and .status >= 400) | "\(.status) \(.method) \(.path)"')
  [ -n "$bad" ] || return 0
  echo "FAIL: $1: okrgate refused:"; echo "$bad" | sort | uniq -c | sed 's/^/  /'
  failed+=("$1")
  return 1
}
mark() { wc -l <"$work/serve.err" | awk '{print $1 + 1}'; }
step() { # step NAME COMMAND...: runs a program's step, then checks the access log
  local from rc=0
  from=$(mark)
  echo "== $1"
  "${@:2}" || rc=$?
  if [ "$rc" != 0 ]; then echo "FAIL: $1 exited $rc"; failed+=("$1"); fi
  echo "$1: $(tail -n +"$from" "$work/serve.err" | jq -c 'select(.msg == "request")' | wc -l) requests to okrgate"
  refused "$1" "$from" || true
  [ "$rc" = 0 ]
}
keep_going() { [ "${CLIENTS_KEEP_GOING:-}" = 1 ] || [ ${#failed[@]} = 0 ]; }

# --- the exporter -----------------------------------------------------------
mkdir -p "$work/exporter"
tar -xzf "$(archive quantive-export)" -C "$work/exporter" --strip-components=1
sessions=$(api "$url/api/v1/sessions" | jq -r '[.items[].title] | join(",")')
cat >"$work/exporter/.env" <<ENV
QUANTIVE_API_TOKEN=$token
QUANTIVE_ACCOUNT_ID=$account
QUANTIVE_BASE_URL=$via/api/v1
SESSIONS=$sessions
TEXT_FILE_ID=okrgate-report
LOOKBACK_DAYS=365
ENV
(cd "$work/exporter" && npm ci --omit=dev --no-audit --no-fund --silent)
exporter() { (cd "$work/exporter" && node local-debug.js "$@") >"$work/exporter.out" 2>&1 || { cat "$work/exporter.out"; return 1; }; }
step "exporter --test-api" exporter --test-api && grep -q . "$work/exporter.out" || true
step "exporter --list-sessions" exporter --list-sessions || true
step "exporter: the export" exporter || true
report="$work/exporter/debug-output/snapshot-okrgate-report.md"
if [ -f "$report" ]; then
  echo "report: $(wc -l <"$report") lines, $(grep -c '^#' "$report") headings"
  # An owner the exporter could not name is written "User <id>".
  if grep -qE 'User [0-9a-f]{24}' "$report"; then
    echo "FAIL: the report names owners by id:"; grep -E 'User [0-9a-f]{24}' "$report"; failed+=("exporter: owners' names")
  fi
else
  echo "FAIL: the exporter wrote no report"; failed+=("exporter: the report"); cat "$work/exporter.out"
fi
keep_going || { echo "clients: failed: ${failed[*]}"; exit 1; }

# --- the avatar uploader ----------------------------------------------------
mkdir -p "$work/uploader"
tar -xzf "$(archive bulk-avatar-upload)" -C "$work/uploader" --strip-components=1
# The users its sample pictures are named after (img/<email>.jpg).
for email in alice.smith@example.org bob.smith@example.org; do
  api -X POST "$url/api/v2/users" -d "{\"email\":\"$email\",\"firstName\":\"${email%%.*}\",\"lastName\":\"Smith\"}" >/dev/null
done
sed -i -e "s|^ACCOUNT_ID = .*|ACCOUNT_ID = '$account'|" -e "s|^AUTH_TOKEN = .*|AUTH_TOKEN = 'Bearer $token'|" \
  -e "s|^PATH_TO_IMAGE_FOLDER = .*|PATH_TO_IMAGE_FOLDER = '$work/uploader/img/'|" "$work/uploader/bau.py"
# Straight to okrgate, not through Prism: Prism's proxy forwards a body
# re-encoded as text, which corrupts the pictures (.ci/prism.sh).
"$work/tlsproxy" --host app.gtmhub.com --upstream "$url" --ca "$work/ca.pem" --log "$work/proxy.log" >"$work/proxy.out" &
proxy=$!
for _ in $(seq 100); do grep -q 'listening on' "$work/proxy.out" 2>/dev/null && break; sleep 0.1; done
proxy_addr=$(sed -n 's/^tlsproxy listening on //p' "$work/proxy.out")
uploader() {
  (cd "$work/uploader" && HTTPS_PROXY="http://$proxy_addr" https_proxy="http://$proxy_addr" NO_PROXY= no_proxy= \
    REQUESTS_CA_BUNDLE="$work/ca.pem" /usr/bin/python3 bau.py) | tee "$work/uploader.out"
}
step "uploader" uploader || true
n=$(grep -c 'updated\.$' "$work/uploader.out" || true)
if [ "$n" != 2 ] || grep -q 'Received a response code\|Error' "$work/uploader.out"; then
  echo "FAIL: the uploader updated $n of 2 users"; failed+=("uploader: users updated")
fi
for email in alice.smith@example.org bob.smith@example.org; do
  picture=$(api "$url/api/v2/users?filter=$(jq -rn --arg e "$email" '{email: $e} | tojson | @uri')" | jq -r '.items[0].picture')
  if [ -z "$picture" ] || ! curl -sf "$url$picture" -o "$work/got.jpg" || ! cmp -s "$work/got.jpg" "$work/uploader/img/$email.jpg"; then
    echo "FAIL: $email's picture ($picture) is not the uploaded file"; failed+=("uploader: $email's picture")
  fi
done
echo "uploader: through the proxy: $(tr '\n' ';' <"$work/proxy.log")"
keep_going || { echo "clients: failed: ${failed[*]}"; exit 1; }

# --- the command-line client --------------------------------------------------
mkdir -p "$work/cli"
tar -xzf "$(archive gtmhub-cli)" -C "$work/cli" --strip-components=1
(cd "$work/cli" && go build -o "$work/gtmhub" .)
step "command-line client" "$root/.ci/platform-cli.sh" "$work/gtmhub" || true

if [ -n "$prism" ]; then
  if grep -q 'Violation:' "$work/prism.log"; then
    echo "FAIL: Prism found the programs' requests or okrgate's answers contradicting the OpenAPI document:"
    grep 'Violation:' "$work/prism.log" | sed 's/^/  /'
    failed+=("Prism")
  else
    echo "Prism: $(grep -c 'Request received' "$work/prism.log") requests of the programs and their answers agree with the OpenAPI document"
  fi
fi
if [ ${#failed[@]} -gt 0 ]; then
  echo "clients: failed: ${failed[*]}"
  exit 1
fi
echo "clients: the exporter, the avatar uploader and the command-line client ran unchanged with no request refused"
