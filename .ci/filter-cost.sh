#!/usr/bin/env bash
# Server CPU of costly list filters on the built binary (docs/rest.md,
# "Limits"): starts `okrgate serve --demo` on 127.0.0.1, gives GOALS goals
# (default 40) a description of the longest accepted length (20,000 "a"),
# then sends each filter ROUNDS times (default 3) and prints the HTTP status
# and the server's CPU time (utime + stime from /proc/PID/stat, in clock
# ticks converted to seconds) per request, min and median. Linux only.
#
#   .ci/filter-cost.sh [GOALS] [ROUNDS]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
goals=${1:-40}
rounds=${2:-3}
work=$(mktemp -d)
server=""
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

cd "$root"
go build -o "$work/okrgate" ./cmd/okrgate
"$work/okrgate" serve --demo --db "$work/okr.db" --addr 127.0.0.1:0 --metrics-addr 127.0.0.1:0 >"$work/serve.out" 2>"$work/serve.err" &
server=$!
for _ in $(seq 100); do
  grep -q 'demo admin token' "$work/serve.out" 2>/dev/null && break
  sleep 0.1
done
url=$(sed -n 's/^okrgate listening on \([^ ]*\).*/\1/p' "$work/serve.out")
token=$(sed -n 's/^demo admin token: \([^ ]*\).*/\1/p' "$work/serve.out")
acct=$(sed -n 's/^demo account: *\([^ ]*\).*/\1/p' "$work/serve.out")
auth=(-H "Authorization: Bearer $token" -H "service-accountId: $acct")
session=$(curl -sf -G "${auth[@]}" "$url/api/v2/sessions" --data-urlencode fields=id --data-urlencode limit=1 --data-urlencode 'filter={"status":"open"}' | sed -n 's/.*"id":"\([0-9a-f]*\)".*/\1/p')
curl -sf -o /dev/null -X PATCH "${auth[@]}" -H 'Content-Type: application/json' -d '{"settings":{"goalsPerOwnerLimit":1000}}' "$url/api/v1/sessions/$session"
desc=$(head -c 20000 /dev/zero | tr '\0' a)
for i in $(seq "$goals"); do
  printf '{"name":"Long %d","sessionId":"%s","description":"%s"}' "$i" "$session" "$desc" >"$work/goal.json"
  code=$(curl -s -o "$work/created" -w "%{http_code}" "${auth[@]}" -H "Content-Type: application/json" --data-binary @"$work/goal.json" "$url/api/v1/goals")
  [ "$code" = 201 ] || { echo "create goal: $code $(head -c 300 "$work/created")"; exit 1; }
done

cpu() { awk '{print $14 + $15}' "/proc/$server/stat"; }
hz=$(getconf CLK_TCK)
or20=$(printf '{"description":{"$regex":"(?:a?){1000}a{1000}b"}},%.0s' $(seq 20)); or20="{\"\$or\":[${or20%,}]}"
or10=$(printf '{"description":{"$regex":"(?:a?){5}a{5}b"}},%.0s' $(seq 10)); or10="{\"\$or\":[${or10%,}]}"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $goals goals with 20,000-character descriptions"
for f in \
  '{"description":{"$regex":"(?:a?){1000}a{1000}b"}}' \
  "$or20" \
  '{"description":{"$regex":"(?:a?){30}a{30}b"}}' \
  "$or10" \
  '{"name":{"$regex":"^Long 1"}}'; do
  samples=()
  for _ in $(seq "$rounds"); do
    before=$(cpu)
    status=$(curl -s -o "$work/body" -w '%{http_code}' -G "${auth[@]}" "$url/api/v2/integrations/goals" --data-urlencode "fields=id" --data-urlencode "filter=$f")
    after=$(cpu)
    samples+=("$((after - before))")
  done
  sorted=$(printf '%s\n' "${samples[@]}" | sort -n)
  min=$(echo "$sorted" | head -1)
  med=$(echo "$sorted" | sed -n "$(( (rounds + 1) / 2 ))p")
  printf '%s  cpu min %.2f s  median %.2f s  filter %.70s\n' "$status" "$(echo "$min / $hz" | bc -l)" "$(echo "$med / $hz" | bc -l)" "$f"
done
