#!/usr/bin/env bash
# Installs the GraphiQL playground's assets into DIR from the npm registry, so
# `okrgate serve --playground-assets DIR` serves the playground without
# internet access. The versions are the ones gqlgen v0.17.95's CDN page uses.
#
#   .ci/playground-assets.sh DIR
set -euo pipefail
dir=${1:?usage: $0 DIR}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
npm init -y >/dev/null
npm install --no-audit --no-fund --ignore-scripts --silent graphiql@4.1.2 react@18.2.0 react-dom@18.2.0
cp node_modules/graphiql/graphiql.min.js node_modules/graphiql/graphiql.min.css "$dir"/
cp node_modules/react/umd/react.production.min.js "$dir"/
cp node_modules/react-dom/umd/react-dom.production.min.js "$dir"/
ls -l "$dir"
