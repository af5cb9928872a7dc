#!/usr/bin/env bash
# Benchmark (npm run bench -- [options]; --help lists them): installs, builds, starts Kafka, then
# scripts/bench/main.ts measures throughput, a latency sweep, CPU per decision by process role,
# peak memory and two baselines, each step against a fresh database and fresh topics, and writes
# bench/results/<timestamp>/. Stops what it started. A report, never a test.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
for arg in "$@"; do
  if [[ "$arg" == "--help" && -f dist/scripts/bench/main.js ]]; then exec node dist/scripts/bench/main.js --help; fi
done
cleanup() {
  local rc=$?
  stop_kafka_if_started
  exit $rc
}
trap cleanup EXIT

install_deps
build
ensure_postgres
start_kafka
node dist/scripts/bench/main.js "$@"
