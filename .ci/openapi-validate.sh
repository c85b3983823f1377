#!/usr/bin/env bash
# Validates the committed OpenAPI document (upstream/transport/rest/openapi.json) with
# swagger-parser (npm @apidevtools/swagger-parser, pinned in
# .ci/clients/openapi/package-lock.json). kin-openapi validates it in
# `go test ./upstream/transport/rest` (TestOpenAPIValidAndComplete), where the contract
# walk also checks every answer, projections included, against it; Redocly
# lints the served copy in .ci/ts-client.sh.
#
#   .ci/openapi-validate.sh
set -euo pipefail
cd "$(dirname "$0")/clients/openapi"
npm ci --no-audit --no-fund --loglevel=error
node validate.mjs
