#!/usr/bin/env bash
# Runs README.md's shell blocks in order, as a person pasting them into one fresh shell would, against the
# built binary, so that the README cannot drift from what okrgate does. Any call answering outside 2xx fails it.
#
# What a person does by hand, this does the same way:
#   - it starts `okrgate serve --demo` itself (the walkthrough's first block, on a new database and a free
#     port) and, in every block, replaces what the README shows of its output with what it printed:
#     okr_... (the token), 6b02... (the account id), http://127.0.0.1:8080 (the address);
#   - a block under `<!-- not run by .ci/readme.sh: WHY -->` is skipped (servers in the foreground, a
#     PostgreSQL server or an identity provider it needs), and one under `<!-- .ci/readme.sh expects status
#     N -->` must print a problem body with that status;
#   - curl fails on a status of 400 and above (--fail-with-body); a server-sent event stream is read for
#     3 seconds and must have answered 200.
#
#   .ci/readme.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
for tool in jq curl; do
  command -v "$tool" >/dev/null || { echo "$tool is needed (apt-get install -y $tool)" >&2; exit 1; }
done
work=$(mktemp -d)
server=
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

go build -o "$work/okrgate" ./cmd/okrgate
"$work/okrgate" serve --demo --db "$work/demo.db" --addr 127.0.0.1:0 --metrics-addr off >"$work/serve.out" 2>"$work/serve.log" &
server=$!
for _ in $(seq 1 60); do
  grep -q '^demo admin token:' "$work/serve.out" && break
  kill -0 "$server" 2>/dev/null || { cat "$work/serve.out" "$work/serve.log"; echo "serve --demo exited" >&2; exit 1; }
  sleep 1
done
base=$(sed -n 's/^okrgate listening on \([^ ]*\).*/\1/p' "$work/serve.out")
account=$(sed -n 's/^demo account: *\([^ ]*\).*/\1/p' "$work/serve.out")
token=$(sed -n 's/^demo admin token: *\([^ ]*\).*/\1/p' "$work/serve.out")
if [ -z "$base" ] || [ -z "$account" ] || [ -z "$token" ]; then
  cat "$work/serve.out"; echo "serve --demo printed no address, account or token" >&2; exit 1
fi

# The blocks, in order, into one script: skipped ones as comments, the values a person pastes substituted.
awk -v token="$token" -v account="$account" -v base="$base" '
  function subst(line) {
    gsub(/okr_\.\.\./, token, line); gsub(/6b02\.\.\./, account, line); gsub(/http:\/\/127\.0\.0\.1:8080/, base, line)
    return line
  }
  /^<!-- not run by \.ci\/readme\.sh/ { skip = 1; next }
  /^<!-- \.ci\/readme\.sh expects status [0-9]+ -->/ { expect = $5; next }
  /^```sh$/ && !inblock {
    inblock = 1; start = NR
    if (skip) { printf "echo \"-- README.md:%d: not run\"\n", NR }
    else if (expect) { printf "echo \"-- README.md:%d (expects status %s)\"\nexpect=%s\nout=$( {\n", NR, expect, expect }
    else printf "echo \"-- README.md:%d\"\n", NR
    next
  }
  /^```$/ && inblock {
    if (!skip && expect) {
      printf "} 2>&1 )\nexpect=\necho \"$out\"\n"
      printf "grep -q %s <<<\"$out\" || { echo \"README.md block at line %d: no problem body with status %s\" >&2; exit 1; }\n", "\"\\\"status\\\":" expect "\"", start, expect
    }
    inblock = 0; skip = 0; expect = ""; next
  }
  inblock { if (!skip) print subst($0); next }
  !/^[[:space:]]*$/ { skip = 0; expect = "" }
' README.md >"$work/blocks.sh"
blocks=$(grep -c '^echo "-- README.md:' "$work/blocks.sh")
skipped=$(grep -c ': not run"$' "$work/blocks.sh" || true)

cat >"$work/run.sh" <<'PRELUDE'
set -euo pipefail
shopt -s expand_aliases
expect=
# curl as the README calls it, failing on any status of 400 and above (unless a block expects one); an event
# stream never ends: its first 3 seconds, which must have answered 200.
curl() {
  local a
  for a in "$@"; do
    if [[ $a == *text/event-stream* ]]; then
      local code rc=0
      code=$(command curl -s -o "$READMEWORK/stream.out" -w '%{http_code}' --max-time 3 "$@") || rc=$?
      if [ "$rc" != 0 ] && [ "$rc" != 28 ]; then return "$rc"; fi
      [ "$code" = 200 ] || { echo "event stream answered $code: $(cat "$READMEWORK/stream.out")" >&2; return 1; }
      echo "(event stream answered 200; its first 3 seconds: $(wc -c <"$READMEWORK/stream.out") bytes)"
      return 0
    fi
  done
  if [ -n "$expect" ]; then command curl "$@"; else command curl --fail-with-body "$@"; fi
}
PRELUDE
cat "$work/blocks.sh" >>"$work/run.sh"
cd "$work"
# A fresh shell: none of this script's variables, nothing of the caller's but PATH and HOME.
# Each line of output cut at 300 characters: the listings are long.
if ! env -i PATH="$PATH" HOME="$HOME" READMEWORK="$work" bash "$work/run.sh" 2>&1 | cut -c1-300; then
  echo "README.md: a shell block failed" >&2
  cp "$work/run.sh" "${TMPDIR:-/tmp}/okrgate-readme-run.sh"
  echo "kept as ${TMPDIR:-/tmp}/okrgate-readme-run.sh; the server's log:" >&2
  tail -20 "$work/serve.log" >&2
  exit 1
fi
echo "README.md: $((blocks - skipped)) shell blocks ran in order against the built binary, every call answered 2xx" \
  "(and the expected problem); $skipped not run, each saying why"
