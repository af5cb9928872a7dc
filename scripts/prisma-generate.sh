#!/usr/bin/env bash
# Generates the Prisma client into libs/persistence/src/generated. `prisma generate` (7.x) wants to
# download the schema-engine binary although generation does not use it; where binaries.prisma.sh
# is out of reach we point it at a placeholder (any path works for generate).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [[ -z "${PRISMA_SCHEMA_ENGINE_BINARY:-}" ]]; then export PRISMA_SCHEMA_ENGINE_BINARY=/bin/false; fi
export DATABASE_URL="${DATABASE_URL:-postgresql://postgres@127.0.0.1:5432/arvis}"
npx prisma generate --no-hints >/dev/null 2>&1 || npx prisma generate --no-hints
echo "[build] prisma client generated"
