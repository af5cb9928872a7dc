#!/usr/bin/env bash
# Builds the example tool packages the way a team outside the project would: pack the tool SDK with
# npm pack, install the tarball (and zod) into the example, compile it with its own tsconfig.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mkdir -p "$ROOT/.data/packages"
(cd "$ROOT/libs/tool-sdk" && npm run --silent build && npm pack --silent --pack-destination "$ROOT/.data/packages" >/dev/null)
# examples/webhook-tool (CommonJS) and examples/mcp-tool (an ES module package), each the same way.
for example in webhook-tool mcp-tool; do
  (
    cd "$ROOT/examples/$example"
    rm -rf node_modules/@arvis # the SDK tarball's version does not change when its content does
    # The package depends on @arvis/tool-sdk 0.1.0 as published; here that version is the tarball
    # just packed, named explicitly and not saved. No lockfile: the tarball is rebuilt each time,
    # so a recorded integrity would go stale.
    npm install --no-save --no-package-lock --no-audit --no-fund --loglevel=error "$ROOT/.data/packages/arvis-tool-sdk-0.1.0.tgz"
    npm run --silent build
    echo "examples/$example built: name $(pwd) in ARVIS_TOOL_PACKAGES to load it"
  )
done
