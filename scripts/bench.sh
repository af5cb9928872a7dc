#!/usr/bin/env bash
# Benchmark: starts Kafka and both services against their own database and topics, measures
# throughput, latency percentiles and memory (scripts/bench.ts), prints and saves the figures in
# .data/bench-results.json, then stops what it started. A report, never a test.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
export DATABASE_URL="${BENCH_DATABASE_URL:-postgresql://postgres@127.0.0.1:5432/arvis_bench}"
export ARVIS_TOPIC_PREFIX="bench-$(date +%s)."
export LOG_LEVEL=warn
LOGS="$ROOT/.data/logs"
PIDS=()
cleanup() {
  local rc=$?
  if ((${#PIDS[@]})); then kill -TERM "${PIDS[@]}" 2>/dev/null || true; wait "${PIDS[@]}" 2>/dev/null || true; fi
  stop_kafka_if_started
  exit $rc
}
trap cleanup EXIT

install_deps
build
ensure_postgres
start_kafka
local_env # keys and ARVIS_TOOL_PACKAGES (the demo package), which migrate reads too
node dist/scripts/migrate.js --fresh # figures from an empty database, comparable run to run
node dist/scripts/create-topics.js
mkdir -p "$LOGS"
node dist/apps/authorizer/src/main.js >"$LOGS/bench-authorizer.log" 2>&1 & PIDS+=($!)
node dist/apps/dispatcher/src/main.js >"$LOGS/bench-dispatcher.log" 2>&1 & PIDS+=($!)
wait_ready "$LOGS" 3001 3002
BENCH_PIDS="${PIDS[0]},${PIDS[1]}" node dist/scripts/bench.js
