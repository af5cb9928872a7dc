#!/usr/bin/env bash
# Builds examples/webhook-tool the way a team outside the project would: pack the tool SDK with
# npm pack, install the tarball (and zod) into the example, compile it with its own tsconfig.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mkdir -p "$ROOT/.data/packages"
(cd "$ROOT/libs/tool-sdk" && npm run --silent build && npm pack --silent --pack-destination "$ROOT/.data/packages" >/dev/null)
cd "$ROOT/examples/webhook-tool"
rm -rf node_modules/@arvis # the SDK tarball's version does not change when its content does
# No lockfile: the SDK tarball is rebuilt each time, so a recorded integrity would go stale.
npm install --no-package-lock --no-audit --no-fund --loglevel=error
npm run --silent build
echo "examples/webhook-tool built: name $(pwd) in ARVIS_TOOL_PACKAGES to load it"
