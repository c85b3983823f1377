#!/usr/bin/env bash
# Fetches the assets of the GraphiQL playground and the REST reference (Redoc) from the npm registry (npm pack),
# at the versions pinned in resolvers/transport/playground/VERSIONS, and checks each
# tarball against the sha512 integrity recorded there.
#
#   .ci/playground-assets.sh          refresh the embedded copy: resolvers/transport/playground/*.gz
#                                     (gzip -9 -n, so a refresh of the same versions is byte-identical)
#   UPDATE=1 .ci/playground-assets.sh after editing a version: record the new integrity
#   .ci/playground-assets.sh DIR      plain copies in DIR, for `okrgate serve --playground-assets DIR`
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
versions="$root/resolvers/transport/playground/VERSIONS"
out=${1:-}
if [ -n "$out" ]; then
  mkdir -p "$out"
  out=$(cd "$out" && pwd)
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
updated=""
while read -r name version integrity files; do
  case "$name" in ''|'#'*) updated+="$name $version $integrity $files"$'\n'; continue ;; esac
  meta=$(npm pack --silent --json "$name@$version")
  tarball=$(node -e 'const m=JSON.parse(process.argv[1])[0]; console.log(m.filename)' "$meta")
  got=$(node -e 'const m=JSON.parse(process.argv[1])[0]; console.log(m.integrity)' "$meta")
  if [ "$got" != "$integrity" ]; then
    if [ "${UPDATE:-}" != 1 ]; then
      echo "$name@$version: integrity $got, VERSIONS records $integrity (UPDATE=1 to record the new one)" >&2
      exit 1
    fi
    integrity=$got
  fi
  mkdir -p "$name"
  tar -xzf "$tarball" -C "$name"
  for f in $files; do
    src="$name/package/$f"
    base=$(basename "$f")
    if [ -n "$out" ]; then
      cp "$src" "$out/$base"
    else
      gzip -9 -n -c "$src" >"$root/resolvers/transport/playground/$base.gz"
    fi
  done
  updated+="$name $version $integrity $files"$'\n'
done <"$versions"
if [ -z "$out" ]; then
  printf '%s' "$updated" | sed -e 's/ *$//' >"$versions.new"
  mv "$versions.new" "$versions"
  ls -l "$root"/resolvers/transport/playground/
else
  ls -l "$out"
fi
