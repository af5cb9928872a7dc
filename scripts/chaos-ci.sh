#!/usr/bin/env bash
# The chaos suite's short form for CI (ADR 0021): seed 1, 60 s of load at 30/s, at most 50 s to
# settle; under 3 minutes all told on a 2-core machine. Needs `npm run build` first (builds nothing).
# Extra arguments go to the suite (e.g. --no-pg-restart). scripts/test.sh runs it after the specs.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
exec node dist/scripts/chaos/main.js --seed 1 --seconds 60 --ci "$@"
