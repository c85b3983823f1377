# Sourced by the .ci scripts that run programs against `okrgate serve --demo`
# (platform-cli.sh, clients.sh, prism.sh): one way to build and start the
# server and read what it prints.
#
# demo_server WORK [SERVE FLAGS...] builds okrgate into WORK, starts
# `okrgate serve --demo` on 127.0.0.1 with a database in WORK, waits until it
# printed its demo token and sets: server (its pid, for the caller's cleanup),
# url, token, account. Its standard output goes to WORK/serve.out, its
# standard error to WORK/serve.err. Extra flags are passed to serve.
demo_server() {
  local work=$1
  shift
  go build -o "$work/okrgate" "$root/cmd/okrgate"
  "$work/okrgate" serve --demo --db "$work/okr.db" --addr 127.0.0.1:0 --metrics-addr off "$@" \
    >"$work/serve.out" 2>"$work/serve.err" &
  server=$!
  for _ in $(seq 300); do
    grep -q 'demo admin token' "$work/serve.out" 2>/dev/null && break
    kill -0 "$server" 2>/dev/null || { cat "$work/serve.out" "$work/serve.err"; return 1; }
    sleep 0.1
  done
  url=$(sed -n 's/^okrgate listening on \([^ ]*\).*/\1/p' "$work/serve.out")
  token=$(sed -n 's/^demo admin token: \([^ ]*\).*/\1/p' "$work/serve.out")
  account=$(sed -n 's/^demo account: *\([^ ]*\).*/\1/p' "$work/serve.out")
  [ -n "$url" ] && [ -n "$token" ] && [ -n "$account" ] || {
    echo "okrgate serve --demo printed no url, token or account:" >&2
    cat "$work/serve.out" "$work/serve.err" >&2
    return 1
  }
}
