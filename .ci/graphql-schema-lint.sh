#!/usr/bin/env bash
# Lints the GraphQL schema the server serves (`okrgate schema`: the schema
# files with the descriptions filled in from the field registries) with
# graphql-schema-linter, pinned in .ci/graphql-schema-lint/package-lock.json,
# under the committed config .ci/graphql-schema-lint/.graphql-schema-linterrc.
# The deprecated aliases (earlier spellings of sort enum values and filter
# input fields) are marked exempt from the naming rules by annotate.mjs.
#
#   .ci/graphql-schema-lint.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
dir=.ci/graphql-schema-lint
(cd "$dir" && npm ci --no-audit --no-fund --silent)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go run ./cmd/okrgate schema > "$tmp/schema.graphql"
node "$dir/annotate.mjs" < "$tmp/schema.graphql" > "$tmp/linted.graphql"
"$dir/node_modules/.bin/graphql-schema-linter" --config-directory "$dir" "$tmp/linted.graphql"
