#!/usr/bin/env bash
# The README's second command: installs, builds, starts Kafka (and PostgreSQL if it is down), and
# runs the whole suite: unit specs, then end-to-end specs that start both apps as processes.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
trap stop_kafka_if_started EXIT

install_deps
build
step "packing @arvis/decision-client (npm pack into .data/packages)"
mkdir -p "$ROOT/.data/packages"
(cd "$ROOT/libs/decision-client" && npm pack --silent --pack-destination "$ROOT/.data/packages" >/dev/null)
step "building the example tool package (from the packed tool SDK)"
bash scripts/build-example-tools.sh
step "lint (max-lines-per-function 60)"
npm run --silent lint
ensure_postgres
ensure_debian_packages kcat:kcat chromium:chromium openssl:openssl promtool:prometheus kubectl:kubectl \
  py.confluent_kafka:python3-confluent-kafka py.jwt:python3-jwt py.jsonschema:python3-jsonschema
start_kafka
step "running the tests"
mkdir -p .data
rc=0
npx jest --runInBand --json --outputFile=.data/jest-results.json "$@" || rc=$?
# The seeded chaos suite's short form (ADR 0021), on a broker of its own, after the specs: it
# restarts PostgreSQL and its broker. Skipped when the caller picked specs (arguments given).
chaos_rc=0
if [[ $# -eq 0 ]]; then
  step "chaos suite, short form (seed 1, 60 s)"
  npm run --silent chaos:ci || chaos_rc=$?
fi
# One plain closing line, whatever the runner printed above it.
node -e '
  const r = require(process.argv[1]);
  const skipped = r.numPendingTests + r.numTodoTests;
  console.log(`${r.numPassedTests} passed, ${r.numFailedTests} failed` + (skipped ? `, ${skipped} skipped` : ""));
' "$ROOT/.data/jest-results.json" || true
if [[ $chaos_rc -ne 0 ]]; then echo "chaos suite: violations (exit $chaos_rc)"; fi
if [[ $rc -eq 0 ]]; then rc=$chaos_rc; fi
exit $rc
